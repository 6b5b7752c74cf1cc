"""Acceptance: undoing, one by one, every merge recorded while ingesting the Dracula excerpt
(offline spaCy extraction, hashed embeddings for speed; cut into four documents so that
merges across documents happen too) ends
with the same entities, mentions and relations as an ingest of the same text with those
merge rules switched off. Compared through the JSON export plus every document's mentions;
left out of the comparison: relation ``created_at`` (when the graph learned a fact). Entity
``salience`` and ``confidence`` are compared: stores keep them per listing document, so
processing a document again takes its old values away."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import loregraph
from graph_state import graph_state
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import InputError
from loregraph.ingest.resolve.decisions import SAME_KEY_RULES
from loregraph.models import name_key
from loregraph.settings import ResolutionSettings, Settings
from loregraph.text.names import split_qualifier, split_title

PARTS = 4


def _parts(text: str) -> list[str]:
    paragraphs = text.split("\n\n")
    n = len(paragraphs)
    return ["\n\n".join(paragraphs[i * n // PARTS : (i + 1) * n // PARTS]) for i in range(PARTS)]


def _ingest(path: Path, parts: list[str], settings: Settings | None = None) -> loregraph.Graph:
    graph = loregraph.open(path, settings=settings or Settings(), embedder=HashingEmbedder(dim=64))
    for i, text in enumerate(parts):
        report = graph.ingest_text(text, title=f"Dracula, part {i + 1}", source=f"part-{i + 1}")
        assert report.ok
    return graph


def _core(name: str) -> str:
    """A name less its honorifics and a title's qualifier ("Dracula, part 1")."""
    return name_key(split_title(split_qualifier(name)[0])[1])


@pytest.fixture(scope="module")
def undone(
    tmp_path_factory: pytest.TempPathFactory, excerpt_path: Path
) -> Iterator[tuple[loregraph.Graph, set[str], list[str]]]:
    parts = _parts(excerpt_path.read_text(encoding="utf-8"))
    graph = _ingest(tmp_path_factory.mktemp("merged") / "g.db", parts)
    rules: set[str] = set()
    kept: list[str] = []  # merges the pipeline makes whatever the rules (one name key)
    for _ in range(200):
        todo = [
            m
            for m in graph.corrections.merges()
            if m.rule not in SAME_KEY_RULES and m.id not in kept
        ]
        if not todo:
            break
        merge = todo[-1]  # the oldest first
        try:
            graph.corrections.unmerge(merge.id, by="test")
        except InputError:
            kept.append(merge.id)
            continue
        rules.add(merge.rule)
    else:
        pytest.fail("merges kept coming back")
    yield graph, rules, kept
    graph.close()


def test_every_merge_undone_equals_an_ingest_without_those_rules(
    undone: tuple[loregraph.Graph, set[str], list[str]],
    excerpt_path: Path,
    tmp_path: Path,
) -> None:
    graph, rules, kept = undone
    assert {"alias", "part-of-name", "title-reference"} <= rules, rules
    for merge in graph.corrections.merges():  # what is left are names of one key, honorifics aside
        assert merge.id in kept or merge.rule in SAME_KEY_RULES
        assert _core(merge.surface) == _core(merge.entity), merge
    settings = Settings(resolution=ResolutionSettings(merge_rules_off=tuple(sorted(rules))))
    parts = _parts(excerpt_path.read_text(encoding="utf-8"))
    plain = _ingest(tmp_path / "plain.db", parts, settings)
    try:
        assert graph_state(graph, tmp_path) == graph_state(plain, tmp_path)
    finally:
        plain.close()


def test_undone_merges_are_listed_audited_and_refused_twice(
    undone: tuple[loregraph.Graph, set[str], list[str]],
) -> None:
    graph, _, _ = undone
    gone = [m for m in graph.corrections.merges(undone=True) if m.undone]
    assert gone and all(m.principal == "test" for m in gone)
    assert {e.action for e in graph.access.audit()} == {"unmerge"}
    assert len(graph.access.audit(limit=3)) == 3
    with pytest.raises(loregraph.NotFoundError, match="already undone"):
        graph.corrections.unmerge(gone[0].id)
    exact = [m for m in graph.corrections.merges() if m.rule in SAME_KEY_RULES]
    if exact:
        with pytest.raises(InputError, match="rename"):
            graph.corrections.unmerge(exact[0].id)

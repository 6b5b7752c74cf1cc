"""The graph layer switched off (``LOREGRAPH_GRAPH_AUGMENTATION=false``): questions are
answered from passages found by their words and meaning only, whatever the preset."""

from __future__ import annotations

from pathlib import Path

import pytest

import loregraph
from loregraph import Settings
from loregraph.embed.hashing import HashingEmbedder

TEXT = (
    "Bob Jones works for Acme Corporation in Paris. Acme Corporation builds trains. "
    "Alice Smith met Bob Jones in Berlin, where Alice Smith lives."
)
QUESTION = "Who does Bob Jones work for?"


def _graph(path: Path, settings: Settings) -> loregraph.Graph:
    graph = loregraph.open(path, settings=settings, embedder=HashingEmbedder(dim=64))
    if not graph.stats().documents:
        graph.ingest_text(TEXT, title="People")
    return graph


def test_the_variable_reads_as_a_flag() -> None:
    assert Settings.from_env({}).graph_augmentation
    assert not Settings.from_env({"LOREGRAPH_GRAPH_AUGMENTATION": "false"}).graph_augmentation
    assert Settings.from_env({"LOREGRAPH_GRAPH_AUGMENTATION": "true"}).graph_augmentation


@pytest.mark.parametrize("preset", ["hybrid", "local", "ppr", "global"])
def test_without_the_graph_only_passages_are_found(tmp_path: Path, preset: str) -> None:
    path = tmp_path / "g.db"
    with _graph(path, Settings()) as graph:
        on = graph.retrieve(QUESTION, preset=preset)
        assert on.entities  # the same store with the graph layer on
    with _graph(path, Settings(graph_augmentation=False)) as graph:
        off = graph.retrieve(QUESTION, preset=preset)
        assert off.passages and "Acme Corporation" in off.passages[0].text
        assert not off.entities and not off.relations
        context = graph.context(QUESTION, preset=preset)
        assert "Acme Corporation" in context
        assert "Relevant Entities" not in context and "Relationships" not in context

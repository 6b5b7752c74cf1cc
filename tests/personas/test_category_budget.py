"""The context of a persona's question: a relationship map, then primary, graph-found and
linked passages with provenance markers, each category within its share of the budget."""

from __future__ import annotations

import json

import pytest

from loregraph import AsyncGraph
from loregraph.engine.questions import context_of
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.context.category_budget import (
    GRAPH_SHARE,
    MAP_TOKENS,
    PRIMARY_SHARE,
    PROVENANCE_SHARE,
    fit_categories,
    persona_context,
)
from loregraph.retrieve.results.intents import IntentRoute
from loregraph.retrieve.results.provenance import PassageSource, PersonaReport
from loregraph.retrieve.results.result import Passage, QueryAnalysis, RetrievalResult
from loregraph.text.tokens import count_tokens

SENTENCE = "Rose Albright swam across the lake at dawn while Walter mended the canoe. "


def _passage(n: int, score: float, kind: str, length: int = 6) -> Passage:
    text = f"{kind} story {n}. " + SENTENCE * length
    return Passage(f"c{kind}{n}", f"d{kind}{n}", f"{kind} {n}", 0, 0, len(text), text, score)


def _result(
    primary: int = 60, graph: int = 60, linked: int = 0, length: int = 6
) -> RetrievalResult:
    passages = [_passage(i, 1.0 - i * 0.001, "primary", length) for i in range(primary)]
    passages += [_passage(i, 0.9995 - i * 0.001, "graph", length) for i in range(graph)]
    passages += [_passage(i, 0.5 - i * 0.001, "linked", length) for i in range(linked)]
    passages.sort(key=lambda p: -p.score)
    sources = {}
    for p in passages:
        kind = p.chunk_id[1:].rstrip("0123456789")
        if kind == "primary":
            sources[p.chunk_id] = PassageSource("primary", ["embedding similarity"], "rose")
        elif kind == "graph":
            sources[p.chunk_id] = PassageSource("graph", ["relational traversal (family)"], "rose")
        else:
            sources[p.chunk_id] = PassageSource("graph", ["cross-scope"], "edna", "edna")
    lines = [f"Person {i} is cousin of Rose Albright (family)" for i in range(60)]
    report = PersonaReport("family", "You are family.", IntentRoute(), lines, sources)
    return RetrievalResult(
        question="What happened at the lake?",
        scope="rose",
        preset="hybrid",
        analysis=QueryAnalysis("What happened at the lake?"),
        passages=passages[:8],
        reserve=passages[8:],
        persona=report,
    )


@pytest.mark.parametrize("budget", [1500, 4000, 8000])
def test_each_category_keeps_to_its_share(budget: int) -> None:
    result = _result()
    view = fit_categories(result, budget)
    assert view.used["map"] <= MAP_TOKENS
    _, text = persona_context(result, "markdown", budget)
    rest = budget - view.used["map"]
    assert view.used["primary"] <= PRIMARY_SHARE * rest
    assert view.used["primary"] >= (PRIMARY_SHARE - 0.1) * rest  # filled, not just capped
    assert view.used["graph"] <= GRAPH_SHARE * rest
    assert view.used["graph"] >= (GRAPH_SHARE - 0.1) * rest
    assert view.used["provenance"] <= PROVENANCE_SHARE * rest
    assert count_tokens(text) <= budget
    primary = view.sections["primary"]
    assert [p.chunk_id for p in primary] == [f"cprimary{i}" for i in range(len(primary))]
    graph = view.sections["graph"]
    assert [p.chunk_id for p in graph] == [f"cgraph{i}" for i in range(len(graph))]


def test_what_one_category_leaves_goes_to_the_other() -> None:
    view = fit_categories(_result(primary=30, graph=1), 4000)
    assert len(view.sections["graph"]) == 1
    assert view.used["primary"] > PRIMARY_SHARE * (4000 - view.used["map"])


def test_markers_say_how_each_passage_was_found_and_shared() -> None:
    result = _result(primary=2, graph=1, linked=1)
    passages, text = persona_context(result, "markdown", 4000)
    assert text.startswith("## Context for the family persona")
    assert text.index("## Known connections") < text.index("## Relevant passages")
    assert text.index("## Relevant passages") < text.index("## Found through connections")
    assert text.index("## Found through connections") < text.index("## From linked scopes")
    assert "Source: this scope, matched by: embedding similarity\n" in text
    assert "Source: this scope, matched by: relational traversal (family)" in text
    assert "Source: linked scope edna, matched by: cross-scope; shared via: edna" in text
    assert [p.chunk_id for p in passages] == ["cprimary0", "cprimary1", "cgraph0", "clinked0"]
    assert "[4] linked 0" in text  # numbered in the order shown
    data = json.loads(persona_context(result, "json", 4000)[1])
    assert data["persona"] == "family" and data["intent"] == "general"
    assert [p["section"] for p in data["passages"]] == ["primary", "primary", "graph", "linked"]
    assert data["passages"][3]["shared_via"] == "edna"


def test_the_provenance_share_runs_out_before_the_passages() -> None:
    view = fit_categories(_result(length=1), 4000)
    shown = view.passages()
    assert 0 < len(view.markers) < len(shown)
    assert list(view.markers) == [p.chunk_id for p in shown[: len(view.markers)]]


async def test_without_a_persona_the_presets_context_is_unchanged(family: AsyncGraph) -> None:
    question = "Who taught Rose Albright to fish?"
    for fmt in ("markdown", "xml"):  # (json holds the timings of each run)
        plain = await family.context(question, format=fmt)  # type: ignore[arg-type]
        assert plain == assemble(await family.retrieve(question), fmt).text
    asked = await family.retrieve(question, persona="friend")
    assert context_of(asked, "markdown").startswith("## Context for the friend persona")
    assert context_of(asked, "xml") == assemble(asked, "xml").text  # xml keeps its layout

"""Facts over time through the API on SQLite: a new fact ends the current one it
contradicts; queries see what is true now, or at ``as_of``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

import loregraph

JAN = datetime(2026, 1, 15, tzinfo=UTC)
MID = datetime(2026, 1, 31, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)
EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."


@pytest.fixture()
def graph(tmp_path: Path) -> Iterator[loregraph.Graph]:
    with loregraph.open(tmp_path / "t.db") as g:
        yield g


def depends_on(graph: loregraph.Graph, as_of: datetime | None = None) -> list[str]:
    found = graph.relations("API", direction="out", type="DEPENDS_ON", as_of=as_of)
    return sorted(link.to_dict()["other"] for link in found.links)


def stored(graph: loregraph.Graph) -> dict[str, tuple[datetime | None, datetime | None]]:
    out = {}
    for link in graph.relations("API", direction="out", type="DEPENDS_ON", as_of=JAN).links:
        out[link.to_dict()["other"]] = (link.relation.valid_at, link.relation.invalid_at)
    for link in graph.relations("API", direction="out", type="DEPENDS_ON").links:
        out[link.to_dict()["other"]] = (link.relation.valid_at, link.relation.invalid_at)
    return out


def test_express_then_hono(graph: loregraph.Graph) -> None:
    graph.remember(EXPRESS, at=JAN)
    assert depends_on(graph) == ["Express"]
    graph.remember(HONO, at=FEB)
    assert depends_on(graph) == ["Hono"]
    assert depends_on(graph, MID) == ["Express"]
    assert depends_on(graph, FEB) == ["Hono"]
    assert stored(graph) == {"Express": (JAN, FEB), "Hono": (FEB, None)}
    around = graph.neighbors("API", as_of=MID).to_dict()
    assert "Hono" not in {e["name"] for e in around["entities"]}


def test_the_later_fact_wins_whichever_is_remembered_first(graph: loregraph.Graph) -> None:
    graph.remember("The API server depends on Hono.", at=FEB)
    graph.remember(EXPRESS, at=JAN)
    assert depends_on(graph) == ["Hono"]
    assert depends_on(graph, MID) == ["Express"]


def test_no_longer_ends_the_fact_it_names(graph: loregraph.Graph) -> None:
    graph.remember(EXPRESS, at=JAN)
    graph.remember("The API server no longer depends on Express.", at=FEB)
    assert depends_on(graph) == []
    assert depends_on(graph, MID) == ["Express"]


def test_a_type_not_functional_keeps_both(tmp_path: Path) -> None:
    with loregraph.open(tmp_path / "n.db", settings=_no_functional()) as g:
        g.remember(EXPRESS, at=JAN)
        g.remember("The API server depends on Hono.", at=FEB)
        assert depends_on(g) == ["Express", "Hono"]


def _no_functional() -> loregraph.Settings:
    base = loregraph.Settings()
    return replace(base, extraction=replace(base.extraction, functional_relations=()))


def test_a_context_leaves_out_ended_facts(graph: loregraph.Graph) -> None:
    graph.remember(EXPRESS, at=JAN)
    graph.remember(HONO, at=FEB)
    found = graph.retrieve("What does the API server depend on?").relations
    facts = [(r.source_name, r.relation.type, r.target_name) for r in found]
    assert ("API", "DEPENDS_ON", "Hono") in facts
    assert ("API", "DEPENDS_ON", "Express") not in facts

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
    found = graph.explore.relations("API server", direction="out", type="DEPENDS_ON", as_of=as_of)
    return sorted(link.to_dict()["other"] for link in found.links)


def stored(graph: loregraph.Graph) -> dict[str, tuple[datetime | None, datetime | None]]:
    out = {}
    for link in graph.explore.relations(
        "API server", direction="out", type="DEPENDS_ON", as_of=JAN
    ).links:
        out[link.to_dict()["other"]] = (link.relation.valid_at, link.relation.invalid_at)
    for link in graph.explore.relations("API server", direction="out", type="DEPENDS_ON").links:
        out[link.to_dict()["other"]] = (link.relation.valid_at, link.relation.invalid_at)
    return out


def test_express_then_hono(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    assert depends_on(graph) == ["Express"]
    graph.memories.remember(HONO, at=FEB)
    assert depends_on(graph) == ["Hono"]
    assert depends_on(graph, MID) == ["Express"]
    assert depends_on(graph, FEB) == ["Hono"]
    assert stored(graph) == {"Express": (JAN, FEB), "Hono": (FEB, None)}
    around = graph.explore.neighbors("API server", as_of=MID).to_dict()
    assert "Hono" not in {e["name"] for e in around["entities"]}


def test_the_later_fact_wins_whichever_is_remembered_first(graph: loregraph.Graph) -> None:
    graph.memories.remember("The API server depends on Hono.", at=FEB)
    graph.memories.remember(EXPRESS, at=JAN)
    assert depends_on(graph) == ["Hono"]
    assert depends_on(graph, MID) == ["Express"]


def test_no_longer_ends_the_fact_it_names(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    graph.memories.remember("The API server no longer depends on Express.", at=FEB)
    assert depends_on(graph) == []
    assert depends_on(graph, MID) == ["Express"]


def test_a_type_not_functional_keeps_both(tmp_path: Path) -> None:
    with loregraph.open(tmp_path / "n.db", settings=_no_functional()) as g:
        g.memories.remember(EXPRESS, at=JAN)
        g.memories.remember("The API server depends on Hono.", at=FEB)
        assert depends_on(g) == ["Express", "Hono"]


def _no_functional() -> loregraph.Settings:
    base = loregraph.Settings()
    return replace(base, extraction=replace(base.extraction, functional_relations=()))


def test_a_context_leaves_out_ended_facts(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    graph.memories.remember(HONO, at=FEB)
    found = graph.retrieve("What does the API server depend on?").relations
    facts = [(r.source_name, r.relation.type, r.target_name) for r in found]
    assert ("API server", "DEPENDS_ON", "Hono") in facts
    assert ("API server", "DEPENDS_ON", "Express") not in facts


MAR = datetime(2026, 3, 1, tzinfo=UTC)
LATE_FEB = datetime(2026, 2, 20, tzinfo=UTC)


def ended_by(graph: loregraph.Graph, target: str) -> tuple[datetime | None, str | None]:
    found = graph.explore.relations(
        "API server", direction="out", type="DEPENDS_ON", as_of=JAN
    ).links
    for link in found:
        if link.to_dict()["other"] == target:
            return link.relation.invalid_at, link.relation.invalidated_by
    raise AssertionError(f"no DEPENDS_ON {target} at {JAN}")


def test_an_ended_fact_names_the_memory_that_ended_it(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    hono = graph.memories.remember(HONO, at=FEB)
    assert ended_by(graph, "Express") == (FEB, hono.id)
    [link] = [
        link
        for link in graph.explore.relations("API server", type="DEPENDS_ON", as_of=MID).links
        if link.to_dict()["other"] == "Express"
    ]
    assert link.relation.expired_at is not None  # the graph stopped believing it


def test_forgetting_the_memory_that_ended_a_fact_opens_it_again(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    hono = graph.memories.remember("The API server depends on Hono.", at=FEB)
    assert depends_on(graph) == ["Hono"]
    graph.memories.forget(hono.id)
    assert depends_on(graph) == ["Express"]
    assert ended_by(graph, "Express") == (None, None)


def test_forgetting_a_fact_between_two_others(graph: loregraph.Graph) -> None:
    graph.memories.remember("The API server depends on Bun.", at=MAR)
    graph.memories.remember(EXPRESS, at=JAN)
    hono = graph.memories.remember("The API server depends on Hono.", at=FEB)
    assert [depends_on(graph, t) for t in (MID, LATE_FEB)] == [["Express"], ["Hono"]]
    graph.memories.forget(hono.id)
    assert depends_on(graph) == ["Bun"]
    assert [depends_on(graph, t) for t in (MID, LATE_FEB)] == [["Express"], ["Express"]]
    assert ended_by(graph, "Express")[0] == MAR


def test_an_invalidation_is_written_with_its_memory(
    graph: loregraph.Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loregraph.store.sqlite import apply as write

    graph.memories.remember(EXPRESS, at=JAN)

    def broken(*_: object) -> None:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(write, "end_relations", broken)
    with pytest.raises(loregraph.LoregraphError):
        graph.memories.remember("The API server depends on Hono.", at=FEB)
    assert [m.text for m in graph.memories.all()] == [EXPRESS]
    assert depends_on(graph) == ["Express"]


def test_a_date_in_the_text_dates_the_fact(graph: loregraph.Graph) -> None:
    graph.memories.remember("Alice Moreau lives in Lisbon.", at=JAN)
    graph.memories.remember("Last week Alice Moreau moved to Oslo and lives in Oslo.", at=FEB)
    found = graph.explore.relations("Alice Moreau", direction="out", type="LIVES_IN").links
    [(name, since)] = [(link.other_name, link.relation.valid_at) for link in found]
    assert (name, since) == ("Oslo", datetime(2026, 2, 3, tzinfo=UTC))
    before = graph.explore.relations(
        "Alice Moreau", type="LIVES_IN", as_of=datetime(2026, 2, 2, tzinfo=UTC)
    )
    assert [link.other_name for link in before.links] == ["Lisbon"]


def test_documents_without_a_time_end_nothing_by_their_order(graph: loregraph.Graph) -> None:
    graph.ingest_text("The API server depends on Express.", title="Notes on the server")
    graph.ingest_text("The API server depends on Hono.", title="More notes on the server")
    assert depends_on(graph) == ["Express", "Hono"]


def test_a_replaced_document_still_ends_what_it_says(graph: loregraph.Graph) -> None:
    from loregraph.ingest.types import SourceDocument

    def note(name: str, text: str, at: datetime) -> SourceDocument:
        return SourceDocument(title=name, text=text, source=name, valid_at=at)

    graph.ingest_documents(
        [note("a", EXPRESS, JAN), note("b", "The API server depends on Hono.", FEB)]
    )
    assert depends_on(graph) == ["Hono"]
    graph.ingest_documents([note("b", "The API server depends on Hono. It is fast.", FEB)])
    assert depends_on(graph) == ["Hono"] and depends_on(graph, MID) == ["Express"]
    graph.ingest_documents([note("b", "The API server is fast.", FEB)])
    assert depends_on(graph) == ["Express"]


def test_the_answer_quotes_the_memory_that_ended_a_fact(graph: loregraph.Graph) -> None:
    graph.memories.remember(EXPRESS, at=JAN)
    graph.memories.remember("The API server no longer depends on Express.", at=FEB)
    quotes = [c.quote for c in graph.ask("What does the API server depend on?").citations]
    assert quotes == ["The API server no longer depends on Express."]
    then = graph.ask("What does the API server depend on?", as_of=MID).citations
    assert [c.quote for c in then] == [EXPRESS]

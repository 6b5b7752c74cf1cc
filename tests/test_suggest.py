"""Suggestions: other documents about the same people and places, rarer ones weighing more."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.engine.suggest import reason_for
from loregraph.errors import InputError, NotFoundError
from loregraph.ingest.types import SourceDocument
from loregraph.store.sqlite import SqliteStore

TEXTS = {
    "Cliffs": "Mina Harker walked along the cliffs at Whitby with Lucy Westenra.",
    "Harbour": "Mina Harker watched the storm over the harbour at Whitby.",
    "Proposals": "Arthur Holmwood proposed to Lucy Westenra in the garden.",
    "Exeter": "Mina Harker took the train to Exeter.",
    "Letters": "Mina Harker wrote long letters to her friends.",
    "Asylum": "Doctor John Seward ran the asylum at Purfleet.",
}


@pytest.fixture()
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    graph = AsyncGraph(SqliteStore(tmp_path / "g.db"), embedder=HashingEmbedder(dim=64))
    for title, text in TEXTS.items():
        await graph.ingest_text(text, title=title)
    try:
        yield graph
    finally:
        await graph.close()


async def test_documents_sharing_more_and_rarer_entities_come_first(graph: AsyncGraph) -> None:
    found = await graph.explore.suggest("Cliffs")
    titles = [s.title for s in found]
    # Harbour shares Mina Harker and Whitby; Proposals shares Lucy Westenra, whom only two
    # documents name; Exeter and Letters share Mina Harker, whom four documents name
    assert titles[:2] == ["Harbour", "Proposals"]
    assert set(titles[2:]) == {"Exeter", "Letters"}
    assert "Cliffs" not in titles and "Asylum" not in titles
    harbour = found[0]
    assert {e.name for e in harbour.shared} == {"Mina Harker", "Whitby"}
    assert harbour.reason in (
        "also about Whitby and Mina Harker",
        "also about Mina Harker and Whitby",
    )
    assert harbour.score == pytest.approx(sum(e.weight for e in harbour.shared), abs=1e-3)
    lucy = found[1].shared[0]
    mina = next(e for e in harbour.shared if e.name == "Mina Harker")
    assert lucy.name == "Lucy Westenra" and lucy.weight > mina.weight
    assert found[1].to_dict()["shared"][0]["name"] == "Lucy Westenra"


async def test_limit_unknown_documents_and_nothing_shared(graph: AsyncGraph) -> None:
    assert len(await graph.explore.suggest("Cliffs", limit=1)) == 1
    assert await graph.explore.suggest("Asylum") == []
    docs = {d.title: d.id for d in await graph.documents()}
    exeter = await graph.explore.suggest(docs["Exeter"], limit=10)
    assert {s.title for s in exeter} == {"Cliffs", "Harbour", "Letters"}
    with pytest.raises(NotFoundError):
        await graph.explore.suggest("no such story")
    with pytest.raises(InputError):
        await graph.explore.suggest("Cliffs", limit=0)


async def test_a_shared_year_adds_to_a_shared_entity(tmp_path: Path) -> None:
    stories = [
        ("Flood", "Walter Marsh cut his hand in the flood.", 1962),
        ("Stitches", "Walter Marsh had his hand stitched by lantern light.", 1962),
        ("Store", "Walter Marsh opened the store on a Monday.", 1956),
        ("Storm", "The river rose over the bridge in the storm.", 1962),
    ]
    graph = AsyncGraph(SqliteStore(tmp_path / "y.db"), embedder=HashingEmbedder(dim=64))
    try:
        await graph.ingest_documents(
            SourceDocument(t, text, t, valid_at=datetime(y, 4, 9, tzinfo=UTC))
            for t, text, y in stories
        )
        found = await graph.explore.suggest("Flood")
        assert [s.title for s in found] == ["Stitches", "Store"]  # a year alone: nothing
        stitches, store = found
        assert stitches.period == "1962" and store.period is None
        assert stitches.reason.endswith(", in 1962") and stitches.score > store.score
        assert stitches.to_dict()["period"] == "1962"
    finally:
        await graph.close()


def test_reasons_name_the_weightiest_entities() -> None:
    assert reason_for(["Whitby"]) == "also about Whitby"
    assert reason_for(["Mina Harker", "Whitby"]) == "also about Mina Harker and Whitby"
    assert reason_for(["A", "B", "C"]) == "also about A, B and C"
    assert reason_for(["A", "B", "C", "D", "E"]) == "also about A, B, C and 2 more"
    assert reason_for(["Walter Marsh"], "1962") == "also about Walter Marsh, in 1962"

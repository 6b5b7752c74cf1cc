"""Memories through the API (``graph.memories``): remember, all, forget."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

import loregraph
from loregraph import ChunkSettings, InputError, LoregraphError, NewMemory, NotFoundError, Settings
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.models import ABOUT, DocKind, name_key
from loregraph.store.sqlite import SqliteStore

BOB = "Bob Jones moved to Paris in March."
ALICE = "Alice Smith maintains the billing service. Alice Smith lives in Berlin."


@pytest.fixture()
def graph(tmp_path: Path) -> Iterator[loregraph.Graph]:
    with loregraph.open(tmp_path / "m.db") as g:
        yield g


def test_remember_returns_the_stored_memory(graph: loregraph.Graph) -> None:
    at = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
    memory = graph.memories.remember(BOB, at=at, tags=["people", "moves"], source="chat")
    assert memory.text == BOB
    assert memory.at == at
    assert memory.tags == ["people", "moves"]
    assert memory.source == "chat"
    assert memory.id.startswith("doc_")
    [listed] = graph.memories.all()
    assert listed.to_dict() == memory.to_dict()
    [doc] = graph.documents()
    assert doc.kind == DocKind.MEMORY and doc.valid_at == at
    padded = graph.memories.remember(f"\n  {ALICE}\r\n  Second line.  \n\n")
    assert padded.text == f"{ALICE}\r\n  Second line."
    assert graph.memories.all()[-1].text == padded.text


def test_at_defaults_to_now_and_a_naive_time_is_utc(graph: loregraph.Graph) -> None:
    before = datetime.now(UTC)
    now = graph.memories.remember(BOB)
    assert now.at.tzinfo is not None and before <= now.at <= datetime.now(UTC)
    naive = graph.memories.remember(ALICE, at=datetime(2025, 6, 1, 12, 0))
    assert naive.at == datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
    plus_two = timezone(timedelta(hours=2))
    other = graph.memories.remember(
        "Carol Diaz joined Acme.", at=datetime(2025, 6, 1, 14, tzinfo=plus_two)
    )
    assert other.at == naive.at  # the same instant, kept with its zone


def test_a_memory_is_searchable_as_soon_as_remember_returns(graph: loregraph.Graph) -> None:
    graph.memories.remember(ALICE)
    memory = graph.memories.remember(BOB)
    hits = graph.search("Where did Bob Jones move?")
    assert hits and hits[0].id == memory.id
    assert "Paris" in graph.context("Where did Bob Jones move?")
    answer = graph.ask("Where did Bob Jones move?")
    assert "Paris" in answer.text


def test_the_title_is_no_entity_and_has_no_about_edges(graph: loregraph.Graph) -> None:
    memory = graph.memories.remember(BOB)
    names = {name_key(e.name) for e in graph.explore.entities()}
    assert name_key(BOB) not in names
    assert {"bob jones", "paris"} <= names
    for name in ("Bob Jones", "Paris"):
        assert all(r.type != ABOUT for r in graph.explore.entity(name).relations)
    [doc] = graph.documents()
    assert doc.id == memory.id and doc.title == BOB


def test_memories_are_linked_to_the_entities_they_mention(graph: loregraph.Graph) -> None:
    bob = graph.memories.remember(BOB)
    alice = graph.memories.remember(ALICE)
    again = graph.memories.remember(
        "Bob Jones now works for Acme.", at=datetime(2027, 1, 1, tzinfo=UTC), planned=True
    )
    assert [m.id for m in graph.memories.all(about="Bob Jones")] == [bob.id, again.id]
    assert [m.id for m in graph.memories.all(about="Alice Smith")] == [alice.id]
    with pytest.raises(NotFoundError):
        graph.memories.all(about="Zebulon Quarterfield")


def test_memories_filter_by_tag_source_and_time(graph: loregraph.Graph) -> None:
    day = datetime(2026, 1, 1, tzinfo=UTC)
    first = graph.memories.remember(BOB, at=day, tags=["people"], source="chat")
    second = graph.memories.remember(ALICE, at=day + timedelta(days=10), tags=["people", "work"])
    third = graph.memories.remember(
        "Acme builds rockets.", at=day + timedelta(days=20), source="chat"
    )

    def ids(**criteria: object) -> list[str]:
        return [m.id for m in graph.memories.all(**criteria)]  # type: ignore[arg-type]

    assert ids() == [first.id, second.id, third.id]
    assert ids(tags=["people"]) == [first.id, second.id]
    assert ids(tags=["people", "work"]) == [second.id]
    assert ids(source="chat") == [first.id, third.id]
    assert ids(since=day + timedelta(days=5)) == [second.id, third.id]
    assert ids(until=day + timedelta(days=10)) == [first.id, second.id]
    assert ids(since=datetime(2026, 1, 5), until=datetime(2026, 1, 15)) == [second.id]
    assert ids(limit=2) == [second.id, third.id]


def test_forget_removes_exactly_what_only_that_memory_supported(graph: loregraph.Graph) -> None:
    bob = graph.memories.remember(BOB)
    graph.memories.remember("Bob Jones likes Lisbon.")
    report = graph.memories.forget(bob.id)
    assert report.document_id == bob.id and report.chunks == 1
    names = {e.name for e in graph.explore.entities()}
    assert "Paris" not in names
    assert {"Bob Jones", "Lisbon"} <= names
    assert [m.text for m in graph.memories.all()] == ["Bob Jones likes Lisbon."]


def test_forget_refuses_unknown_ids_and_documents(graph: loregraph.Graph) -> None:
    graph.ingest_text("Dracula lives in Transylvania.", title="Notes")
    [doc] = graph.documents()
    with pytest.raises(NotFoundError, match="no memory 'doc_nope'"):
        graph.memories.forget("doc_nope")
    with pytest.raises(NotFoundError, match="use delete"):
        graph.memories.forget(doc.id)
    assert len(graph.documents()) == 1


@pytest.mark.parametrize("text", ["", "   \n "])
def test_empty_text_is_refused_and_nothing_written(graph: loregraph.Graph, text: str) -> None:
    with pytest.raises(InputError, match="non-empty text"):
        graph.memories.remember(text)
    with pytest.raises(InputError, match="tags"):
        graph.memories.remember(BOB, tags=["ok", ""])
    assert graph.memories.all() == [] and graph.documents() == []


def test_a_long_memory_is_read_back_whole(tmp_path: Path) -> None:
    text = " ".join(f"Sentence {i} tells of Bob Jones in Paris." for i in range(60))
    settings = Settings(chunk=ChunkSettings(size=200, overlap=40))
    with loregraph.open(tmp_path / "long.db", settings=settings) as g:
        memory = g.memories.remember(text)
        assert g.stats().chunks > 8  # more than one read of chunks
        assert memory.text == text
        assert g.memories.all()[0].text == text


class _FailingOn:
    """An extractor that breaks on texts holding ``word`` and defers to ``inner`` otherwise."""

    name = "failing"

    def __init__(self, inner: Extractor, word: str) -> None:
        self.inner, self.word = inner, word

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        if self.word in document.text:
            raise RuntimeError("extraction broke")
        return await self.inner.extract(document, chunks)


async def test_a_memory_that_cannot_be_stored_is_reported(tmp_path: Path) -> None:
    plain = loregraph.AsyncGraph(SqliteStore(tmp_path / "f.db"))
    graph = loregraph.AsyncGraph(plain.store, extractor=_FailingOn(plain.extractor, "Broken"))
    try:
        with pytest.raises(LoregraphError, match=r"1 of 2 memories could not be stored"):
            await graph.memories.remember_many(
                [NewMemory(BOB), NewMemory("Broken memory about Acme.")]
            )
        assert [m.text for m in await graph.memories.all()] == [BOB]
    finally:
        await graph.close()
        await plain.close()

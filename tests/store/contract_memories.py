"""Store contract, through the engine: memories keep their time, tags, source and metadata,
are found by the entities they mention, and are forgotten exactly, on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph import AsyncGraph, NewMemory
from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import DocKind
from loregraph.retrieve.pipeline import Retriever
from loregraph.store.base import Store

from .scenarios import ContractBase


class MemoryContract(ContractBase):
    """Memories (documents of kind ``memory``) on the backend."""

    async def test_memories_round_trip_and_are_forgotten_exactly(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        at = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
        bob, alice = await graph.memories.remember_many(
            [
                NewMemory(
                    "Bob Jones moved to Paris.",
                    at=at,
                    source="chat",
                    tags=["people", "moves"],
                    metadata={"turn": 3, "nested": {"ok": True}},
                ),
                NewMemory("Alice Smith and Bob Jones live in Berlin.", tags=["people"]),
            ]
        )
        [listed] = await graph.memories.all(tags=["moves"])
        assert listed.to_dict() == bob.to_dict()
        assert listed.at == at and listed.source == "chat"
        assert listed.metadata == {"turn": 3, "nested": {"ok": True}}
        assert [m.id for m in await graph.memories.all(until=at)] == [bob.id]
        about = await graph.memories.all(about="Bob Jones")
        assert [m.id for m in about] == [bob.id, alice.id]
        assert [m.id for m in await graph.memories.all(about="Alice Smith")] == [alice.id]
        hits = await graph.search("Where did Bob Jones move to Paris?")
        assert hits and hits[0].id == bob.id
        report = await graph.memories.forget(bob.id)
        assert report.document_id == bob.id and report.entities_removed >= 1
        assert [m.id for m in await graph.memories.all()] == [alice.id]
        names = {e.name for e in await graph.explore.entities()}
        assert "Paris" not in names and {"Bob Jones", "Berlin"} <= names

    async def test_search_and_retrieval_keep_to_memories_or_documents(self, store: Store) -> None:
        embedder = HashingEmbedder(dim=64)
        graph = AsyncGraph(store, embedder=embedder)
        memory = await graph.memories.remember(
            "Bob Jones moved to Paris for the Halvorsen project."
        )
        await graph.ingest_text(
            "Bob Jones led the Halvorsen project in Paris. The Halvorsen project built a "
            "bridge over the Seine.",
            title="Halvorsen report",
        )
        scope = graph.settings.scope
        by_kind = {}
        for kind in (DocKind.MEMORY, DocKind.DOCUMENT):
            text_hits = await store.search_chunks_text(scope, "Halvorsen Paris", 10, kind=kind)
            vector = embedder.embed(["Halvorsen project Paris"])[0]
            vector_hits = await store.search_chunks_vector(scope, vector, 10, kind=kind)
            chunks = await store.get_chunks([h.id for h in text_hits + vector_hits])
            by_kind[kind] = {c.document_id for c in chunks}
            assert text_hits and vector_hits
        assert by_kind[DocKind.MEMORY] == {memory.id}
        assert by_kind[DocKind.DOCUMENT] and memory.id not in by_kind[DocKind.DOCUMENT]
        both = await store.search_chunks_text(scope, "Halvorsen Paris", 10)
        assert {c.document_id for c in await store.get_chunks([h.id for h in both])} == (
            by_kind[DocKind.MEMORY] | by_kind[DocKind.DOCUMENT]
        )
        later = await graph.memories.remember("Alice Smith joined the Halvorsen project.")
        vector = embedder.embed(["Alice Smith Halvorsen project"])[0]
        for kind, expected in ((DocKind.MEMORY, True), (DocKind.DOCUMENT, False)):
            hits = await store.search_chunks_vector(scope, vector, 10, kind=kind)
            found = {c.document_id for c in await store.get_chunks([h.id for h in hits])}
            assert (later.id in found) is expected
        memories = {memory.id, later.id}
        hits = await graph.memories.search("Who joined the Halvorsen project?")
        assert hits and {h.memory.id for h in hits} <= memories
        assert hits[0].memory.id == later.id
        assert "Alice Smith" in {e.name for e in hits[0].entities}
        retriever = Retriever(store, embedder)
        for kind in (DocKind.MEMORY, DocKind.DOCUMENT):
            result = await retriever.retrieve("Where did Bob Jones move?", scope, kind=kind)
            wanted = kind == DocKind.MEMORY
            assert result.passages
            assert {p.document_id in memories for p in result.passages} == {wanted}
            for ranked in result.relations:
                evidence = await store.get_chunks([e.chunk_id for e in ranked.relation.evidence])
                assert any((c.document_id in memories) == wanted for c in evidence)

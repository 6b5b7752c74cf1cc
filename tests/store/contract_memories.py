"""Store contract, through the engine: memories keep their time, tags, source and metadata,
are found by the entities they mention, and are forgotten exactly, on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph import AsyncGraph, NewMemory
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.base import Store

from .scenarios import ContractBase


class MemoryContract(ContractBase):
    """Memories (documents of kind ``memory``) on the backend."""

    async def test_memories_round_trip_and_are_forgotten_exactly(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        at = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
        bob, alice = await graph.remember_many(
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
        [listed] = await graph.memories(tags=["moves"])
        assert listed.to_dict() == bob.to_dict()
        assert listed.at == at and listed.source == "chat"
        assert listed.metadata == {"turn": 3, "nested": {"ok": True}}
        assert [m.id for m in await graph.memories(until=at)] == [bob.id]
        about = await graph.memories_about("Bob Jones")
        assert [m.id for m in about] == [bob.id, alice.id]
        assert [m.id for m in await graph.memories_about("Alice Smith")] == [alice.id]
        hits = await graph.search("Where did Bob Jones move to Paris?")
        assert hits and hits[0].id == bob.id
        report = await graph.forget(bob.id)
        assert report.document_id == bob.id and report.entities_removed >= 1
        assert [m.id for m in await graph.memories()] == [alice.id]
        names = {e.name for e in await graph.entities()}
        assert "Paris" not in names and {"Bob Jones", "Berlin"} <= names

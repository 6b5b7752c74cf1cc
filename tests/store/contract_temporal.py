"""Store contract, through the engine: a fact that a later memory contradicts stops holding
at that memory's time, and queries see what is true now or at ``as_of``, on every backend."""

from __future__ import annotations

from datetime import UTC, datetime

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.base import Store

from .scenarios import ContractBase

JAN = datetime(2026, 1, 15, tzinfo=UTC)
MID = datetime(2026, 1, 31, tzinfo=UTC)
FEB = datetime(2026, 2, 10, tzinfo=UTC)


class TemporalContract(ContractBase):
    """Relations with world time (``valid_at``/``invalid_at``) on the backend."""

    async def test_a_new_dependency_ends_the_old_one(self, store: Store) -> None:
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
        await graph.remember("The API server depends on Express.", at=JAN)
        await graph.remember("The API server now depends on Hono instead of Express.", at=FEB)

        async def targets(as_of: datetime | None) -> dict[str, tuple[object, object]]:
            found = await graph.relations("API server", type="DEPENDS_ON", as_of=as_of)
            return {
                link.to_dict()["other"]: (link.relation.valid_at, link.relation.invalid_at)
                for link in found.links
            }

        assert await targets(None) == {"Hono": (FEB, None)}
        assert await targets(MID) == {"Express": (JAN, FEB)}
        hops = await graph.neighbors("API server", type="DEPENDS_ON", as_of=MID)
        assert {e["name"] for e in hops.to_dict()["entities"]} == {"API server", "Express"}

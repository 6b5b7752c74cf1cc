"""Breadth-first expansion from seed entities, written once above the store's reads.

:meth:`Store.expand <loregraph.store.base.Store.expand>` (what ``neighbors`` and the
explorer show) follows the rule of retrieval's in-memory expansion
(:mod:`loregraph.retrieve.expander`): from the seeds (hop 0, in the order given), each hop
takes every frontier entity in order and its ``per_node`` neighbours with the largest summed
weight of the relations between the two that pass the filter (either direction, self-loops
ignored, a weight counting at least ``1e-9``), ties broken by entity id; a neighbour reached
already is skipped, and expansion stops at ``max_entities`` entities. The relations returned
are those among the entities reached that pass the filter, heaviest first.

Each hop is one :meth:`~loregraph.store.hops.Hops.relations_touching` call for the whole
frontier, which PostgreSQL and the Cypher stores answer in one query; a store seen through a
principal's eyes (:mod:`loregraph.store.visible`) answers it from the relations that
principal may read, so the walk never passes through what only unreadable documents said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol

from loregraph.models import Entity, Relation, Subgraph
from loregraph.store.queries import Expansion

MIN_WEIGHT = 1e-9
"""The least a relation counts for when neighbours are ranked (a weight of 0 still links)."""


class GraphReads(Protocol):
    """The reads an expansion needs (every :class:`~loregraph.store.base.Store` has them)."""

    async def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Entities by id (missing ones left out)."""
        ...

    async def get_relations(self, relation_ids: Sequence[str]) -> list[Relation]:
        """Relations by id (missing ones left out)."""
        ...

    async def relations_touching(
        self,
        entity_ids: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        reaching: Sequence[str] | None = None,
    ) -> list[Relation]:
        """The relations with either end among ``entity_ids`` (one hop)."""
        ...


def neighbour_weights(relations: Iterable[Relation]) -> dict[str, dict[str, float]]:
    """For each entity, its neighbours and the summed weight of the relations to each."""
    weights: dict[str, dict[str, float]] = {}
    for r in relations:
        if r.source_id == r.target_id:
            continue
        weight = max(r.weight, MIN_WEIGHT)
        for a, b in ((r.source_id, r.target_id), (r.target_id, r.source_id)):
            near = weights.setdefault(a, {})
            near[b] = near.get(b, 0.0) + weight
    return weights


async def expand(store: GraphReads, ask: Expansion) -> Subgraph:
    """:meth:`Store.expand`, through ``store``'s reads (see the module notes)."""
    found = {e.id: e for e in await store.get_entities(list(dict.fromkeys(ask.seeds)))}
    hops: dict[str, int] = {}
    for seed in ask.seeds:
        known = found.get(seed)
        if known is not None and known.scope == ask.scope and len(hops) < ask.max_entities:
            hops.setdefault(seed, 0)
    frontier = list(hops)
    for hop in range(1, ask.depth + 1):
        if not frontier or len(hops) >= ask.max_entities or ask.per_node <= 0:
            break
        touching = await store.relations_touching(
            frontier, types=ask.filter.types, at=ask.filter.at
        )
        weights = neighbour_weights(r for r in touching if ask.filter.admits(r))
        next_frontier: list[str] = []
        for node in frontier:
            ranked = sorted(weights.get(node, {}).items(), key=lambda kv: (-kv[1], kv[0]))
            for other, _ in ranked[: ask.per_node]:
                if other in hops:
                    continue
                if len(hops) >= ask.max_entities:
                    break
                hops[other] = hop
                next_frontier.append(other)
        frontier = next_frontier
    if not hops:
        return Subgraph()
    reached = list(hops)
    among = await store.relations_touching(
        reached, types=ask.filter.types, at=ask.filter.at, reaching=reached
    )
    relations = await store.get_relations([r.id for r in among if ask.filter.admits(r)])
    relations.sort(key=lambda r: (-r.weight, r.id))
    entities = {e.id: e for e in await store.get_entities(reached)}
    return Subgraph(
        entities={i: entities[i] for i in reached if i in entities},
        relations=relations,
        hops={i: h for i, h in hops.items() if i in entities},
    )

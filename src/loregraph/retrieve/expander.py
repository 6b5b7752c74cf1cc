"""K-hop expansion from the seeds: in memory, or in the store's graph database.

**Who expands.** The store declares the capability: :attr:`Store.native_graph
<loregraph.store.base.Store.native_graph>` is ``False`` by default and ``True`` for a store
that is, or mirrors into, a graph database (the Cypher store; SQLite or PostgreSQL with
``--mirror falkordb://…``). :func:`expander_for` then returns a :class:`StoreExpander`, which
asks :meth:`Store.expand` (one Cypher statement, :mod:`loregraph.store.cypher.expand`);
otherwise an :class:`IndexExpander` walks the scope's in-memory
:class:`~loregraph.retrieve.graphindex.GraphIndex`. Retrieval never asks which backend it
runs on, and nothing has to be wired by the caller.

**One rule, two implementations, the same answer.** From the seeds (hop 0, in order), each
hop takes every frontier node in order and follows its ``per_node`` neighbours with the
largest summed weight of live relations between the two (either direction, self-loops
ignored, a weight counting at least ``1e-9``), ties broken by entity id; a neighbour reached
already is skipped; expansion stops at ``max_entities`` entities. An entity's *link* is the
summed weight to its heaviest neighbour one hop closer to the seeds (what
:func:`~loregraph.retrieve.expand.rank_entities` scores it by). Relation weights are evidence
counts, so both sides add the same integers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from loregraph.models import Relation
from loregraph.retrieve.graphindex import MIN_EDGE_WEIGHT, GraphIndex
from loregraph.store.base import Store

ExpandedIn = Literal["memory", "graph database"]


@dataclass(slots=True)
class Expansion:
    """What a k-hop expansion reached: entity id → hop, and each non-seed's link weight."""

    hops: dict[str, int]
    links: dict[str, float]
    expanded_in: ExpandedIn


class Expander(Protocol):
    """Walks a scope's graph from seed entities (see the module docstring for the rule)."""

    async def expand(
        self, seed_ids: Sequence[str], *, depth: int, per_node: int, max_entities: int
    ) -> Expansion:
        """The entities reached from ``seed_ids`` and their link weights."""
        ...


@dataclass(slots=True)
class IndexExpander:
    """Expansion over the scope's in-memory graph index."""

    index: GraphIndex

    async def expand(
        self, seed_ids: Sequence[str], *, depth: int, per_node: int, max_entities: int
    ) -> Expansion:
        """Breadth-first walk of the index's adjacency (array slices, no store call)."""
        hops = self.index.bfs(seed_ids, depth=depth, per_node=per_node, max_entities=max_entities)
        return Expansion(hops, self.index.link_weights(hops), "memory")


@dataclass(slots=True)
class StoreExpander:
    """Expansion asked of the store (:meth:`Store.expand`, in its graph database)."""

    store: Store
    scope: str

    async def expand(
        self, seed_ids: Sequence[str], *, depth: int, per_node: int, max_entities: int
    ) -> Expansion:
        """One :meth:`Store.expand` call; links are summed from the relations it returns.

        Seeds the graph does not hold (e.g. written to a mirror's primary but not yet to the
        graph) stay at hop 0 and count towards ``max_entities``, as in the in-memory walk:
        the graph's walk does not depend on the cap except where it stops, so cutting it at
        the cap after the seeds gives the same entities.
        """
        subgraph = await self.store.expand(
            self.scope, seed_ids, depth=depth, per_node=per_node, max_entities=max_entities
        )
        hops: dict[str, int] = {}
        for seed in seed_ids:
            if len(hops) < max_entities:
                hops.setdefault(seed, 0)
        for entity_id, hop in subgraph.hops.items():
            if len(hops) >= max_entities:
                break
            hops.setdefault(entity_id, hop)
        return Expansion(hops, link_weights(subgraph.relations, hops), "graph database")


def pair_weights(relations: Iterable[Relation]) -> dict[frozenset[str], float]:
    """The summed weight of the live relations between each pair of distinct entities."""
    sums: dict[frozenset[str], float] = {}
    for rel in relations:
        if rel.source_id == rel.target_id or rel.expired_at is not None:
            continue
        pair = frozenset((rel.source_id, rel.target_id))
        sums[pair] = sums.get(pair, 0.0) + max(rel.weight, MIN_EDGE_WEIGHT)
    return sums


def link_weights(relations: Iterable[Relation], hops: Mapping[str, int]) -> dict[str, float]:
    """For each reached non-seed entity, its heaviest summed weight to one a hop closer."""
    links: dict[str, float] = {}
    for pair, weight in pair_weights(relations).items():
        a, b = tuple(pair)
        if a not in hops or b not in hops or hops[a] == hops[b]:
            continue
        far = a if hops[a] > hops[b] else b
        links[far] = max(links.get(far, 0.0), weight)
    return links


def expander_for(store: Store, scope: str, index: GraphIndex | None) -> Expander | None:
    """The graph database when the store has one, else the in-memory index (if built)."""
    if store.native_graph:
        return StoreExpander(store, scope)
    return IndexExpander(index) if index is not None else None

"""K-hop expansion from the seeds over the scope's in-memory graph index.

Every backend expands the same way: the scope's
:class:`~loregraph.retrieve.graph.graphindex.GraphIndex` is built once per process from the
store and rebuilt when the scope's graph version moves
(:mod:`loregraph.retrieve.graph.cache`), and :class:`IndexExpander` walks it with array
slices, no store call. A graph database that is the primary store (FalkorDB, Neo4j) is read
the same way; walking in memory was measured faster than asking the database at every size
tried (BENCHMARKS.md, backends).

**The rule.** From the seeds (hop 0, in order), each hop takes every frontier node in order
and follows its ``per_node`` neighbours with the largest summed weight of live relations
between the two (either direction, self-loops ignored, a weight counting at least ``1e-9``),
ties broken by entity id; a neighbour reached already is skipped; expansion stops at
``max_entities`` entities. An entity's *link* is the summed weight to its heaviest neighbour
one hop closer to the seeds (what :func:`~loregraph.retrieve.graph.expand.rank_entities` scores it
by).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from loregraph.retrieve.graph.graphindex import GraphIndex


@dataclass(slots=True)
class Expansion:
    """What a k-hop expansion reached: entity id → hop, and each non-seed's link weight."""

    hops: dict[str, int]
    links: dict[str, float]


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
        return Expansion(hops, self.index.link_weights(hops))


def expander_for(index: GraphIndex | None) -> Expander | None:
    """The expander over the scope's in-memory index (none when the index was not built)."""
    return IndexExpander(index) if index is not None else None

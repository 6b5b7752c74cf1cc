"""Shortest paths between two entities, over the store contract.

A bidirectional breadth-first search: the two ends grow a hop at a time, always the side
whose frontier is smaller, and each hop is one :meth:`Store.relations_touching
<loregraph.store.base.Store.relations_touching>` call for the whole frontier, which a graph
database (or PostgreSQL) answers in one query. The last hop the length limit allows asks
only for the relations that reach the other side, which on a large graph is most of the
saving: that hop has the largest frontier. The search stops at the first hop where the
sides meet: the entities both reached, with the least sum of distances, lie on the shortest
paths, which are then enumerated from each side's back-links (every relation that reached
an entity from one hop closer). The relations of the paths found are read back with their
evidence.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from loregraph.engine.patterns import check_hops
from loregraph.errors import InputError
from loregraph.models import Entity, Relation
from loregraph.settings import check_limit
from loregraph.store.base import Store

ENUMERATED = 20
"""Paths of the shortest length looked at per path returned (they are then ranked)."""


@dataclass(slots=True)
class GraphPath:
    """Entities joined one after the other by relations (``relations[i]`` joins
    ``entities[i]`` and ``entities[i + 1]``, pointing either way)."""

    entities: list[Entity]
    relations: list[Relation]

    @property
    def length(self) -> int:
        """The number of relations."""
        return len(self.relations)

    def forward(self, step: int) -> bool:
        """Whether the relation of ``step`` points along the path."""
        return self.relations[step].source_id == self.entities[step].id

    def text(self) -> str:
        """The path in one line: ``A -[TYPE]-> B <-[TYPE]- C``."""
        parts = [self.entities[0].name]
        for step, relation in enumerate(self.relations):
            arrow = f"-[{relation.type}]->" if self.forward(step) else f"<-[{relation.type}]-"
            parts += [arrow, self.entities[step + 1].name]
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The path as JSON: its length, entity names and steps with their evidence."""
        steps = []
        for step, relation in enumerate(self.relations):
            ends = self.entities[step], self.entities[step + 1]
            source, target = ends if self.forward(step) else ends[::-1]
            steps.append(
                {
                    "source": source.name,
                    "type": relation.type,
                    "target": target.name,
                    "confidence": relation.confidence,
                    "weight": relation.weight,
                    "evidence": evidence_sentence(relation),
                }
            )
        return {
            "length": self.length,
            "entities": [e.name for e in self.entities],
            "steps": steps,
        }


def evidence_sentence(relation: Relation) -> str:
    """The first sentence supporting a relation (its fact when it has no evidence text)."""
    for piece in relation.evidence:
        if piece.sentence.strip():
            return " ".join(piece.sentence.split())
    return relation.fact


@dataclass(frozen=True, slots=True)
class _Follow:
    """Which relations a path may take: of these types (any when ``None``), valid at this
    world time (any when ``None``)."""

    types: tuple[str, ...] | None
    at: datetime | None


@dataclass(slots=True)
class _Side:
    """One end of the search: each reached entity's distance and the relations that reached
    it from one hop closer to this end."""

    start: str
    distance: dict[str, int] = field(default_factory=dict)
    came_from: dict[str, list[tuple[str, Relation]]] = field(default_factory=dict)
    frontier: list[str] = field(default_factory=list)
    depth: int = 0

    def __post_init__(self) -> None:
        self.distance[self.start] = 0
        self.came_from[self.start] = []
        self.frontier = [self.start]

    async def grow(
        self, store: Store, follow: _Follow, reaching: Sequence[str] | None = None
    ) -> None:
        """Reach the entities one hop beyond the frontier (one store call for all of it);
        with ``reaching``, only those among it (the last hop, where only the entities the
        other side reached matter)."""
        frontier = set(self.frontier)
        reached: dict[str, list[tuple[str, Relation]]] = {}
        relations = await store.relations_touching(
            self.frontier, types=follow.types, at=follow.at, reaching=reaching
        )
        for relation in relations:
            ends = relation.source_id, relation.target_id
            for near, far in (ends, ends[::-1]):
                if near in frontier and far != near and far not in self.distance:
                    reached.setdefault(far, []).append((near, relation))
        self.depth += 1
        for node, ways in reached.items():
            self.distance[node] = self.depth
            self.came_from[node] = ways
        self.frontier = list(reached)

    def walks(self, node: str) -> Iterator[tuple[list[str], list[Relation]]]:
        """Every shortest walk from this side's start to ``node``: (entity ids, relations)."""
        if node == self.start:
            yield [node], []
            return
        for previous, relation in self.came_from.get(node, []):
            for nodes, relations in self.walks(previous):
                yield [*nodes, node], [*relations, relation]


async def shortest_paths(
    store: Store,
    scope: str,
    start: Entity,
    end: Entity,
    *,
    max_hops: int = 3,
    limit: int = 5,
    types: Sequence[str] | None = None,
    at: datetime | None = None,
) -> list[GraphPath]:
    """The shortest paths from ``start`` to ``end`` of at most ``max_hops`` live relations
    (of ``types`` when given; valid at world time ``at`` when given), the heaviest first;
    ``[]`` when there is none.

    Raises :class:`~loregraph.errors.InputError` when both name the same entity.
    """
    check_hops(max_hops, "max_hops")
    check_limit(limit)
    if start.id == end.id:
        raise InputError(f"{start.name!r} and {end.name!r} are the same entity: no path to find")
    follow = _Follow(None if types is None else tuple(types), at)
    ahead, behind = _Side(start.id), _Side(end.id)
    middle = await _search(store, ahead, behind, max_hops, follow)
    return await _paths(store, ahead, behind, middle, limit) if middle else []


def _middle(ahead: _Side, behind: _Side) -> list[str]:
    """The entities both sides reached whose distances add up to the least sum."""
    common = [n for n in ahead.distance if n in behind.distance]
    if not common:
        return []
    best = min(ahead.distance[n] + behind.distance[n] for n in common)
    return [n for n in common if ahead.distance[n] + behind.distance[n] == best]


async def _search(
    store: Store, ahead: _Side, behind: _Side, max_hops: int, follow: _Follow
) -> list[str]:
    """Grow the sides a hop at a time until they meet (the middle entities) or
    ``max_hops`` is spent (``[]``)."""
    while ahead.depth + behind.depth < max_hops and ahead.frontier and behind.frontier:
        side, other = (
            (ahead, behind) if len(ahead.frontier) <= len(behind.frontier) else (behind, ahead)
        )
        last = ahead.depth + behind.depth + 1 == max_hops
        await side.grow(store, follow, list(other.distance) if last else None)
        middle = _middle(ahead, behind)
        if middle:
            return middle
    return []


async def _paths(
    store: Store, ahead: _Side, behind: _Side, middle: list[str], limit: int
) -> list[GraphPath]:
    """The paths through the ``middle`` entities, heaviest first, at most ``limit``."""
    cap = limit * ENUMERATED
    walks: dict[tuple[str, ...], tuple[list[str], list[Relation]]] = {}
    for node in middle:
        halves = itertools.product(
            list(itertools.islice(ahead.walks(node), cap)),
            list(itertools.islice(behind.walks(node), cap)),
        )
        for (nodes_a, rels_a), (nodes_b, rels_b) in itertools.islice(halves, cap - len(walks)):
            relations = rels_a + rels_b[::-1]  # a path through several middles is one path
            walks[tuple(r.id for r in relations)] = (nodes_a + nodes_b[::-1][1:], relations)
    ids = sorted({n for nodes, _ in walks.values() for n in nodes})
    known = {e.id: e for e in await store.get_entities(ids)}
    relation_ids = sorted({r.id for _, relations in walks.values() for r in relations})
    read = {r.id: r for r in await store.get_relations(relation_ids)}
    paths = [
        GraphPath([known[n] for n in nodes], [read.get(r.id, r) for r in relations])
        for nodes, relations in walks.values()
        if all(n in known for n in nodes)
    ]
    paths.sort(key=lambda p: (-sum(r.weight for r in p.relations), p.text()))
    return _one_per_route(paths)[:limit]


def _one_per_route(paths: list[GraphPath]) -> list[GraphPath]:
    """``paths`` (heaviest first) with one path per route: two relations of one type
    between the same two entities (statements of one fact by several documents) make the
    same route, which is shown once, by its heaviest relations."""
    seen: set[tuple[object, ...]] = set()
    kept = []
    for path in paths:
        route = (
            tuple(e.id for e in path.entities),
            tuple((r.type, path.forward(step)) for step, r in enumerate(path.relations)),
        )
        if route not in seen:
            seen.add(route)
            kept.append(path)
    return kept

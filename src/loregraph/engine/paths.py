"""Shortest paths between two entities, over the store contract.

A breadth-first search from both ends at once, a whole hop at a time, always growing the
side with the smaller frontier; each step asks :meth:`Store.entity_relations
<loregraph.store.base.Store.entity_relations>` for a frontier entity's live relations (either
direction), so the search works on every backend and each step comes with its evidence.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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

    async def grow(self, store: Store, types: Sequence[str] | None) -> None:
        """Reach the entities one hop beyond the frontier."""
        reached: dict[str, list[tuple[str, Relation]]] = {}
        for node in self.frontier:
            for relation in await store.entity_relations(node, types=types):
                other = relation.target_id if relation.source_id == node else relation.source_id
                if other != node and other not in self.distance:
                    reached.setdefault(other, []).append((node, relation))
        self.depth += 1
        for node, ways in reached.items():
            self.distance[node] = self.depth
            self.came_from[node] = ways
        self.frontier = list(reached)

    def walks(self, node: str) -> Iterator[tuple[list[str], list[Relation]]]:
        """Every shortest walk from this side's start to ``node``: (entity ids, relations)."""
        if not self.came_from[node]:
            yield [node], []
            return
        for previous, relation in self.came_from[node]:
            for nodes, relations in self.walks(previous):
                yield [*nodes, node], [*relations, relation]


async def shortest_paths(
    store: Store,
    start: Entity,
    end: Entity,
    *,
    max_hops: int = 3,
    limit: int = 5,
    types: Sequence[str] | None = None,
) -> list[GraphPath]:
    """The shortest paths from ``start`` to ``end`` of at most ``max_hops`` live relations
    (of ``types`` when given), the heaviest first; ``[]`` when there is none.

    Raises :class:`~loregraph.errors.InputError` when both name the same entity.
    """
    check_hops(max_hops, "max_hops")
    check_limit(limit)
    if start.id == end.id:
        raise InputError(f"{start.name!r} and {end.name!r} are the same entity: no path to find")
    ahead, behind = _Side(start.id), _Side(end.id)
    while ahead.depth + behind.depth < max_hops and ahead.frontier and behind.frontier:
        side = ahead if len(ahead.frontier) <= len(behind.frontier) else behind
        await side.grow(store, types)
        common = [n for n in ahead.distance if n in behind.distance]
        if common:
            best = min(ahead.distance[n] + behind.distance[n] for n in common)
            middle = [n for n in common if ahead.distance[n] + behind.distance[n] == best]
            return await _paths(store, ahead, behind, middle, limit)
    return []


async def _paths(
    store: Store, ahead: _Side, behind: _Side, middle: list[str], limit: int
) -> list[GraphPath]:
    """The paths through the ``middle`` entities, heaviest first, at most ``limit``."""
    cap = limit * ENUMERATED
    walks: list[tuple[list[str], list[Relation]]] = []
    for node in middle:
        halves = itertools.product(
            list(itertools.islice(ahead.walks(node), cap)),
            list(itertools.islice(behind.walks(node), cap)),
        )
        for (nodes_a, rels_a), (nodes_b, rels_b) in itertools.islice(halves, cap - len(walks)):
            walks.append((nodes_a + nodes_b[::-1][1:], rels_a + rels_b[::-1]))
    ids = sorted({n for nodes, _ in walks for n in nodes})
    known = {e.id: e for e in await store.get_entities(ids)}
    paths = [
        GraphPath([known[n] for n in nodes], relations)
        for nodes, relations in walks
        if all(n in known for n in nodes)
    ]
    paths.sort(key=lambda p: (-sum(r.weight for r in p.relations), p.text()))
    return paths[:limit]

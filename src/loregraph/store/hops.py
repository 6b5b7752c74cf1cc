"""One hop from many entities at once, and the breadth-first expansion written over it (a
base of :class:`~loregraph.store.base.Store`).

A path search grows a frontier of entities a hop at a time; every backend answers a hop
for the whole frontier in one query (:meth:`Hops._relations_touching`; the default asks
for each entity's relations).

``Store.expand`` (what ``neighbors`` and the explorer show) follows the rule of
retrieval's in-memory expansion (:mod:`loregraph.retrieve.graph.expander`): from the seeds (hop
0, in the order given), each hop takes every frontier entity in order and its ``per_node``
neighbours with the largest summed weight of the relations between the two that pass the
filter (either direction, self-loops ignored, a weight counting at least ``1e-9``), ties
broken by entity id; a neighbour reached already is skipped, and expansion stops at
``max_entities`` entities. The relations returned are those among the entities reached
that pass the filter, heaviest first. A store seen through a principal's eyes
(:mod:`loregraph.store.visible`) answers each hop from the relations that principal may
read, so the walk never passes through what only unreadable documents said.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from loregraph.models import Entity, Relation, Subgraph
from loregraph.store.queries import Expansion, RelationFilter, RelationQuery


@dataclass(frozen=True, slots=True)
class Hop:
    """:meth:`Hops.relations_touching`'s checked arguments: the entities (each once), the
    relation filter and, for the last hop of a search, the entities to reach."""

    entity_ids: list[str]
    live: RelationFilter
    reaching: list[str] | None


class Hops:
    """The relations touching a set of entities, and the relation queries written over them.

    A backend implements :meth:`_relations_touching` (one query a hop) or
    :meth:`_entity_relations` (one query an entity), and may implement both; each default
    answers from the other.
    """

    if TYPE_CHECKING:

        async def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]: ...

        async def get_relations(self, relation_ids: Sequence[str]) -> list[Relation]: ...

    async def relations_touching(
        self,
        entity_ids: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        reaching: Sequence[str] | None = None,
    ) -> list[Relation]:
        """The relations with either end among ``entity_ids`` (filtered as
        :meth:`entity_relations`), each once: one hop of a search from many entities at
        once. With ``reaching``, only those whose other end is among ``reaching`` (the last
        hop of a search only needs the relations that meet the other side). Each has at
        least its id, ends, type and weight; a backend may leave out its fact, times and
        evidence (read them with ``get_relations``)."""
        far = None if reaching is None else list(reaching)
        hop = Hop(list(dict.fromkeys(entity_ids)), RelationFilter.of(types, at), far)
        return await self._relations_touching(hop)

    async def _relations_touching(self, hop: Hop) -> list[Relation]:
        """:meth:`relations_touching`; a backend answers it in one query where it can,
        this default asks for each entity's relations."""
        _one_of_them(self)
        found: dict[str, Relation] = {}
        for entity_id in hop.entity_ids:
            for relation in await self._entity_relations(
                RelationQuery(entity_id, "both", hop.live, None)
            ):
                found.setdefault(relation.id, relation)
        if hop.reaching is None:
            return list(found.values())
        return reaching_only(list(found.values()), hop.entity_ids, hop.reaching)

    async def _entity_relations(self, query: RelationQuery) -> list[Relation]:
        """``Store.entity_relations``: its checked arguments; this default takes the
        entity's hop and reads the relations it keeps, with their evidence."""
        _one_of_them(self)
        hop = await self._relations_touching(Hop([query.entity_id], query.filter, None))
        one = query.entity_id
        kept = [
            r
            for r in hop
            if (query.direction != "out" or r.source_id == one)
            and (query.direction != "in" or r.target_id == one)
        ]
        kept.sort(key=lambda r: (-r.weight, r.id))
        if query.limit is not None:
            kept = kept[: max(0, query.limit)]
        return await self.get_relations([r.id for r in kept])

    async def relations_among(self, entity_ids: Sequence[str]) -> list[Relation]:
        """Live relations whose two ends are both in ``entity_ids``, heaviest first (no
        evidence loaded); this default takes their hop that must reach them and reads the
        relations it finds."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        hop = await self._relations_touching(Hop(ids, RelationFilter(), ids))
        found = await self.get_relations([r.id for r in hop])
        for relation in found:
            relation.evidence = []
        return sorted(found, key=lambda r: (-r.weight, r.id))

    async def _walk(self, ask: Expansion) -> Subgraph:
        """``Store.expand``: breadth-first, one :meth:`relations_touching` call a hop (see
        the module notes)."""
        found = {e.id: e for e in await self.get_entities(list(dict.fromkeys(ask.seeds)))}
        hops: dict[str, int] = {}
        for seed in ask.seeds:
            known = found.get(seed)
            if known is not None and known.scope == ask.scope and len(hops) < ask.max_entities:
                hops.setdefault(seed, 0)
        frontier = list(hops)
        for hop in range(1, ask.depth + 1):
            if not frontier or len(hops) >= ask.max_entities or ask.per_node <= 0:
                break
            touching = await self.relations_touching(
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
        among = await self.relations_touching(
            reached, types=ask.filter.types, at=ask.filter.at, reaching=reached
        )
        relations = await self.get_relations([r.id for r in among if ask.filter.admits(r)])
        relations.sort(key=lambda r: (-r.weight, r.id))
        entities = {e.id: e for e in await self.get_entities(reached)}
        return Subgraph(
            entities={i: entities[i] for i in reached if i in entities},
            relations=relations,
            hops={i: h for i, h in hops.items() if i in entities},
        )


MIN_WEIGHT = 1e-9
"""The least a relation counts for when neighbours are ranked (a weight of 0 still links)."""


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


def reaching_only(
    relations: Sequence[Relation], entity_ids: Sequence[str], reaching: Sequence[str]
) -> list[Relation]:
    """The relations that join one of ``entity_ids`` to one of ``reaching``."""
    near, far = set(entity_ids), set(reaching)
    return [
        r
        for r in relations
        if (r.source_id in near and r.target_id in far)
        or (r.target_id in near and r.source_id in far)
    ]


def _one_of_them(store: Hops) -> None:
    """Refuse a store that implements neither hop query (each default asks the other)."""
    kind = type(store)
    if (
        kind._relations_touching is Hops._relations_touching
        and kind._entity_relations is Hops._entity_relations
    ):
        raise NotImplementedError(
            f"{kind.__name__} implements neither _relations_touching nor _entity_relations"
        )

"""Breadth-first expansion over only the relations a principal sees (a graph database's own
expansion would walk through relations only unreadable documents support)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loregraph import models
from loregraph.store.queries import Expansion
from loregraph.store.visible.derive import admits

if TYPE_CHECKING:
    from loregraph.store.base import Store


async def expand_visible(store: Store, ask: Expansion) -> models.Subgraph:
    """:meth:`Store.expand` through ``store``'s (filtered) reads, heaviest relations first."""
    seeds = [e for e in await store.get_entities(list(ask.seeds)) if e.scope == ask.scope]
    hops: dict[str, int] = {}
    for entity in seeds:
        if len(hops) < ask.max_entities:
            hops.setdefault(entity.id, 0)
    frontier = list(hops)
    for hop in range(1, ask.depth + 1):
        if not frontier or len(hops) >= ask.max_entities or ask.per_node <= 0:
            break
        touching = await store.relations_touching(
            frontier, types=ask.filter.types, at=ask.filter.at
        )
        followed = [r for r in touching if admits(ask.filter, r)]
        followed.sort(key=lambda r: (-r.weight, r.id))
        next_frontier: list[str] = []
        for node in frontier:
            mine = [r for r in followed if node in (r.source_id, r.target_id)][: ask.per_node]
            for relation in mine:
                other = relation.target_id if relation.source_id == node else relation.source_id
                if other in hops:
                    continue
                if len(hops) >= ask.max_entities:
                    break
                hops[other] = hop
                next_frontier.append(other)
        frontier = next_frontier
    entities = {e.id: e for e in await store.get_entities(list(hops))}
    relations = [r for r in await store.relations_among(list(hops)) if admits(ask.filter, r)]
    return models.Subgraph(
        entities={i: entities[i] for i in hops if i in entities},
        relations=relations,
        hops={i: h for i, h in hops.items() if i in entities},
    )

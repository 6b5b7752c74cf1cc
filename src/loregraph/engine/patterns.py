"""Graph query patterns over the store contract: an entity's relations, its neighbourhood.

Both run through :class:`~loregraph.store.base.Store` methods only, so they work on every
backend; the neighbourhood is one :meth:`Store.expand
<loregraph.store.base.Store.expand>`, which a graph database answers itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from loregraph.errors import InputError
from loregraph.models import Entity, Relation
from loregraph.settings import check_limit
from loregraph.store.base import Store
from loregraph.store.queries import DIRECTIONS

Direction = Literal["both", "in", "out"]

MAX_HOPS = 6
"""The largest hop count a neighbourhood or path query accepts."""


def check_hops(hops: int, what: str = "hops") -> None:
    """Raise :class:`~loregraph.errors.InputError` unless ``1 <= hops <=`` :data:`MAX_HOPS`."""
    if not 1 <= hops <= MAX_HOPS:
        raise InputError(f"{what} must be between 1 and {MAX_HOPS}, got {hops}")


@dataclass(slots=True)
class EntityLink:
    """One relation of an entity, seen from that entity: which way it points and the other
    end."""

    relation: Relation
    direction: Literal["out", "in"]
    other: Entity | None

    @property
    def other_name(self) -> str:
        """The other end's name (its id when the store no longer holds it)."""
        if self.other is not None:
            return self.other.name
        return self.relation.target_id if self.direction == "out" else self.relation.source_id

    def to_dict(self) -> dict[str, Any]:
        """The link as JSON: direction, type, the other end, confidence, weight and evidence."""
        r = self.relation
        return {
            "direction": self.direction,
            "type": r.type,
            "other": self.other_name,
            "other_type": self.other.type if self.other is not None else None,
            "confidence": r.confidence,
            "weight": r.weight,
            "fact": r.fact,
            "evidence": [piece.sentence for piece in r.evidence],
        }


@dataclass(slots=True)
class EntityRelations:
    """An entity's relations, outgoing and incoming, heaviest first."""

    entity: Entity
    links: list[EntityLink] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The entity's name, type and id with its links."""
        e = self.entity
        return {
            "entity": e.name,
            "type": e.type,
            "id": e.id,
            "relations": [link.to_dict() for link in self.links],
        }


async def relations_of(
    store: Store,
    entity: Entity,
    *,
    direction: Direction = "both",
    types: Sequence[str] | None = None,
    limit: int | None = None,
    at: datetime | None = None,
) -> EntityRelations:
    """``entity``'s live relations in ``direction`` (of ``types`` when given; valid at world
    time ``at`` when given), with evidence.

    A relation from the entity to itself is listed once, as outgoing.
    """
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
    check_limit(limit)
    relations = await store.entity_relations(
        entity.id, direction=direction, types=types, at=at, limit=limit
    )
    others = {r.target_id if r.source_id == entity.id else r.source_id for r in relations}
    known = {e.id: e for e in await store.get_entities(sorted(others))}
    links = [
        EntityLink(r, "out", known.get(r.target_id))
        if r.source_id == entity.id
        else EntityLink(r, "in", known.get(r.source_id))
        for r in relations
    ]
    return EntityRelations(entity, links)


@dataclass(slots=True)
class Neighbourhood:
    """The entities within some hops of a centre, each with its hop distance, and the
    relations joining them (without evidence)."""

    centre: Entity
    hops: int
    entities: dict[str, Entity] = field(default_factory=dict)
    distance: dict[str, int] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)

    def ordered(self) -> list[Entity]:
        """The entities nearest first (the centre first), then by name."""
        return sorted(
            self.entities.values(), key=lambda e: (self.distance.get(e.id, 0), e.name, e.id)
        )

    def names(self) -> dict[str, str]:
        """Entity id → name, for every entity of the neighbourhood."""
        return {entity_id: e.name for entity_id, e in self.entities.items()}

    def to_dict(self) -> dict[str, Any]:
        """The neighbourhood as JSON: centre, hops, entities with distance, relations by
        name."""
        names = self.names()
        return {
            "centre": self.centre.name,
            "hops": self.hops,
            "entities": [
                {"name": e.name, "type": e.type, "id": e.id, "distance": self.distance[e.id]}
                for e in self.ordered()
            ],
            "relations": [
                {
                    "source": names.get(r.source_id, r.source_id),
                    "type": r.type,
                    "target": names.get(r.target_id, r.target_id),
                    "weight": r.weight,
                    "confidence": r.confidence,
                    "fact": r.fact,
                }
                for r in self.relations
            ],
        }


async def neighbourhood(
    store: Store,
    scope: str,
    centre: Entity,
    *,
    hops: int = 1,
    limit: int = 100,
    types: Sequence[str] | None = None,
    at: datetime | None = None,
) -> Neighbourhood:
    """The entities within ``hops`` of ``centre`` (at most ``limit``, the heaviest relations
    followed first) and the live relations among them (of ``types`` when given; valid at
    world time ``at`` when given)."""
    check_hops(hops)
    check_limit(limit)
    sub = await store.expand(
        scope, [centre.id], depth=hops, per_node=limit, max_entities=limit, types=types, at=at
    )
    entities = dict(sub.entities)
    entities.setdefault(centre.id, centre)
    distance = {entity_id: sub.hops.get(entity_id, 0) for entity_id in entities}
    return Neighbourhood(centre, hops, entities, distance, list(sub.relations))

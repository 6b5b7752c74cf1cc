"""What depends on an entity, transitively: the callers of a function and theirs, the
files that import a module and the modules those files define, the subclasses of a class,
the projects that depend on a library, the files configured by a setting — what a change
to it may break.

Each step follows, against their direction, the relations that say "this one needs that
one": ``CALLS``, ``IMPORTS``, ``INHERITS``, ``DEPENDS_ON`` and ``CONFIGURED_BY``. A file
reached stands for the module it ``DEFINES`` too, so that what imports that module is
reached next. Each dependent is listed once, at its shortest distance, with the relation
that reached it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import Entity
from loregraph.serial import Record
from loregraph.settings import check_limit
from loregraph.store.base import Store

DEPENDENCY_TYPES = ("CALLS", "IMPORTS", "INHERITS", "DEPENDS_ON", "CONFIGURED_BY")
"""The relation types whose source needs their target."""
MAX_IMPACT_HOPS = 10


@dataclass(slots=True)
class Dependent(Record):
    """An entity that depends on the one asked about, ``distance`` relations away: it
    ``via`` (a relation type) ``on`` (the entity of the step before)."""

    name: str
    type: str
    distance: int
    via: str
    on: str
    confidence: float
    evidence: str = ""


@dataclass(slots=True)
class Impact(Record):
    """The entities that depend on ``entity``, nearest first."""

    entity: str
    type: str
    hops: int
    dependents: list[Dependent] = field(default_factory=list)


async def impact_of(
    store: Store,
    centre: Entity,
    *,
    hops: int = 3,
    limit: int = 100,
    at: datetime | None = None,
) -> Impact:
    """The dependents of ``centre`` within ``hops`` steps (at most ``limit``), following
    relations valid at world time ``at`` when given."""
    if not 1 <= hops <= MAX_IMPACT_HOPS:
        raise ValueError(f"hops must be between 1 and {MAX_IMPACT_HOPS}, got {hops}")
    check_limit(limit)
    found = Impact(centre.name, centre.type, hops)
    seen = {centre.id}
    frontier = [centre]
    for distance in range(1, hops + 1):
        reached: list[Entity] = []
        for entity in frontier:
            relations = await store.entity_relations(
                entity.id, direction="in", types=list(DEPENDENCY_TYPES), at=at
            )
            new = [r for r in relations if r.source_id not in seen]
            sources = {e.id: e for e in await store.get_entities([r.source_id for r in new])}
            for relation in new:
                source = sources.get(relation.source_id)
                if source is None or source.id in seen:
                    continue
                seen.add(source.id)
                reached.append(source)
                sentence = relation.evidence[0].sentence if relation.evidence else ""
                found.dependents.append(
                    Dependent(
                        source.name,
                        source.type,
                        distance,
                        relation.type,
                        entity.name,
                        relation.confidence,
                        sentence,
                    )
                )
                if len(found.dependents) >= limit:
                    return found
        frontier = reached + await _defined(store, reached, seen, at)
        if not frontier:
            break
    return found


async def _defined(
    store: Store, reached: list[Entity], seen: set[str], at: datetime | None
) -> list[Entity]:
    """The modules the files among ``reached`` define (each file stands for its module)."""
    modules: list[Entity] = []
    for entity in reached:
        if entity.type != "File":
            continue
        defines = await store.entity_relations(entity.id, direction="out", types=["DEFINES"], at=at)
        fresh = [r.target_id for r in defines if r.target_id not in seen]
        seen.update(fresh)
        modules.extend(await store.get_entities(fresh))
    return modules

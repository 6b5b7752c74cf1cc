"""Planning a bundle's entity writes: which stored entity each bundle entity becomes.

Entities are upserted by id. A bundle entity whose id is new but whose name key already
names an entity of the scope (in the store, or earlier in the same bundle) is mapped onto
that entity instead of violating ``UNIQUE(scope, name_key)``; every mention, relation end
and merge that refers to the bundle id follows the mapping.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from loregraph.models import DocumentBundle, Entity, Vector, name_key
from loregraph.store.sqlite.rows import IN_JSON, json_list


@dataclass(slots=True)
class NewEntity:
    """An entity the store does not hold yet, aggregated over the bundle's writes of it."""

    entity: Entity
    key: str
    type: str
    salience: float
    confidence: float
    embedding: Vector | None


@dataclass(slots=True)
class ExistingUpdate:
    """What the bundle adds to an entity the store already holds."""

    type: str = ""
    salience: float = 0.0
    confidence: float = 0.0
    embedding: Vector | None = None


@dataclass(slots=True)
class EntityPlan:
    """The outcome of :func:`plan_entities`."""

    final: dict[str, str] = field(default_factory=dict)
    """Every bundle or referenced entity id -> the id it is written as."""
    keys: dict[str, str] = field(default_factory=dict)
    """Final id -> canonical name key."""
    new: dict[str, NewEntity] = field(default_factory=dict)
    existing: dict[str, ExistingUpdate] = field(default_factory=dict)
    """Stored entities listed in the bundle, with what the bundle adds."""
    referenced: set[str] = field(default_factory=set)
    """Stored entities only referenced (by a mention, relation or merge)."""
    descriptions: dict[str, list[str]] = field(default_factory=dict)
    """Final id -> this document's description candidates (every listed entity has a key)."""
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    """Final id -> {alias key: surface} this document used (canonical key excluded)."""
    new_keys: dict[str, str] = field(default_factory=dict)
    """Name key -> id of a new entity."""
    pks: dict[str, int] = field(default_factory=dict)
    """Final id -> pk (new entities get the next free pks, in bundle order)."""

    def alias(self, entity_id: str, surface: str) -> None:
        """Record a surface form of a (final) entity."""
        key = name_key(surface)
        if key and key != self.keys[entity_id]:
            self.aliases.setdefault(entity_id, {}).setdefault(key, surface)


def plan_entities(conn: sqlite3.Connection, bundle: DocumentBundle, next_pk: int) -> EntityPlan:
    """Map the bundle's entities onto stored or new entities.

    New entities are numbered from ``next_pk``. Raises :class:`ValueError` for an entity of
    another scope or a reference to an entity that is neither in the bundle nor in the store.
    """
    scope = bundle.document.scope
    for write in bundle.entities:
        if write.entity.scope != scope:
            raise ValueError(
                f"entity {write.entity.id} is in scope {write.entity.scope!r} but the document "
                f"{bundle.document.id} is in scope {scope!r}"
            )
    listed = {write.entity.id for write in bundle.entities}
    referenced = {m.entity_id for m in bundle.mentions}
    referenced.update(m.entity_id for m in bundle.merges)
    for relation in bundle.relations:
        referenced.update((relation.source_id, relation.target_id))
    stored: dict[str, tuple[str, str]] = {}
    plan = EntityPlan()
    for pk, entity_id, entity_scope, key in conn.execute(
        f"SELECT pk, id, scope, name_key FROM entities WHERE id IN {IN_JSON}",
        (json_list(listed | referenced),),
    ):
        stored[entity_id] = (entity_scope, key)
        plan.pks[entity_id] = pk
    for entity_id, (entity_scope, _) in stored.items():
        if entity_scope != scope:
            raise ValueError(f"entity {entity_id} belongs to scope {entity_scope!r}, not {scope!r}")
    wanted_keys = {name_key(w.entity.name) for w in bundle.entities if w.entity.id not in stored}
    by_key: dict[str, str] = {}
    for pk, entity_id, key in conn.execute(
        f"SELECT pk, id, name_key FROM entities WHERE scope = ? AND name_key IN {IN_JSON}",
        (scope, json_list(wanted_keys)),
    ):
        by_key[key] = entity_id
        plan.pks[entity_id] = pk
    for write in bundle.entities:
        entity = write.entity
        final, key, is_stored = _final_id(entity, stored, by_key, plan)
        plan.final[entity.id] = final
        plan.keys[final] = key
        salience = max(write.salience, entity.salience)
        description = write.description
        if is_stored:
            update = plan.existing.setdefault(final, ExistingUpdate())
            update.type = update.type or entity.type
            update.salience = max(update.salience, salience)
            update.confidence = max(update.confidence, entity.confidence)
            if entity.embedding is not None:
                update.embedding = entity.embedding
        else:
            description = description or entity.description
            new = plan.new.get(final)
            if new is None:
                plan.new[final] = NewEntity(
                    entity, key, entity.type, salience, entity.confidence, entity.embedding
                )
                plan.new_keys.setdefault(key, final)
            else:
                new.type = new.type or entity.type
                new.salience = max(new.salience, salience)
                new.confidence = max(new.confidence, entity.confidence)
                if new.embedding is None:
                    new.embedding = entity.embedding
        plan.descriptions.setdefault(final, []).append(description)
    for entity_id in sorted(referenced - listed):
        found = stored.get(entity_id)
        if found is None:
            raise ValueError(
                f"document {bundle.document.id} refers to entity {entity_id}, which is neither "
                "in its bundle nor in the store"
            )
        plan.final[entity_id] = entity_id
        plan.keys[entity_id] = found[1]
        if entity_id not in plan.existing:
            plan.referenced.add(entity_id)
    for offset, entity_id in enumerate(plan.new):
        plan.pks[entity_id] = next_pk + offset
    for write in bundle.entities:
        final = plan.final[write.entity.id]
        plan.alias(final, write.entity.name)
        for surface in write.entity.aliases:
            plan.alias(final, surface)
    for mention in bundle.mentions:
        plan.alias(plan.final[mention.entity_id], mention.surface)
    return plan


def _final_id(
    entity: Entity,
    stored: dict[str, tuple[str, str]],
    by_key: dict[str, str],
    plan: EntityPlan,
) -> tuple[str, str, bool]:
    """(final id, canonical key, whether the store holds it) for one bundle entity."""
    if entity.id in stored:
        return entity.id, stored[entity.id][1], True
    if entity.id in plan.new:
        return entity.id, plan.new[entity.id].key, False
    key = name_key(entity.name)
    if key in by_key:
        return by_key[key], key, True
    if key in plan.new_keys:
        return plan.new_keys[key], key, False
    return entity.id, key, False

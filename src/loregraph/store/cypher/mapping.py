"""Which stored or new entity each bundle entity becomes (pure Python, no database).

The same rules as the SQL stores: entities are upserted by id; a bundle entity whose id is
new but whose name key already names an entity of the scope (stored, or earlier in the same
bundle) is written onto that entity, and every mention, relation end and merge that refers
to the bundle id follows. A reference to an entity that is neither in the bundle nor stored,
or to an entity of another scope, is a :class:`ValueError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from loregraph.models import DocumentBundle, Entity, Vector, name_key


@dataclass(slots=True)
class Stored:
    """What the mapping needs to know about a stored entity."""

    id: str
    scope: str
    key: str


@dataclass(slots=True)
class Listing:
    """What the bundle says about one final entity (new or stored)."""

    entity: Entity
    key: str
    stored: bool
    type: str
    salience: float
    confidence: float
    embedding: Vector | None
    descriptions: list[str] = field(default_factory=list)


@dataclass(slots=True)
class EntityMap:
    """The outcome of :func:`map_entities`."""

    final: dict[str, str] = field(default_factory=dict)
    """Every bundle or referenced entity id -> the id it is written as."""
    keys: dict[str, str] = field(default_factory=dict)
    """Final id -> canonical name key."""
    listed: dict[str, Listing] = field(default_factory=dict)
    """Final id -> what the bundle lists about it (new and stored entities)."""
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    """Final id -> {alias key: first surface} this document used (canonical key excluded)."""

    def alias(self, entity_id: str, surface: str) -> None:
        """Record a surface form of a (final) entity."""
        key = name_key(surface)
        if key and key != self.keys[entity_id]:
            self.aliases.setdefault(entity_id, {}).setdefault(key, surface)

    @property
    def new(self) -> list[str]:
        """Final ids of entities the store does not hold yet, in bundle order."""
        return [entity_id for entity_id, item in self.listed.items() if not item.stored]


def referenced_ids(bundle: DocumentBundle) -> set[str]:
    """Entity ids the bundle refers to by mention, relation end or merge."""
    ids = {m.entity_id for m in bundle.mentions}
    ids.update(m.entity_id for m in bundle.merges)
    for relation in bundle.relations:
        ids.update((relation.source_id, relation.target_id))
    return ids


def wanted_keys(bundle: DocumentBundle, stored: dict[str, Stored]) -> set[str]:
    """Name keys of bundle entities whose id the store does not hold."""
    return {name_key(w.entity.name) for w in bundle.entities if w.entity.id not in stored}


def map_entities(
    bundle: DocumentBundle, stored: dict[str, Stored], by_key: dict[str, str]
) -> EntityMap:
    """Map the bundle's entities onto stored (``stored`` by id, ``by_key``) or new ones."""
    scope = bundle.document.scope
    for write in bundle.entities:
        if write.entity.scope != scope:
            raise ValueError(
                f"entity {write.entity.id} is in scope {write.entity.scope!r} but the document "
                f"{bundle.document.id} is in scope {scope!r}"
            )
    for entity_id, found in stored.items():
        if found.scope != scope:
            raise ValueError(f"entity {entity_id} belongs to scope {found.scope!r}, not {scope!r}")
    result = EntityMap()
    new_keys: dict[str, str] = {}
    for write in bundle.entities:
        entity = write.entity
        if entity.id in stored:
            final, key, is_stored = entity.id, stored[entity.id].key, True
        elif entity.id in result.listed and not result.listed[entity.id].stored:
            final, key, is_stored = entity.id, result.listed[entity.id].key, False
        else:
            key = name_key(entity.name)
            if key in by_key:
                final, is_stored = by_key[key], True
            elif key in new_keys:
                final, is_stored = new_keys[key], False
            else:
                final, is_stored = entity.id, False
        result.final[entity.id] = final
        result.keys[final] = key
        salience = max(write.salience, entity.salience)
        description = write.description if is_stored else write.description or entity.description
        item = result.listed.get(final)
        if item is None:
            item = result.listed[final] = Listing(
                entity, key, is_stored, entity.type, salience, entity.confidence, entity.embedding
            )
            if not is_stored:
                new_keys.setdefault(key, final)
        else:
            item.type = item.type or entity.type
            item.salience = max(item.salience, salience)
            item.confidence = max(item.confidence, entity.confidence)
            if (is_stored and entity.embedding is not None) or item.embedding is None:
                item.embedding = entity.embedding
        item.descriptions.append(description)
    listed = {write.entity.id for write in bundle.entities}
    for entity_id in sorted(referenced_ids(bundle) - listed):
        ref = stored.get(entity_id)
        if ref is None:
            raise ValueError(
                f"document {bundle.document.id} refers to entity {entity_id}, which is neither "
                "in its bundle nor in the store"
            )
        result.final[entity_id] = entity_id
        result.keys.setdefault(entity_id, ref.key)
    for write in bundle.entities:
        final = result.final[write.entity.id]
        result.alias(final, write.entity.name)
        for surface in write.entity.aliases:
            result.alias(final, surface)
    for mention in bundle.mentions:
        result.alias(result.final[mention.entity_id], mention.surface)
    return result


def best_description(descriptions: list[str]) -> str:
    """The longest non-empty description (ties: alphabetical first)."""
    candidates = [text for text in descriptions if text]
    if not candidates:
        return ""
    return min(candidates, key=lambda text: (-len(text), text))


def alias_list(name_key_: str, aliases: dict[str, str]) -> tuple[list[str], list[str]]:
    """``(surfaces, keys)`` of an entity's aliases from ``{alias key: surface}``.

    Surfaces are sorted (then by key); the canonical key and empty keys are left out.
    """
    kept = sorted((surface, key) for key, surface in aliases.items() if key and key != name_key_)
    return [surface for surface, _ in kept], sorted({key for _, key in kept})

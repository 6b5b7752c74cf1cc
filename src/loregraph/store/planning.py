"""Planning a bundle's writes: the rules every backend applies (pure Python, no database).

A backend reads what it stores about the entities a bundle names, calls :func:`plan_bundle`,
and only applies the resulting :class:`BundlePlan` in its own query language.

Which entity each bundle entity becomes. Entities are upserted by id. A bundle entity whose
id is new but whose name key already names an entity of the scope (stored, or earlier in the
same bundle) is written onto that entity, and every mention, relation end and merge that
refers to the bundle id follows. A reference to an entity that is neither in the bundle nor
stored, or an entity of another scope, is a :class:`ValueError`.

What a write adds to an entity:

* a stored entity keeps its id, ``created_at``, name and type (the type is filled in when
  empty); ``salience`` and ``confidence`` become the maximum seen; a provided embedding
  replaces the stored one (the last the bundle gives);
* a new entity is created from the bundle's first write of it: type (the first non-empty),
  the highest ``salience`` and ``confidence``, the first embedding given;
* the document's description of an entity is the longest non-empty
  ``EntityWrite.description`` of its writes; for an entity the write creates,
  ``Entity.description`` stands in when that is empty (for a stored entity it is not used:
  it is usually the stored description read back by the caller);
* the document's aliases of an entity are one surface (the first it used) per alias key of
  its names, aliases and mention surfaces, never the canonical name's key.

Derived values, the same in every backend: an entity's ``description`` is the longest
non-empty description any of its documents gave (:func:`best_description`), its ``aliases``
one surface (the smallest) per distinct alias key its documents used, sorted
(:func:`alias_list`), its ``mention_count`` the sum of its mention counts; a relation's
``weight`` is its number of evidence rows (a relation asserted without evidence contributes
one chunk-less row) and its ``confidence`` the highest among them. An entity's ``salience``
and ``confidence`` are kept per document that lists it (the document's own values: the
highest of its writes); when a document's contributions go, they become the highest over the
remaining documents (:func:`contributed_max`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from loregraph.models import (
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Relation,
    Vector,
    name_key,
)

EvidenceKey = tuple[str, str, int, int]
"""(chunk id, sentence, start, end) of one piece of evidence; the chunk id is empty for
support without a chunk."""


@dataclass(slots=True)
class StoredEntity:
    """What planning needs to know about an entity the store holds."""

    id: str
    scope: str
    key: str


@dataclass(slots=True)
class PlannedEntity:
    """What the bundle says about one entity as it is written (new or stored)."""

    entity: Entity
    """The bundle's first write of it (name and ``created_at`` of a new entity)."""
    key: str
    stored: bool
    type: str
    salience: float
    confidence: float
    embedding: Vector | None
    writes: list[EntityWrite] = field(default_factory=list)

    def description(self, created: bool | None = None) -> str:
        """This document's description of the entity (see the module notes).

        ``created`` says whether the write creates the entity; by default, whether it is
        new to the store as far as planning knows.
        """
        creates = not self.stored if created is None else created
        return best_description(
            [w.description or (w.entity.description if creates else "") for w in self.writes]
        )

    def add(self, write: EntityWrite) -> None:
        """Merge another write of the same entity into this one."""
        entity = write.entity
        self.type = self.type or entity.type
        self.salience = max(self.salience, write.salience, entity.salience)
        self.confidence = max(self.confidence, entity.confidence)
        if (self.stored and entity.embedding is not None) or self.embedding is None:
            self.embedding = entity.embedding
        self.writes.append(write)


@dataclass(slots=True)
class RelationGroup:
    """The bundle's relations with one (source, type, target, statement), merged."""

    relation: Relation
    """The first of them (id, fact and temporal fields of a new relation)."""
    confidence: float = 0.0
    evidence: dict[EvidenceKey, None] = field(default_factory=dict)
    """Distinct evidence, in bundle order."""


@dataclass(slots=True)
class BundlePlan:
    """The outcome of :func:`plan_bundle`: every entity id as written, and the document's
    contributions keyed by those ids."""

    final: dict[str, str] = field(default_factory=dict)
    """Every bundle or referenced entity id -> the id it is written as."""
    keys: dict[str, str] = field(default_factory=dict)
    """Final id -> canonical name key (one key per final id)."""
    listed: dict[str, PlannedEntity] = field(default_factory=dict)
    """Final id -> what the bundle lists about it, in bundle order."""
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    """Final id -> {alias key: first surface} this document used (canonical key excluded)."""
    mentions: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(final id, chunk id, surface) -> count."""
    relations: dict[tuple[str, str, str, str], RelationGroup] = field(default_factory=dict)
    """(final source id, type, final target id, statement) -> the bundle's relations,
    merged."""

    @property
    def new(self) -> list[str]:
        """Final ids of listed entities the store does not hold yet, in bundle order."""
        return [entity_id for entity_id, item in self.listed.items() if not item.stored]

    @property
    def updated(self) -> list[str]:
        """Final ids of listed entities the store holds, in bundle order."""
        return [entity_id for entity_id, item in self.listed.items() if item.stored]

    def alias(self, entity_id: str, surface: str) -> None:
        """Record a surface form of a (final) entity."""
        key = name_key(surface)
        if key and key != self.keys[entity_id]:
            self.aliases.setdefault(entity_id, {}).setdefault(key, surface)


def referenced_ids(bundle: DocumentBundle) -> set[str]:
    """Entity ids the bundle refers to by mention, relation end or merge."""
    ids = {m.entity_id for m in bundle.mentions}
    ids.update(m.entity_id for m in bundle.merges)
    for relation in bundle.relations:
        ids.update((relation.source_id, relation.target_id))
    return ids


def unknown_keys(bundle: DocumentBundle, stored: dict[str, StoredEntity]) -> set[str]:
    """Name keys of the bundle's entities whose id the store does not hold."""
    return {name_key(w.entity.name) for w in bundle.entities if w.entity.id not in stored}


def plan_bundle(
    bundle: DocumentBundle, stored: dict[str, StoredEntity], by_key: dict[str, str]
) -> BundlePlan:
    """Plan a bundle's entity, mention, alias and relation writes.

    ``stored`` holds the stored entities among the ids the bundle lists or refers to;
    ``by_key`` maps name keys to the ids of stored entities that have them (those of
    :func:`unknown_keys` at least, or none at all for a backend that finds them at insert
    time: its plan then names such entities by their bundle id, as new, one per key).
    Raises :class:`ValueError` for an entity of another scope or a reference to an entity
    that is neither in the bundle nor stored.
    """
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
    plan = BundlePlan()
    owners = _Owners({found.key: entity_id for entity_id, found in stored.items()} | by_key)
    for write in bundle.entities:
        _list(plan, write, stored, owners)
    listed = {write.entity.id for write in bundle.entities}
    for entity_id in sorted(referenced_ids(bundle) - listed):
        ref = stored.get(entity_id)
        if ref is None:
            raise ValueError(
                f"document {bundle.document.id} refers to entity {entity_id}, which is neither "
                "in its bundle nor in the store"
            )
        plan.final[entity_id] = entity_id
        plan.keys.setdefault(entity_id, ref.key)
    _contributions(plan, bundle)
    return plan


@dataclass(slots=True)
class _Owners:
    """Which entity a name key belongs to while planning."""

    stored: dict[str, str]
    """Name key -> id of the stored entity that has it."""
    new: dict[str, str] = field(default_factory=dict)
    """Name key -> final id of the new entity the bundle gave it first."""


def _list(
    plan: BundlePlan, write: EntityWrite, stored: dict[str, StoredEntity], owners: _Owners
) -> None:
    """Map one bundle entity onto its final id and merge its write into the plan."""
    entity = write.entity
    earlier = plan.listed.get(entity.id)
    if entity.id in stored:
        final, key, is_stored = entity.id, stored[entity.id].key, True
    elif earlier is not None and not earlier.stored:
        final, key, is_stored = entity.id, earlier.key, False
    else:
        key = name_key(entity.name)
        if key in owners.stored:
            final, is_stored = owners.stored[key], True
        else:
            final, is_stored = owners.new.setdefault(key, entity.id), False
    plan.final[entity.id] = final
    plan.keys[final] = key
    item = plan.listed.get(final)
    if item is None:
        salience = max(write.salience, entity.salience)
        plan.listed[final] = PlannedEntity(
            entity, key, is_stored, entity.type, salience, entity.confidence, entity.embedding
        )
        plan.listed[final].writes.append(write)
    else:
        item.add(write)


def _contributions(plan: BundlePlan, bundle: DocumentBundle) -> None:
    """The document's aliases, mentions and relations, by final ids."""
    for write in bundle.entities:
        final = plan.final[write.entity.id]
        plan.alias(final, write.entity.name)
        for surface in write.entity.aliases:
            plan.alias(final, surface)
    for mention in bundle.mentions:
        final = plan.final[mention.entity_id]
        plan.alias(final, mention.surface)
        row = (final, mention.chunk_id, mention.surface)
        plan.mentions[row] = plan.mentions.get(row, 0) + mention.count
    for relation in bundle.relations:
        source, target = plan.final[relation.source_id], plan.final[relation.target_id]
        key = (source, relation.type, target, relation.statement)
        group = plan.relations.setdefault(key, RelationGroup(relation))
        group.confidence = max(group.confidence, relation.confidence)
        for ev in relation.evidence or [Evidence("")]:
            group.evidence[(ev.chunk_id, ev.sentence, ev.start, ev.end)] = None


def best_description(descriptions: list[str]) -> str:
    """The longest non-empty description (ties: alphabetical first; none: empty)."""
    candidates = [text for text in descriptions if text]
    if not candidates:
        return ""
    return min(candidates, key=lambda text: (-len(text), text))


def contributed_max(current: float, values: Iterable[float | None]) -> float:
    """An entity's salience or confidence from its listing documents' ``values``: the
    highest; ``current`` (the stored value, kept) when there is none or one is unknown
    (``None``: written before stores kept them per document)."""
    known = list(values)
    if not known or any(value is None for value in known):
        return current
    return max(value for value in known if value is not None)


def alias_list(key: str, aliases: dict[str, str]) -> tuple[list[str], list[str]]:
    """``(surfaces, alias keys)`` of an entity from ``{alias key: surface}``.

    Surfaces are sorted (then by key), keys sorted; the canonical ``key`` and empty keys
    are left out.
    """
    kept = sorted((surface, k) for k, surface in aliases.items() if k and k != key)
    return [surface for surface, _ in kept], sorted({k for _, k in kept})

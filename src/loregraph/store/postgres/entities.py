"""Resolving a bundle's entities onto stored rows with ``INSERT ... ON CONFLICT``.

A bundle entity whose id the store holds is that entity. Any other is upserted by its
``(scope, name_key)``: it becomes the stored entity of that key when there is one (in the
store already, or created a moment ago by a concurrent writer, whose insert this one waits
for), and a new row otherwise. The unique key, not an application lock, is what keeps two
processes from creating the same entity twice. Rows are upserted in key order, so that
writers lock shared entities in the same order.

What a write adds to an entity that already exists: it keeps its id, ``created_at``, name and
type (the type is filled in when empty); ``salience`` and ``confidence`` become the maximum
seen; a provided embedding replaces the stored one. A document's description of a new entity
falls back to ``Entity.description`` when its ``EntityWrite.description`` is empty.

The document's contributions (descriptions, aliases, mentions; see :mod:`.cleanup`) are
worked out per name key before the upsert, so that a row the write creates is inserted with
its derived values already right (mention count, description, aliases, search vector): the
recomputation that follows finds nothing to change in it, and the row is written once (an
update would add a second entry to every index of the table, HNSW included).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DocumentBundle, EntityWrite, Vector, name_key
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import utc
from loregraph.store.postgres.vectors import vector_param


@dataclass(slots=True)
class Group:
    """The bundle's writes of one entity, merged, keyed by the name key it is upserted under."""

    key: str
    entity_id: str
    name: str
    type: str = ""
    salience: float = 0.0
    confidence: float = 0.0
    embedding: Vector | None = None
    created_at: datetime | None = None
    writes: list[EntityWrite] = field(default_factory=list)


@dataclass(slots=True)
class Contributions:
    """What the document says about each entity, by the entity's canonical name key."""

    aliases: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    """key -> alias key -> surface (the first the document used)."""
    mentions: dict[tuple[str, str, str], int] = field(default_factory=lambda: defaultdict(int))
    """(key, chunk id, surface) -> count."""
    mention_totals: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    """key -> the document's mention count."""


@dataclass(slots=True)
class Resolved:
    """Where every entity id the bundle uses ends up."""

    pks: dict[str, int] = field(default_factory=dict)
    """Bundle or referenced entity id -> stored pk."""
    keys: dict[int, str] = field(default_factory=dict)
    """pk -> canonical name key."""
    groups: list[tuple[int, Group, bool]] = field(default_factory=list)
    """(pk, group, whether the row was created by this write) for each listed entity."""
    contributions: Contributions = field(default_factory=Contributions)


def best_description(descriptions: list[str]) -> str:
    """The longest non-empty description (ties: alphabetical first)."""
    candidates = [text for text in descriptions if text]
    if not candidates:
        return ""
    return min(candidates, key=lambda text: (-len(text), text))


def new_description(group: Group) -> str:
    """The description a document gives an entity it creates."""
    return best_description([w.description or w.entity.description for w in group.writes])


async def resolve_entities(conn: Conn, bundle: DocumentBundle, now: datetime) -> Resolved:
    """Upsert the bundle's entities; raises ValueError for a foreign or unknown entity."""
    scope = bundle.document.scope
    for write in bundle.entities:
        if write.entity.scope != scope:
            raise ValueError(
                f"entity {write.entity.id} is in scope {write.entity.scope!r} but the document "
                f"{bundle.document.id} is in scope {scope!r}"
            )
    listed = {write.entity.id for write in bundle.entities}
    referenced = {m.entity_id for m in bundle.mentions} | {m.entity_id for m in bundle.merges}
    for relation in bundle.relations:
        referenced.update((relation.source_id, relation.target_id))
    cursor = await conn.execute(
        "SELECT id, pk, scope, name, name_key FROM entities WHERE id = ANY(%s)",
        (sorted(listed | referenced),),
    )
    stored = {row[0]: row[1:] for row in await cursor.fetchall()}
    for entity_id, (_, entity_scope, _, _) in stored.items():
        if entity_scope != scope:
            raise ValueError(f"entity {entity_id} belongs to scope {entity_scope!r}, not {scope!r}")
    groups, key_of = _group(bundle, stored)
    for entity_id in sorted(referenced - listed):
        found = stored.get(entity_id)
        if found is None:
            raise ValueError(
                f"document {bundle.document.id} refers to entity {entity_id}, which is neither "
                "in its bundle nor in the store"
            )
        key_of[entity_id] = found[3]
    resolved = Resolved(contributions=_contributions(bundle, key_of))
    ordered = [groups[key] for key in sorted(groups)]
    rows = await _upsert(conn, scope, ordered, resolved.contributions, now)
    for group in ordered:
        pk, inserted = rows[group.key]
        resolved.keys[pk] = group.key
        resolved.groups.append((pk, group, inserted))
    for entity_id, key in key_of.items():
        if entity_id in listed:
            resolved.pks[entity_id] = rows[key][0]
        else:
            pk = stored[entity_id][0]
            resolved.pks[entity_id] = pk
            resolved.keys[pk] = key
    return resolved


def _group(
    bundle: DocumentBundle, stored: dict[str, tuple[int, str, str, str]]
) -> tuple[dict[str, Group], dict[str, str]]:
    """Merge the bundle's entity writes by the key each is upserted under."""
    groups: dict[str, Group] = {}
    group_of: dict[str, str] = {}
    for write in bundle.entities:
        entity = write.entity
        known = stored.get(entity.id)
        if entity.id in group_of:
            key = group_of[entity.id]
        elif known is not None:
            key = known[3]
        else:
            key = name_key(entity.name)
        group_of[entity.id] = key
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(key, entity.id, entity.name, created_at=entity.created_at)
        if known is not None:
            group.entity_id, group.name = entity.id, known[2]
        group.type = group.type or entity.type
        group.salience = max(group.salience, write.salience, entity.salience)
        group.confidence = max(group.confidence, entity.confidence)
        if entity.embedding is not None:
            group.embedding = entity.embedding
        group.writes.append(write)
    return groups, group_of


def _contributions(bundle: DocumentBundle, key_of: dict[str, str]) -> Contributions:
    """The document's aliases and mentions of each entity (by canonical key)."""
    found = Contributions()

    def alias(key: str, surface: str) -> None:
        alias_key = name_key(surface)
        if alias_key and alias_key != key:
            found.aliases[key].setdefault(alias_key, surface)

    for write in bundle.entities:
        key = key_of[write.entity.id]
        alias(key, write.entity.name)
        for surface in write.entity.aliases:
            alias(key, surface)
    for mention in bundle.mentions:
        key = key_of[mention.entity_id]
        alias(key, mention.surface)
        found.mentions[(key, mention.chunk_id, mention.surface)] += mention.count
        found.mention_totals[key] += mention.count
    return found


def _alias_list(aliases: dict[str, str]) -> list[str]:
    """An entity's ``aliases`` column as recomputed from one document's alias rows."""
    return [surface for surface, _ in sorted((s, k) for k, s in aliases.items())]


async def _upsert(
    conn: Conn, scope: str, groups: list[Group], found: Contributions, now: datetime
) -> dict[str, tuple[int, bool]]:
    """Insert or update the groups' rows; returns key -> (pk, created by this write).

    A new row gets this document's derived values; a stored row keeps its own (they are
    recomputed afterwards).
    """
    if not groups:
        return {}
    vectors = [vector_param(group.embedding) for group in groups]
    cursor = await conn.execute(
        "INSERT INTO entities AS e (id, scope, name, name_key, type, description, aliases, "
        "mention_count, salience, confidence, created_at, updated_at, search, dim, embedding) "
        "SELECT g.id, %(scope)s, g.name, g.key, g.type, g.description, a.aliases, g.mentions, "
        "g.salience, g.confidence, g.created_at, %(now)s, "
        "setweight(to_tsvector('english', g.name), 'A') "
        "|| setweight(to_tsvector('english', array_to_string(a.aliases, ' ')), 'B') "
        "|| setweight(to_tsvector('english', g.description), 'C'), g.dim, g.embedding "
        "FROM unnest(%(ids)s::text[], %(names)s::text[], %(keys)s::text[], %(types)s::text[], "
        "%(descriptions)s::text[], %(aliases)s::text[], %(mentions)s::bigint[], "
        "%(saliences)s::float8[], %(confidences)s::float8[], %(created)s::timestamptz[], "
        "%(dims)s::integer[], %(vectors)b::vector[]) WITH ORDINALITY "
        "AS g(id, name, key, type, description, aliases, mentions, salience, confidence, "
        "created_at, dim, embedding, ord) "
        "CROSS JOIN LATERAL (SELECT ARRAY(SELECT x.value FROM "
        "jsonb_array_elements_text(g.aliases::jsonb) WITH ORDINALITY AS x(value, n) "
        "ORDER BY x.n) AS aliases) AS a "
        "ORDER BY g.ord "
        "ON CONFLICT (scope, name_key) DO UPDATE SET "
        "type = CASE WHEN e.type = '' THEN excluded.type ELSE e.type END, "
        "salience = greatest(e.salience, excluded.salience), "
        "confidence = greatest(e.confidence, excluded.confidence), "
        "dim = coalesce(excluded.dim, e.dim), "
        "embedding = coalesce(excluded.embedding, e.embedding), "
        "updated_at = excluded.updated_at "
        "RETURNING e.pk, e.name_key, (e.xmax = 0)",
        {
            "scope": scope,
            "now": now,
            "ids": [group.entity_id for group in groups],
            "names": [group.name for group in groups],
            "keys": [group.key for group in groups],
            "types": [group.type for group in groups],
            "descriptions": [new_description(group) for group in groups],
            "aliases": [
                json.dumps(_alias_list(found.aliases.get(group.key, {})), ensure_ascii=False)
                for group in groups
            ],
            "mentions": [found.mention_totals.get(group.key, 0) for group in groups],
            "saliences": [float(group.salience) for group in groups],
            "confidences": [float(group.confidence) for group in groups],
            "created": [utc(group.created_at or now) for group in groups],
            "dims": [dim for dim, _ in vectors],
            "vectors": [vector for _, vector in vectors],
        },
    )
    return {key: (pk, bool(inserted)) for pk, key, inserted in await cursor.fetchall()}


async def write_contributions(
    conn: Conn,
    bundle: DocumentBundle,
    resolved: Resolved,
    doc_pk: int,
    chunks: dict[str, int],
) -> set[int]:
    """Insert this document's descriptions, aliases and mentions; returns the entity pks."""
    descriptions: list[tuple[int, str]] = []
    for pk, group, inserted in resolved.groups:
        if inserted:
            descriptions.append((pk, new_description(group)))
        else:
            descriptions.append((pk, best_description([w.description for w in group.writes])))
    pk_of = {key: pk for pk, key in resolved.keys.items()}
    found = resolved.contributions
    alias_rows = [
        (pk_of[key], alias_key, surface)
        for key, aliases in found.aliases.items()
        for alias_key, surface in aliases.items()
    ]
    mention_rows = [
        (pk_of[key], chunks[chunk_id], surface, count)
        for (key, chunk_id, surface), count in found.mentions.items()
    ]
    await conn.execute(
        "INSERT INTO entity_descriptions (entity, document, description) "
        "SELECT entity, %s, description FROM unnest(%s::bigint[], %s::text[]) "
        "AS t(entity, description)",
        (doc_pk, [pk for pk, _ in descriptions], [text for _, text in descriptions]),
    )
    await conn.execute(
        "INSERT INTO entity_aliases (entity, alias_key, document, alias) "
        "SELECT entity, alias_key, %s, alias FROM unnest(%s::bigint[], %s::text[], %s::text[]) "
        "AS t(entity, alias_key, alias)",
        (doc_pk, *_columns(alias_rows, 3)),
    )
    await conn.execute(
        "INSERT INTO mentions (entity, chunk, surface, count) SELECT * FROM "
        "unnest(%s::bigint[], %s::bigint[], %s::text[], %s::integer[])",
        _columns(mention_rows, 4),
    )
    touched = {pk for pk, _ in descriptions}
    touched.update(row[0] for row in mention_rows)
    return touched


def _columns(rows: Sequence[tuple[object, ...]], width: int) -> list[list[object]]:
    """Rows as ``width`` column lists (for ``unnest``)."""
    return [[row[i] for row in rows] for i in range(width)]

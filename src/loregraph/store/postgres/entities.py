"""Applying a bundle's plan (:mod:`loregraph.store.planning`) with ``INSERT ... ON CONFLICT``.

The plan maps the bundle's entities onto the stored entities it knows by id. Every listed
entity is then upserted by its ``(scope, name_key)``: it becomes the stored entity of that
key when there is one (in the store already, or created a moment ago by a concurrent
writer, whose insert this one waits for), and a new row otherwise. The unique key, not an
application lock, is what keeps two processes from creating the same entity twice. Rows are
upserted in key order, so that writers lock shared entities in the same order.

A row the write creates is inserted with its derived values already right (mention count,
description, aliases, search vector): the recomputation that follows finds nothing to
change in it, and the row is written once (an update would add a second entry to every
index of the table, HNSW included).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DocumentBundle
from loregraph.store.planning import (
    BundlePlan,
    PlannedEntity,
    StoredEntity,
    alias_list,
    plan_bundle,
    referenced_ids,
)
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import utc
from loregraph.store.postgres.vectors import vector_param


@dataclass(slots=True)
class Resolved:
    """The bundle's plan and where each of its final entity ids is stored."""

    plan: BundlePlan
    pks: dict[str, int] = field(default_factory=dict)
    """Final entity id -> pk."""
    created: set[str] = field(default_factory=set)
    """Final ids whose row this write inserted."""

    def pk(self, entity_id: str) -> int:
        """The pk of a bundle or referenced entity id."""
        return self.pks[self.plan.final[entity_id]]


async def resolve_entities(conn: Conn, bundle: DocumentBundle, now: datetime) -> Resolved:
    """Upsert the bundle's entities; raises ValueError for a foreign or unknown entity."""
    ids = {write.entity.id for write in bundle.entities} | referenced_ids(bundle)
    cursor = await conn.execute(
        "SELECT id, pk, scope, name_key FROM entities WHERE id = ANY(%s)", (sorted(ids),)
    )
    stored: dict[str, StoredEntity] = {}
    pks: dict[str, int] = {}
    for entity_id, pk, scope, key in await cursor.fetchall():
        stored[entity_id] = StoredEntity(entity_id, scope, key)
        pks[entity_id] = pk
    # name keys are resolved by the upsert itself (a concurrent writer may take one meanwhile)
    resolved = Resolved(plan_bundle(bundle, stored, {}))
    listed = sorted(resolved.plan.listed.items(), key=lambda item: item[1].key)
    rows = await _upsert(conn, bundle.document.scope, listed, resolved.plan, now)
    for entity_id in resolved.plan.final.values():
        if entity_id in resolved.plan.listed:
            pk, inserted = rows[resolved.plan.keys[entity_id]]
            resolved.pks[entity_id] = pk
            if inserted:
                resolved.created.add(entity_id)
        else:
            resolved.pks[entity_id] = pks[entity_id]
    return resolved


async def _upsert(
    conn: Conn,
    scope: str,
    listed: list[tuple[str, PlannedEntity]],
    plan: BundlePlan,
    now: datetime,
) -> dict[str, tuple[int, bool]]:
    """Insert or update the listed entities' rows; returns key -> (pk, created by this write).

    A new row gets this document's derived values; a stored row keeps its own (they are
    recomputed afterwards).
    """
    if not listed:
        return {}
    items = [item for _, item in listed]
    vectors = [vector_param(item.embedding) for item in items]
    totals = plan.mention_totals()
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
            "ids": [entity_id for entity_id, _ in listed],
            "names": [item.entity.name for item in items],
            "keys": [item.key for item in items],
            "types": [item.type for item in items],
            "descriptions": [item.description(created=True) for item in items],
            "aliases": [
                json.dumps(
                    alias_list(item.key, plan.aliases.get(entity_id, {}))[0], ensure_ascii=False
                )
                for entity_id, item in listed
            ],
            "mentions": [totals.get(entity_id, 0) for entity_id, _ in listed],
            "saliences": [float(item.salience) for item in items],
            "confidences": [float(item.confidence) for item in items],
            "created": [utc(item.entity.created_at) for item in items],
            "dims": [dim for dim, _ in vectors],
            "vectors": [vector for _, vector in vectors],
        },
    )
    return {key: (pk, bool(inserted)) for pk, key, inserted in await cursor.fetchall()}


async def write_contributions(
    conn: Conn, resolved: Resolved, doc_pk: int, chunks: dict[str, int]
) -> set[int]:
    """Insert this document's descriptions (with its salience and confidence), aliases and
    mentions; returns the entity pks."""
    plan, pks = resolved.plan, resolved.pks
    descriptions = [
        (
            pks[entity_id],
            item.description(created=entity_id in resolved.created),
            float(item.salience),
            float(item.confidence),
        )
        for entity_id, item in plan.listed.items()
    ]
    alias_rows = [
        (pks[entity_id], alias_key, surface)
        for entity_id, aliases in plan.aliases.items()
        for alias_key, surface in aliases.items()
    ]
    mention_rows = [
        (pks[entity_id], chunks[chunk_id], surface, count)
        for (entity_id, chunk_id, surface), count in plan.mentions.items()
    ]
    await conn.execute(
        "INSERT INTO entity_descriptions (entity, document, description, salience, confidence) "
        "SELECT entity, %s, description, salience, confidence FROM "
        "unnest(%s::bigint[], %s::text[], %s::float8[], %s::float8[]) "
        "AS t(entity, description, salience, confidence)",
        (doc_pk, *_columns(descriptions, 4)),
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
    touched = {row[0] for row in descriptions}
    touched.update(row[0] for row in mention_rows)
    return touched


def _columns(rows: Sequence[tuple[object, ...]], width: int) -> list[list[object]]:
    """Rows as ``width`` column lists (for ``unnest``)."""
    return [[row[i] for row in rows] for i in range(width)]

"""Applying a bundle's plan (:mod:`loregraph.store.planning`) to the SQLite tables.

The rules of what a write adds to rows the store already holds are the planning module's;
here they become statements. For relations: a stored relation keeps its id and fact (filled
in when empty); ``valid_at`` becomes the earliest known, ``invalid_at``/``expired_at`` take
the bundle's value when it gives one; ``weight`` and ``confidence`` are recomputed afterwards
(see :mod:`.cleanup`).

New rows get explicit, increasing pks (``max(pk) + 1`` onwards, safe inside the write
transaction) so that nothing has to be read back after an ``executemany``.
"""

from __future__ import annotations

import json
import sqlite3

from loregraph.models import DocumentBundle
from loregraph.store.planning import (
    BundlePlan,
    RelationGroup,
    StoredEntity,
    plan_bundle,
    referenced_ids,
    unknown_keys,
)
from loregraph.store.rows import iso, iso_or_none
from loregraph.store.sqlite.cleanup import alias_fields
from loregraph.store.sqlite.fts import index_entities, index_relations, unindex_relations
from loregraph.store.sqlite.rows import IN_JSON, json_list
from loregraph.store.vectors import vector_to_blob


def next_pk(conn: sqlite3.Connection, table: str) -> int:
    """The first free pk of ``table``."""
    row = conn.execute(f"SELECT coalesce(max(pk), 0) + 1 FROM {table}").fetchone()
    return int(row[0])


def plan_entities(
    conn: sqlite3.Connection, bundle: DocumentBundle
) -> tuple[BundlePlan, dict[str, int]]:
    """The bundle's plan and the pk of every final entity id (new ones get the next free
    pks, in bundle order). Raises :class:`ValueError` for an inconsistent bundle."""
    ids = {write.entity.id for write in bundle.entities} | referenced_ids(bundle)
    stored: dict[str, StoredEntity] = {}
    pks: dict[str, int] = {}
    for pk, entity_id, scope, key in conn.execute(
        f"SELECT pk, id, scope, name_key FROM entities WHERE id IN {IN_JSON}", (json_list(ids),)
    ):
        stored[entity_id] = StoredEntity(entity_id, scope, key)
        pks[entity_id] = pk
    by_key: dict[str, str] = {}
    for pk, entity_id, key in conn.execute(
        f"SELECT pk, id, name_key FROM entities WHERE scope = ? AND name_key IN {IN_JSON}",
        (bundle.document.scope, json_list(unknown_keys(bundle, stored))),
    ):
        by_key[key] = entity_id
        pks[entity_id] = pk
    plan = plan_bundle(bundle, stored, by_key)
    first = next_pk(conn, "entities")
    for offset, entity_id in enumerate(plan.new):
        pks[entity_id] = first + offset
    return plan, pks


def write_entities(
    conn: sqlite3.Connection,
    plan: BundlePlan,
    pks: dict[str, int],
    scope: str,
    doc_pk: int,
    chunks: dict[str, int],
    now: str,
) -> None:
    """Insert the new entities, update the stored ones, add the document's contributions."""
    counts = plan.mention_totals()
    rows = []
    for entity_id in plan.new:
        item = plan.listed[entity_id]
        aliases_json, search_keys = alias_fields(item.key, plan.aliases.get(entity_id, {}))
        rows.append((
            pks[entity_id], entity_id, scope, item.entity.name, item.key, item.type,
            item.description(), aliases_json, search_keys, counts.get(entity_id, 0),
            item.salience, item.confidence, iso(item.entity.created_at), now,
        ))  # fmt: skip
    conn.executemany(
        "INSERT INTO entities(pk, id, scope, name, name_key, type, description, aliases, "
        "search_keys, mention_count, salience, confidence, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    index_entities(conn, json_list(row[0] for row in rows))
    updated = [(pks[entity_id], plan.listed[entity_id]) for entity_id in plan.updated]
    conn.executemany(
        "UPDATE entities SET type = CASE WHEN type = '' THEN ? ELSE type END, "
        "salience = max(salience, ?), confidence = max(confidence, ?), updated_at = ? "
        "WHERE pk = ?",
        [(item.type, item.salience, item.confidence, now, pk) for pk, item in updated],
    )
    conn.executemany(
        "INSERT INTO entity_vectors(entity, embedding) VALUES (?, ?) "
        "ON CONFLICT(entity) DO UPDATE SET embedding = excluded.embedding",
        [
            (pks[entity_id], vector_to_blob(item.embedding))
            for entity_id, item in plan.listed.items()
            if item.embedding is not None
        ],
    )
    _write_contributions(conn, plan, pks, doc_pk, chunks)


def _write_contributions(
    conn: sqlite3.Connection,
    plan: BundlePlan,
    pks: dict[str, int],
    doc_pk: int,
    chunks: dict[str, int],
) -> None:
    """The document's descriptions (with its salience and confidence), aliases and mentions
    of its entities."""
    conn.executemany(
        "INSERT INTO entity_descriptions(entity, document, description, salience, confidence) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (pks[entity_id], doc_pk, item.description(), item.salience, item.confidence)
            for entity_id, item in plan.listed.items()
        ],
    )
    conn.executemany(
        "INSERT INTO entity_aliases(entity, alias_key, document, alias) VALUES (?, ?, ?, ?)",
        [
            (pks[entity_id], key, doc_pk, surface)
            for entity_id, surfaces in plan.aliases.items()
            for key, surface in surfaces.items()
        ],
    )
    conn.executemany(
        "INSERT INTO mentions(entity, chunk, surface, count) VALUES (?, ?, ?, ?)",
        [
            (pks[entity_id], chunks[chunk_id], surface, count)
            for (entity_id, chunk_id, surface), count in plan.mentions.items()
        ],
    )


def write_relations(
    conn: sqlite3.Connection,
    groups: dict[tuple[int, str, int, str], RelationGroup],
    scope: str,
    doc_pk: int,
    chunks: dict[str, int],
) -> set[int]:
    """Upsert the relations (by source pk, type, target pk, statement) and add their
    evidence; returns the pks of the stored relations among them."""
    if not groups:
        return set()
    stored = _stored_relations(conn, list(groups))
    first = next_pk(conn, "relations")
    new_rows, updates, evidence = [], [], []
    facts: dict[int, str] = {}
    for key, group in groups.items():
        rel, confidence = group.relation, group.confidence
        valid_at, invalid_at = iso_or_none(rel.valid_at), iso_or_none(rel.invalid_at)
        expired_at = iso_or_none(rel.expired_at)
        pk = stored.get(key)
        if pk is not None:
            updates.append((valid_at, invalid_at, expired_at, pk))
            if rel.fact:
                facts[pk] = rel.fact
        else:
            pk, first = first, first + 1
            new_rows.append((
                pk, rel.id, scope, key[0], key[2], rel.type, rel.fact, float(len(group.evidence)),
                confidence, valid_at, invalid_at, iso(rel.created_at), expired_at,
                rel.invalidated_by, key[3],
            ))  # fmt: skip
        evidence += [
            (pk, doc_pk, chunks[chunk_id] if chunk_id else None, sentence, start, end, confidence)
            for chunk_id, sentence, start, end in group.evidence
        ]
    conn.executemany(
        "INSERT INTO relations(pk, id, scope, source, target, type, fact, weight, confidence, "
        "valid_at, invalid_at, created_at, expired_at, invalidated_by, statement) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        new_rows,
    )
    index_relations(conn, json_list(row[0] for row in new_rows))
    conn.executemany(
        "UPDATE relations SET "
        "valid_at = CASE WHEN ?1 IS NULL THEN valid_at WHEN valid_at IS NULL THEN ?1 "
        "ELSE min(valid_at, ?1) END, "
        "invalid_at = coalesce(?2, invalid_at), expired_at = coalesce(?3, expired_at) "
        "WHERE pk = ?4",
        updates,
    )
    _fill_facts(conn, facts)
    conn.executemany(
        "INSERT INTO relation_evidence(relation, document, chunk, sentence, start, "
        '"end", confidence) VALUES (?, ?, ?, ?, ?, ?, ?)',
        evidence,
    )
    return set(stored.values())


def _stored_relations(
    conn: sqlite3.Connection, keys: list[tuple[int, str, int, str]]
) -> dict[tuple[int, str, int, str], int]:
    """``{(source pk, type, target pk, statement): pk}`` of the stored relations among
    ``keys``."""
    rows = conn.execute(
        "SELECT r.pk, r.source, r.type, r.target, r.statement FROM json_each(?) AS j "
        "CROSS JOIN relations AS r ON r.source = json_extract(j.value, '$[0]') "
        "AND r.type = json_extract(j.value, '$[1]') "
        "AND r.target = json_extract(j.value, '$[2]') "
        "AND r.statement = json_extract(j.value, '$[3]')",
        (json.dumps([list(key) for key in keys], ensure_ascii=False),),
    )
    return {(source, kind, target, said): pk for pk, source, kind, target, said in rows}


def _fill_facts(conn: sqlite3.Connection, facts: dict[int, str]) -> None:
    """Give stored relations that have no fact text the bundle's fact."""
    if not facts:
        return
    empty = [
        pk
        for (pk,) in conn.execute(
            f"SELECT pk FROM relations WHERE pk IN {IN_JSON} AND fact = ''", (json_list(facts),)
        )
    ]
    if not empty:
        return
    pks = json_list(empty)
    unindex_relations(conn, pks)
    conn.executemany(
        "UPDATE relations SET fact = ? WHERE pk = ?", [(facts[pk], pk) for pk in empty]
    )
    index_relations(conn, pks)

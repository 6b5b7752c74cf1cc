"""Writing a :class:`~loregraph.store.plan.WritePlan` into the PostgreSQL tables, inside the
caller's transaction.

Every derived value (counts, descriptions, aliases, scores, weights, facts derived again)
is the plan's; here the plan's ids become the tables' pks, the search vectors are made
(``tsvector`` of a chunk's text and title, of an entity's name, aliases and description; a
relation's is a generated column) and the name keys are kept by entity type. Deleting a
document, an entity or a relation takes what hangs off it by cascade.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from loregraph.store.plan import WritePlan
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import fetch
from loregraph.store.postgres.vectors import vector_param
from loregraph.store.sqlplan import entity_ids, evidence_rows, relation_changes

_ENTITY_SEARCH = (
    "setweight(to_tsvector('english', %(name)s), 'A') "
    "|| setweight(to_tsvector('english', array_to_string(%(aliases)s::text[], ' ')), 'B') "
    "|| setweight(to_tsvector('english', %(description)s), 'C')"
)
_RELATION = (
    "id, scope, source, target, type, fact, weight, confidence, valid_at, invalid_at, "
    "created_at, expired_at, invalidated_by, statement"
)


async def apply_plan(conn: Conn, plan: WritePlan) -> int:
    """Carry out ``plan``; returns the scope's new graph version."""
    if plan.replace:
        await conn.execute("DELETE FROM documents WHERE id = %s", (plan.document_id,))
        await conn.execute(
            "UPDATE relations SET invalid_at = NULL, expired_at = NULL, invalidated_by = NULL "
            "WHERE invalidated_by = %s",
            (plan.document_id,),
        )
    await conn.execute("DELETE FROM relations WHERE id = ANY(%s)", (plan.dead_relations,))
    await conn.execute("DELETE FROM entities WHERE id = ANY(%s)", (plan.dead_entities,))
    doc_pk, chunks = None, {}
    if plan.document is not None:
        doc = plan.document
        [(doc_pk,)] = await fetch(
            conn,
            f"INSERT INTO documents ({', '.join(doc)}) "
            f"VALUES ({', '.join(f'%({name})s' for name in doc)}) RETURNING pk",
            doc,
        )
        chunks = await _write_chunks(conn, plan, doc_pk)
    entities = await _write_entities(conn, plan)
    await _write_contributions(conn, plan, doc_pk, chunks, entities)
    await _write_relations(conn, plan, doc_pk, chunks, entities)
    await end_relations(conn, plan.invalidations)
    [(version,)] = await fetch(
        conn,
        "INSERT INTO graph_versions (scope, version) VALUES (%s, 1) ON CONFLICT (scope) "
        "DO UPDATE SET version = graph_versions.version + 1 RETURNING version",
        (plan.scope,),
    )
    return int(version)


async def end_relations(conn: Conn, ends: Sequence[dict[str, Any]]) -> None:
    """End relations: ``{id, invalid_at, expired_at, invalidated_by}`` rows."""
    await _many(
        conn,
        "UPDATE relations SET invalid_at = %(invalid_at)s, expired_at = %(expired_at)s, "
        "invalidated_by = %(invalidated_by)s WHERE id = %(id)s",
        ends,
    )


async def _many(conn: Conn, sql: str, rows: Iterable[dict[str, Any]]) -> None:
    listed = list(rows)
    if listed:
        async with conn.cursor() as cursor:
            await cursor.executemany(sql, listed)


async def _pks(conn: Conn, table: str, ids: Iterable[str]) -> dict[str, int]:
    rows = await fetch(conn, f"SELECT id, pk FROM {table} WHERE id = ANY(%s)", (sorted(set(ids)),))
    return {record_id: int(pk) for record_id, pk in rows}


def _vector(row: dict[str, Any]) -> dict[str, Any]:
    """``dim`` and ``vector`` (pgvector's binary form) of a row's ``embedding``."""
    dim, vector = vector_param(row.get("embedding"))
    return {"dim": dim, "vector": vector}


async def _write_chunks(conn: Conn, plan: WritePlan, doc_pk: int) -> dict[str, int]:
    """Insert the chunks with their search vectors; returns chunk id -> pk."""
    await _many(
        conn,
        'INSERT INTO chunks (id, document, scope, seq, start, "end", text, token_count, '
        "search, dim, embedding) VALUES (%(id)s, %(doc)s, %(scope)s, %(seq)s, "
        "%(char_start)s, %(char_end)s, %(text)s, %(token_count)s, "
        "setweight(to_tsvector('english', %(text)s), 'A') "
        "|| setweight(to_tsvector('english', %(title)s), 'B'), %(dim)s, %(vector)b)",
        [row | {"doc": doc_pk} | _vector(row) for row in plan.chunks],
    )
    return await _pks(conn, "chunks", [row["id"] for row in plan.chunks])


async def _write_entities(conn: Conn, plan: WritePlan) -> dict[str, int]:
    """New entities, the stored ones recomputed, and their name keys; returns the pk of
    every entity the plan names."""
    await _many(
        conn,
        "INSERT INTO entities (id, scope, name, name_key, type, description, aliases, "
        "mention_count, salience, confidence, created_at, updated_at, search, dim, embedding) "
        "VALUES (%(id)s, %(scope)s, %(name)s, %(name_key)s, %(type)s, %(description)s, "
        "%(aliases)s, %(mention_count)s, %(salience)s, %(confidence)s, %(created_at)s, "
        f"%(updated_at)s, {_ENTITY_SEARCH}, %(dim)s, %(vector)b)",
        [row | _vector(row) for row in plan.new_entities],
    )
    names = await _pks(conn, "entities", [row["id"] for row in plan.entity_updates])
    await _many(
        conn,
        "UPDATE entities SET type = %(type)s, description = %(description)s, "
        "aliases = %(aliases)s, mention_count = %(mention_count)s, salience = %(salience)s, "
        "confidence = %(confidence)s, updated_at = %(updated_at)s, "
        f"search = {_ENTITY_SEARCH.replace('%(name)s', 'name')}, "
        "dim = coalesce(%(dim)s, dim), embedding = coalesce(%(vector)b, embedding) "
        "WHERE pk = %(pk)s",
        [row | _vector(row) | {"pk": names[row["id"]]} for row in plan.entity_updates],
    )
    pks = await _pks(conn, "entities", entity_ids(plan))
    await conn.execute(
        "DELETE FROM entity_keys WHERE entity = ANY(%s)",
        ([pks[i] for i in plan.key_owners if i in pks],),
    )
    await conn.execute(
        "INSERT INTO entity_keys (entity, key, scope, type) "
        "SELECT e.pk, k.key, e.scope, e.type FROM unnest(%s::text[], %s::text[]) AS k(id, key) "
        "JOIN entities AS e ON e.id = k.id WHERE k.key <> '' ON CONFLICT DO NOTHING",
        ([k["entity_id"] for k in plan.keys], [k["key"] for k in plan.keys]),
    )
    return pks


async def _write_contributions(
    conn: Conn, plan: WritePlan, doc_pk: int | None, chunks: dict[str, int], pks: dict[str, int]
) -> None:
    """The document's descriptions (with its scores), aliases, mentions and merges."""
    mine = {"document": doc_pk}
    await _many(
        conn,
        "INSERT INTO entity_descriptions (entity, document, description, salience, confidence) "
        "VALUES (%(entity)s, %(document)s, %(description)s, %(salience)s, %(confidence)s)",
        [c | mine | {"entity": pks[c["entity_id"]]} for c in plan.contributions if c["listed"]],
    )
    await _many(
        conn,
        "INSERT INTO entity_aliases (entity, alias_key, document, alias) "
        "VALUES (%(entity)s, %(key)s, %(document)s, %(alias)s)",
        [
            mine | {"entity": pks[c["entity_id"]], "key": key, "alias": surface}
            for c in plan.contributions
            for key, surface in json.loads(c["aliases"]).items()
        ],
    )
    await _many(
        conn,
        "INSERT INTO mentions (entity, chunk, surface, count) "
        "VALUES (%(entity)s, %(chunk)s, %(surface)s, %(count)s)",
        [
            m | {"entity": pks[m["entity_id"]], "chunk": chunks[m["chunk_id"]]}
            for m in plan.mentions
        ],
    )
    await _many(
        conn,
        "INSERT INTO merges (scope, entity, surface, rule, score, document, created_at) "
        "VALUES (%(scope)s, %(entity)s, %(surface)s, %(rule)s, %(score)s, %(document)s, "
        "%(created_at)s)",
        [m | mine | {"entity": pks[m["entity_id"]]} for m in plan.merges],
    )


async def _write_relations(
    conn: Conn,
    plan: WritePlan,
    doc_pk: int | None,
    chunks: dict[str, int],
    entities: dict[str, int],
) -> None:
    """New relations, the stored ones recomputed, and the document's evidence."""
    await _many(
        conn,
        f"INSERT INTO relations ({_RELATION}) "
        f"VALUES ({', '.join(f'%({name})s' for name in _RELATION.split(', '))})",
        [
            r | {"source": entities[r["source_id"]], "target": entities[r["target_id"]]}
            for r in plan.new_relations
        ],
    )
    for names, rows in relation_changes(plan).items():
        sets = ", ".join(f"{name} = %({name})s" for name in names)
        await _many(conn, f"UPDATE relations SET {sets} WHERE id = %(id)s", rows)
    pks = await _pks(conn, "relations", [x["relation_id"] for x in plan.evidence])
    await _many(
        conn,
        'INSERT INTO relation_evidence (relation, document, chunk, sentence, start, "end", '
        "confidence) VALUES (%(relation)s, %(document)s, %(chunk)s, %(sentence)s, "
        "%(char_start)s, %(char_end)s, %(confidence)s)",
        evidence_rows(plan, pks, doc_pk, chunks),
    )

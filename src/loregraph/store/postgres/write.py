"""Writing a document bundle, deleting a document, ending a relation and editing an entity,
each inside one transaction (the caller's:
:meth:`~loregraph.store.postgres.connection.Database.write`) that first takes the store's
write lock. A write or delete is planned by :mod:`loregraph.store.plan` over reads made in
the transaction (:mod:`.state`), as every backend's is, then applied (:mod:`.apply`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from loregraph.models import DeleteReport, DocumentBundle, Entity, Relation, utcnow
from loregraph.store.plan import invalidation_rows, plan_delete, plan_write
from loregraph.store.planned import entity_edit
from loregraph.store.postgres.apply import apply_plan, end_relations
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.reads import get_entities
from loregraph.store.postgres.rows import fetch
from loregraph.store.postgres.state import PgWriteState
from loregraph.store.postgres.vectors import vector_dim
from loregraph.store.postgres.versions import bump_graph_version

WRITE_LOCK = "SELECT pg_advisory_xact_lock(hashtext(current_schema()))"
"""One writer at a time per store (a schema), in whichever process; released at the end of
the transaction."""


def vector_dims(bundle: DocumentBundle) -> set[int]:
    """The embedding dimensions a bundle writes."""
    dims = {vector_dim(chunk.embedding) for chunk in bundle.chunks}
    dims.update(vector_dim(write.entity.embedding) for write in bundle.entities)
    return {dim for dim in dims if dim}


async def write_bundle(conn: Conn, bundle: DocumentBundle) -> int:
    """Write (or replace) a document and its derived data; returns the new graph version."""
    await conn.execute(WRITE_LOCK)
    return await apply_plan(conn, await plan_write(PgWriteState(conn), bundle))


async def delete_document(
    conn: Conn, document_id: str, ends: Sequence[Relation] = ()
) -> tuple[DeleteReport, int | None]:
    """Delete a document and exactly what only it supported; then apply ``ends``
    (relations ended, as a bundle's invalidations).

    Returns the report and the scope's new graph version (``None``: no such document).
    """
    await conn.execute(WRITE_LOCK)
    plan = await plan_delete(PgWriteState(conn), document_id, ends)
    if plan is None:
        return DeleteReport(document_id=document_id), None
    return plan.report, await apply_plan(conn, plan)


async def invalidate_relation(
    conn: Conn, relation_id: str, invalid_at: datetime, by: str | None
) -> bool:
    """End a relation (``invalid_at``, ``expired_at`` now, ``invalidated_by``); ``False``
    when there is no such relation."""
    await conn.execute(WRITE_LOCK)
    found = await fetch(conn, "SELECT scope FROM relations WHERE id = %s", (relation_id,))
    if not found:
        return False
    ended = Relation(relation_id, "", "", "", invalidated_by=by)
    ended.invalid_at, ended.expired_at = invalid_at, utcnow()
    await end_relations(conn, invalidation_rows([ended]))
    await bump_graph_version(conn, found[0][0])
    return True


async def update_entity(
    conn: Conn, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); its aliases, keys and
    search vector follow."""
    await conn.execute(WRITE_LOCK)
    edit = await entity_edit(PgWriteState(conn), entity_id, name, kind)
    if edit is None:
        return None
    changes = edit.changes
    [(pk, scope)] = await fetch(
        conn,
        "UPDATE entities SET name = coalesce(%(name)s, name), name_key = %(name_key)s, "
        "type = coalesce(%(type)s, type), aliases = %(aliases)s, updated_at = %(updated_at)s, "
        "search = setweight(to_tsvector('english', coalesce(%(name)s, name)), 'A') "
        "|| setweight(to_tsvector('english', array_to_string(%(aliases)s::text[], ' ')), 'B') "
        "|| setweight(to_tsvector('english', description), 'C') "
        "WHERE id = %(id)s RETURNING pk, scope",
        {"name": None, "type": None} | changes | {"id": entity_id},
    )
    await conn.execute("DELETE FROM entity_keys WHERE entity = %s", (pk,))
    await conn.execute(
        "INSERT INTO entity_keys (entity, key, scope, type) SELECT pk, k, scope, type "
        "FROM entities, unnest(%s::text[]) AS k WHERE pk = %s AND k <> '' ON CONFLICT DO NOTHING",
        (sorted({key for key, _ in edit.keys}), pk),
    )
    await bump_graph_version(conn, scope)
    return (await get_entities(conn, [entity_id]))[0]


ANALYZED_TABLES = "documents, chunks, entities, entity_keys, mentions, relations"


async def analyze(conn: Conn) -> None:
    """Refresh the planner's row estimates after a large write.

    Right after a bulk load PostgreSQL still believes the tables are nearly empty and sorts
    every row of a scope instead of using the HNSW vector index (measured: 33 ms instead of
    about 2 ms for a top-10 over 5,000 entities) until autovacuum analyzes them.
    """
    await conn.execute(f"ANALYZE {ANALYZED_TABLES}")

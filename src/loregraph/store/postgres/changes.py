"""Merge decisions, the audit log and hand edits of an entity (rename, retype)."""

from __future__ import annotations

from loregraph.models import Entity, name_key, utcnow
from loregraph.store.changes import (
    AUDIT_FIELDS,
    DECISION_FIELDS,
    AuditEntry,
    Decision,
    audit_of,
    audit_values,
    decision_of,
    decision_values,
)
from loregraph.store.postgres.cleanup import bump_graph_version, recompute
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.reads import get_entities
from loregraph.store.postgres.rows import CODEC
from loregraph.store.rows import columns

_DECISIONS = columns(DECISION_FIELDS)
_AUDIT = columns(AUDIT_FIELDS)


async def add_decision(conn: Conn, decision: Decision) -> None:
    """Insert or replace a decision."""
    updates = ", ".join(f"{name} = excluded.{name}" for name in DECISION_FIELDS[3:])
    await conn.execute(
        f"INSERT INTO merge_decisions ({_DECISIONS}) "
        f"VALUES ({', '.join(['%s'] * len(DECISION_FIELDS))}) "
        f"ON CONFLICT (scope, kind, merge_id) DO UPDATE SET {updates}",
        decision_values(decision, CODEC),
    )


async def remove_decision(conn: Conn, scope: str, kind: str, merge_id: str) -> bool:
    """Delete a decision; whether there was one."""
    cursor = await conn.execute(
        "DELETE FROM merge_decisions WHERE scope = %s AND kind = %s AND merge_id = %s",
        (scope, kind, merge_id),
    )
    return cursor.rowcount > 0


async def list_decisions(conn: Conn, scope: str) -> list[Decision]:
    """A scope's decisions, oldest first."""
    cursor = await conn.execute(
        f"SELECT {_DECISIONS} FROM merge_decisions WHERE scope = %s "
        "ORDER BY created_at, kind, merge_id",
        (scope,),
    )
    return [decision_of(row, CODEC) for row in await cursor.fetchall()]


async def add_audit(conn: Conn, entry: AuditEntry) -> None:
    """Append an audit entry."""
    await conn.execute(
        f"INSERT INTO audit_log ({_AUDIT}) VALUES ({', '.join(['%s'] * len(AUDIT_FIELDS))})",
        audit_values(entry, CODEC),
    )


async def list_audit(conn: Conn, scope: str, limit: int | None) -> list[AuditEntry]:
    """A scope's audit log, newest first."""
    cursor = await conn.execute(
        f"SELECT {_AUDIT} FROM audit_log WHERE scope = %s ORDER BY pk DESC LIMIT %s",
        (scope, limit),
    )
    return [audit_of(row, CODEC) for row in await cursor.fetchall()]


async def update_entity(
    conn: Conn, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases, keys and the
    text vector follow (a negative count makes :func:`recompute` rewrite them all)."""
    cursor = await conn.execute(
        "UPDATE entities SET name = coalesce(%s, name), name_key = coalesce(%s, name_key), "
        "type = coalesce(%s, type), mention_count = -1 WHERE id = %s RETURNING pk, scope",
        (name, None if name is None else name_key(name), kind, entity_id),
    )
    row = await cursor.fetchone()
    if row is None:
        return None
    pk, scope = row
    await recompute(conn, {pk}, set(), utcnow())
    await bump_graph_version(conn, scope)
    return (await get_entities(conn, [entity_id]))[0]

"""Merge decisions, the audit log and hand edits of an entity (rename, retype).

Decisions are ``(:LgDecision)`` nodes (one per scope, kind and merge id); audit entries are
``(:LgAudit)`` nodes numbered by a counter on the meta node, so that the log keeps its order
even when two entries share a time.
"""

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
from loregraph.store.cypher import state
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.reads import get_entities
from loregraph.store.cypher.records import CODEC
from loregraph.store.planning import alias_list
from loregraph.store.rows import columns, iso

_KEY = "{scope: $scope, kind: $kind, merge_id: $merge_id}"


def _sets(node: str, fields: tuple[str, ...]) -> str:
    return ", ".join(f"{node}.{name} = ${name}" for name in fields)


async def add_decision(conn: Connection, decision: Decision) -> None:
    """Insert or replace a decision."""
    params = dict(zip(DECISION_FIELDS, decision_values(decision, CODEC), strict=True))
    await conn.write(f"MERGE (d:LgDecision {_KEY}) SET {_sets('d', DECISION_FIELDS[3:])}", params)


async def remove_decision(conn: Connection, scope: str, kind: str, merge_id: str) -> bool:
    """Delete a decision; whether there was one."""
    params = {"scope": scope, "kind": kind, "merge_id": merge_id}
    rows = await conn.write(f"MATCH (d:LgDecision {_KEY}) DELETE d RETURN count(*)", params)
    return bool(rows and rows[0][0])


async def list_decisions(conn: Connection, scope: str) -> list[Decision]:
    """A scope's decisions, oldest first."""
    rows = await conn.read(
        f"MATCH (d:LgDecision {{scope: $scope}}) RETURN {columns(DECISION_FIELDS, 'd')} "
        "ORDER BY d.created_at, d.kind, d.merge_id",
        {"scope": scope},
    )
    return [decision_of(row, CODEC) for row in rows]


async def add_audit(conn: Connection, entry: AuditEntry) -> None:
    """Append an audit entry (numbered by the meta node's ``audit`` counter)."""
    params = dict(zip(AUDIT_FIELDS, audit_values(entry, CODEC), strict=True))
    await conn.write(
        "MATCH (m:LgMeta {key: 'meta'}) SET m.audit = coalesce(m.audit, 0) + 1 "
        f"WITH m CREATE (a:LgAudit) SET {_sets('a', AUDIT_FIELDS)}, a.ord = m.audit",
        params,
    )


async def list_audit(conn: Connection, scope: str, limit: int | None) -> list[AuditEntry]:
    """A scope's audit log, newest first."""
    tail = "" if limit is None else " LIMIT $limit"
    rows = await conn.read(
        f"MATCH (a:LgAudit {{scope: $scope}}) RETURN {columns(AUDIT_FIELDS, 'a')} "
        f"ORDER BY a.ord DESC{tail}",
        {"scope": scope, "limit": limit},
    )
    return [audit_of(row, CODEC) for row in rows]


async def update_entity(
    conn: Connection, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases and the name and
    alias keys follow the new name."""
    found = (await state.entity_states(conn, [entity_id], "")).get(entity_id)
    if found is None:
        return None
    key = found.key if name is None else name_key(name)
    surfaces, alias_keys = alias_list(key, found.aliases)
    keys = [{"key": key, "canonical": 1}] + [{"key": k, "canonical": 0} for k in alias_keys]
    params = {
        "id": entity_id,
        "name": name,
        "key": key,
        "type": kind,
        "aliases": surfaces,
        "alias_text": " ".join(surfaces),
        "now": iso(utcnow()),
        "keys": keys,
    }
    await conn.write("MATCH (k:LgKey {entity_id: $id}) DELETE k", params)
    await conn.write(
        "MATCH (e:LgEntity {id: $id}) SET e.name = coalesce($name, e.name), e.name_key = $key, "
        "e.type = coalesce($type, e.type), e.aliases = $aliases, e.alias_text = $alias_text, "
        "e.updated_at = $now WITH e UNWIND $keys AS x CREATE (k:LgKey) "
        "SET k.entity_id = e.id, k.scope = e.scope, k.key = x.key, k.canonical = x.canonical "
        "WITH DISTINCT e MERGE (s:LgScope {scope: e.scope}) "
        "SET s.version = coalesce(s.version, 0) + 1",
        params,
    )
    return (await get_entities(conn, [entity_id]))[0]

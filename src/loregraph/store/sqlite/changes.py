"""Merge decisions, the audit log and hand edits of an entity (rename, retype)."""

from __future__ import annotations

import sqlite3

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
from loregraph.store.rows import columns, iso
from loregraph.store.sqlite.cleanup import alias_fields, bump_graph_version
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.fts import index_entities, unindex_entities
from loregraph.store.sqlite.reads import get_entities
from loregraph.store.sqlite.rows import CODEC, json_list

_DECISIONS = columns(DECISION_FIELDS)
_AUDIT = columns(AUDIT_FIELDS)


def add_decision(conn: sqlite3.Connection, decision: Decision) -> None:
    """Insert or replace a decision."""
    with transaction(conn):
        conn.execute(
            f"INSERT OR REPLACE INTO merge_decisions({_DECISIONS}) "
            f"VALUES ({', '.join('?' * len(DECISION_FIELDS))})",
            decision_values(decision, CODEC),
        )


def remove_decision(conn: sqlite3.Connection, scope: str, kind: str, merge_id: str) -> bool:
    """Delete a decision; whether there was one."""
    with transaction(conn):
        cursor = conn.execute(
            "DELETE FROM merge_decisions WHERE scope = ? AND kind = ? AND merge_id = ?",
            (scope, kind, merge_id),
        )
        return cursor.rowcount > 0


def list_decisions(conn: sqlite3.Connection, scope: str) -> list[Decision]:
    """A scope's decisions, oldest first."""
    rows = conn.execute(
        f"SELECT {_DECISIONS} FROM merge_decisions WHERE scope = ? "
        "ORDER BY created_at, kind, merge_id",
        (scope,),
    )
    return [decision_of(row, CODEC) for row in rows]


def add_audit(conn: sqlite3.Connection, entry: AuditEntry) -> None:
    """Append an audit entry."""
    with transaction(conn):
        conn.execute(
            f"INSERT INTO audit_log({_AUDIT}) VALUES ({', '.join('?' * len(AUDIT_FIELDS))})",
            audit_values(entry, CODEC),
        )


def list_audit(conn: sqlite3.Connection, scope: str, limit: int | None) -> list[AuditEntry]:
    """A scope's audit log, newest first."""
    rows = conn.execute(
        f"SELECT {_AUDIT} FROM audit_log WHERE scope = ? ORDER BY pk DESC LIMIT ?",
        (scope, -1 if limit is None else limit),
    )
    return [audit_of(row, CODEC) for row in rows]


def update_entity(
    conn: sqlite3.Connection, entity_id: str, name: str | None, kind: str | None
) -> Entity | None:
    """Rename and/or retype an entity (``None`` for an unknown id); aliases, search keys and
    the text index follow the new name."""
    with transaction(conn):
        row = conn.execute("SELECT pk, scope FROM entities WHERE id = ?", (entity_id,)).fetchone()
        if row is None:
            return None
        pk, scope = row
        pks = json_list([pk])
        unindex_entities(conn, pks)
        if name is not None:
            aliases = dict(
                conn.execute(
                    "SELECT alias_key, min(alias) FROM entity_aliases WHERE entity = ? "
                    "GROUP BY alias_key",
                    (pk,),
                ).fetchall()
            )
            aliases_json, search_keys = alias_fields(name_key(name), aliases)
            conn.execute(
                "UPDATE entities SET name = ?, name_key = ?, aliases = ?, search_keys = ? "
                "WHERE pk = ?",
                (name, name_key(name), aliases_json, search_keys, pk),
            )
        if kind is not None:
            conn.execute("UPDATE entities SET type = ? WHERE pk = ?", (kind, pk))
        conn.execute("UPDATE entities SET updated_at = ? WHERE pk = ?", (iso(utcnow()), pk))
        index_entities(conn, pks)
        bump_graph_version(conn, scope)
    return get_entities(conn, [entity_id])[0]

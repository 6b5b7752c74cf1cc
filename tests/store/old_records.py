"""Records a store of schema version 8 kept in its own tables (API keys, grants, scope
links, merge decisions, the audit log), and the check that a migrated store reads each
back as it was written."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from loregraph.access import Grant, Role, ScopeLink
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.sqlite.schema import CHANGE_TABLES, GRANT_TABLES, KEY_TABLES

CREATED = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
EARLIER = datetime(2026, 1, 1, tzinfo=UTC)
REVOKED = datetime(2026, 2, 1, tzinfo=UTC)


def before_the_ledger(conn: sqlite3.Connection, version: int) -> None:
    """Give a new SQLite store the record tables an older ``version`` had instead of its
    ledger (keys from 3, decisions and the audit log from 4, grants and links from 8)."""
    conn.execute("DROP TABLE ledger")
    tables = [(3, KEY_TABLES), (4, CHANGE_TABLES), (8, GRANT_TABLES)]
    conn.executescript("".join(script for since, script in tables if version >= since))


def _rows(mark: str, time: Any) -> list[tuple[str, tuple[Any, ...]]]:
    def insert(table: str, columns: str, values: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
        marks = ", ".join([mark] * len(values))
        return f"INSERT INTO {table} ({columns}) VALUES ({marks})", values

    key = "name, key_hash, roles, created_at, revoked_at"
    decision = (
        "scope, kind, merge_id, entity_id, surface, rule, score, document_id, principal, created_at"
    )
    audit = "scope, at, principal, action, subject, detail"
    return [
        insert("api_keys", key, ("ci", "h1", '{"team": "writer"}', time(CREATED), None)),
        insert("api_keys", key, ("old", "h0", "{}", time(EARLIER), time(REVOKED))),
        insert("grants", "principal, scope, role", ("ann", "family", "reader")),
        insert(
            "scope_links",
            "scope, linked, share, documents",
            ("family", "friends", "selective", '["doc_1"]'),
        ),
        insert(
            "merge_decisions",
            decision,
            (
                "default",
                "join",
                "mrg_1",
                "ent_1",
                "Bob Jones",
                "manual",
                0.9,
                None,
                "ann",
                time(CREATED),
            ),
        ),
        insert("audit_log", audit, ("default", time(EARLIER), "ann", "merge", "Bob", "first")),
        insert("audit_log", audit, ("default", time(CREATED), "ann", "rename", "Bob", "second")),
    ]


SQLITE_ROWS = _rows("?", lambda moment: moment.isoformat(timespec="microseconds"))
"""The records as a version 8 SQLite store held them (times as ISO text)."""
POSTGRES_ROWS = _rows("%s", lambda moment: moment)
"""The records as a version 8 PostgreSQL schema held them."""


def cypher_nodes() -> list[tuple[str, dict[str, Any]]]:
    """The records as a version 8 graph held them: a node each (times as ISO text)."""
    labels = {
        "api_keys": "LgApiKey",
        "grants": "LgGrant",
        "scope_links": "LgScopeLink",
        "merge_decisions": "LgDecision",
        "audit_log": "LgAudit",
    }
    nodes = []
    for n, (statement, values) in enumerate(SQLITE_ROWS):
        table = statement.split()[2]
        columns = statement.split("(", 1)[1].split(")", 1)[0].split(", ")
        props = {c: v for c, v in zip(columns, values, strict=True) if v is not None}
        if table == "audit_log":
            props["ord"] = n
        nodes.append((labels[table], props))
    return nodes


async def check(store: Store) -> None:
    """Every record reads back through the store's API as it was written; a new audit entry
    comes after the migrated ones."""
    listed = await store.list_api_keys()
    keys = [(k.name, k.key_hash, k.roles, k.created_at, k.revoked_at) for k in listed]
    assert keys == [
        ("old", "h0", {}, EARLIER, REVOKED),
        ("ci", "h1", {"team": Role.WRITER}, CREATED, None),
    ]
    found = await store.api_key_by_hash("h1")
    assert found is not None and found.name == "ci"
    assert await store.list_grants() == [Grant("ann", "family", Role.READER)]
    assert await store.scope_links() == [ScopeLink("family", "friends", "selective", ("doc_1",))]
    decision = Decision("join", "mrg_1", "ent_1", "Bob Jones", "default", "manual", 0.9, None,
                        "ann", CREATED)  # fmt: skip
    assert await store.list_decisions("default") == [decision]
    assert [e.detail for e in await store.list_audit("default")] == ["second", "first"]
    first = (await store.list_audit("default"))[-1]
    assert first == AuditEntry("merge", "Bob", "first", "ann", "default", EARLIER)
    await store.add_audit(AuditEntry("unmerge", "Bob", "third", "ann", "default", EARLIER))
    assert [e.detail for e in await store.list_audit("default", 2)] == ["third", "second"]

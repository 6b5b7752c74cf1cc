"""A version 2 SQLite store gains the merge decision and audit tables when it is opened, its
data kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from loregraph.store.base import SCHEMA_VERSION
from loregraph.store.changes import SPLIT, AuditEntry, Decision
from loregraph.store.sqlite import SqliteStore

from .old_records import before_the_ledger
from .scenarios import shared_pair


async def test_version_3_store_gets_the_change_tables(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        ids = await shared_pair(store)
    conn = sqlite3.connect(path)
    before_the_ledger(conn, 3)
    conn.execute("UPDATE meta SET value = 3 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert [e.id for e in await store.get_entities([ids["alice"]])] == [ids["alice"]]
        await store.add_decision(Decision(SPLIT, "mrg_1", ids["alice"], "Alice"))
        await store.add_audit(AuditEntry("unmerge", "mrg_1", principal="ann"))
        assert [d.merge_id for d in await store.list_decisions("default")] == ["mrg_1"]
        assert [e.principal for e in await store.list_audit("default")] == ["ann"]

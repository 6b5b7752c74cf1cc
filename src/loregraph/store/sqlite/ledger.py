"""The SQLite store's ledger (table ``ledger``, :mod:`loregraph.store.ledger`), run on the
store's worker thread; :class:`SqliteLedger` is the part of the store that calls it."""

from __future__ import annotations

import json
import sqlite3

from loregraph.store.ledger import Ledger, LedgerQuery, LedgerRow
from loregraph.store.sqlite.db import Database, transaction


def put(conn: sqlite3.Connection, row: LedgerRow, replace: bool) -> bool:
    """Insert ``row``, or replace the value of the row with its kind, part and key (keeping
    its ``seq``) when ``replace``; whether it was written."""
    on_conflict = "DO UPDATE SET value = excluded.value" if replace else "DO NOTHING"
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO ledger (kind, part, key, value) VALUES (?, ?, ?, ?) "
            f"ON CONFLICT (kind, part, key) {on_conflict}",
            (row.kind, row.part, row.key, json.dumps(row.value, sort_keys=True)),
        )
    return cursor.rowcount > 0


def insert_rows(conn: sqlite3.Connection, new: list[LedgerRow]) -> None:
    """Insert rows in order (the caller holds the transaction; none may exist already)."""
    conn.executemany(
        "INSERT INTO ledger (kind, part, key, value) VALUES (?, ?, ?, ?)",
        [(r.kind, r.part, r.key, json.dumps(r.value, sort_keys=True)) for r in new],
    )


def delete(conn: sqlite3.Connection, kind: str, part: str, key: str) -> bool:
    """Delete a row; whether there was one."""
    with transaction(conn):
        cursor = conn.execute(
            "DELETE FROM ledger WHERE kind = ? AND part = ? AND key = ?", (kind, part, key)
        )
    return cursor.rowcount > 0


def rows(conn: sqlite3.Connection, query: LedgerQuery) -> list[LedgerRow]:
    """The rows ``query`` asks for, by ``seq``."""
    where, params = "kind = ?", [query.kind]
    if query.part is not None:
        where, params = "kind = ? AND part = ?", [query.kind, query.part]
    order = "DESC" if query.newest_first else "ASC"
    found = conn.execute(
        f"SELECT kind, part, key, value FROM ledger WHERE {where} ORDER BY seq {order} LIMIT ?",
        (*params, -1 if query.limit is None else query.limit),
    )
    return [LedgerRow(k, p, key, json.loads(value)) for k, p, key, value in found]


class SqliteLedger(Ledger):
    """The ledger primitives of the SQLite stores (over their :class:`Database`)."""

    _db: Database

    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        return await self._db.run(put, row, replace)

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        return await self._db.run(delete, kind, part, key)

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        return await self._db.run(rows, query)

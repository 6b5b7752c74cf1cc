"""The PostgreSQL store's ledger (table ``ledger``, migration 9; see
:mod:`loregraph.store.ledger`); :class:`PostgresLedger` is the part of the store that calls
it."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from loregraph.store.ledger import Ledger, LedgerQuery, LedgerRow
from loregraph.store.postgres.connection import Conn, Database


async def put(conn: Conn, row: LedgerRow, replace: bool) -> bool:
    """Insert ``row``, or replace the value of the row with its kind, part and key (keeping
    its ``seq``) when ``replace``; whether it was written."""
    on_conflict = "DO UPDATE SET value = excluded.value" if replace else "DO NOTHING"
    cursor = await conn.execute(
        "INSERT INTO ledger (kind, part, key, value) VALUES (%s, %s, %s, %s) "
        f"ON CONFLICT (kind, part, key) {on_conflict}",
        (row.kind, row.part, row.key, Jsonb(row.value)),
    )
    return cursor.rowcount > 0


async def delete(conn: Conn, kind: str, part: str, key: str) -> bool:
    """Delete a row; whether there was one."""
    cursor = await conn.execute(
        "DELETE FROM ledger WHERE kind = %s AND part = %s AND key = %s", (kind, part, key)
    )
    return cursor.rowcount > 0


async def rows(conn: Conn, query: LedgerQuery) -> list[LedgerRow]:
    """The rows ``query`` asks for, by ``seq``."""
    where = "kind = %(kind)s" + ("" if query.part is None else " AND part = %(part)s")
    order = "DESC" if query.newest_first else "ASC"
    cursor = await conn.execute(
        f"SELECT kind, part, key, value FROM ledger WHERE {where} ORDER BY seq {order} "
        "LIMIT %(limit)s",
        {"kind": query.kind, "part": query.part, "limit": query.limit},
    )
    return [LedgerRow(k, p, key, value) for k, p, key, value in await cursor.fetchall()]


class PostgresLedger(Ledger):
    """The ledger primitives of the PostgreSQL store (over its :class:`Database`)."""

    _db: Database

    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        return await self._db.write(put, row, replace)

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        return await self._db.write(delete, kind, part, key)

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        return await self._db.read(rows, query)

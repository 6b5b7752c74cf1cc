"""Rewriting a ``surrealkv`` store so that what was removed is gone from its files.

SurrealKV is a log-structured engine: a deleted or overwritten value stays in its table
files until the engine compacts them, which cannot be asked for from SurrealQL. So when a
store has removed anything (a forget, a delete, a document replaced, an entity renamed), it
is rewritten when it closes: every live record is copied into a new directory, which then
takes the old one's place. A rewrite that stops part-way is finished or dropped by the next
:func:`~loregraph.store.swap.recover`: the new directory only replaces the old one once it
is complete.
"""

from __future__ import annotations

from pathlib import Path

from loregraph.store.surreal.connection import SurrealConnection, SurrealTarget
from loregraph.store.surreal.schema import VECTOR_TABLES, statements
from loregraph.store.swap import fresh_beside, swap_in

PAGE = 2000
RELATION_TABLES = ("relates_to", "mentions")


async def rewrite(conn: SurrealConnection, dims: dict[str, int]) -> None:
    """Copy every live record of the open ``surrealkv`` store into a fresh directory, close
    the store and put the copy in its place."""
    path = Path(conn.target.path)
    new = fresh_beside(path)
    target = SurrealTarget("surrealkv", str(new), conn.target.namespace, conn.target.database)
    copy = SurrealConnection(target)
    await copy.open()
    try:
        await copy.run(";\n".join(statements()))
        info = await conn.value("INFO FOR DB")
        for table in sorted((info or {}).get("tables") or {}):
            verb = "INSERT RELATION INTO" if table in RELATION_TABLES else "INSERT INTO"
            start = 0
            while rows := await conn.rows(
                f"SELECT * FROM {table} ORDER BY id START {start} LIMIT {PAGE}"
            ):
                await copy.run(f"{verb} {table} $rows", {"rows": rows})
                start += len(rows)
        for table in VECTOR_TABLES:
            if table in dims:
                await copy.run(
                    f"DEFINE INDEX IF NOT EXISTS {table}_vector ON {table}_vector FIELDS embedding "
                    f"HNSW DIMENSION {int(dims[table])} DIST COSINE"
                )
    finally:
        await copy.close()
    await conn.close()
    swap_in(path)

"""The PostgreSQL store's graph version per scope (every write moves its scope's version,
which the caches key on)."""

from __future__ import annotations

from loregraph.store.postgres.connection import Conn


async def bump_graph_version(conn: Conn, scope: str) -> int:
    """Increment the scope's graph version counter; return the new value."""
    cursor = await conn.execute(
        "INSERT INTO graph_versions (scope, version) VALUES (%s, 1) ON CONFLICT (scope) "
        "DO UPDATE SET version = graph_versions.version + 1 RETURNING version",
        (scope,),
    )
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def read_graph_version(conn: Conn, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    cursor = await conn.execute("SELECT version FROM graph_versions WHERE scope = %s", (scope,))
    row = await cursor.fetchone()
    return 0 if row is None else int(row[0])

"""The PostgreSQL store's API keys (table ``api_keys``)."""

from __future__ import annotations

from datetime import datetime

from psycopg import errors

from loregraph.access import ApiKey
from loregraph.store.apikeys import KEY_FIELDS, duplicate_key, key_from_row, key_values
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import CODEC
from loregraph.store.rows import columns

_COLUMNS = columns(KEY_FIELDS)


async def add_key(conn: Conn, key: ApiKey) -> None:
    """Insert ``key``; a taken name or hash raises :class:`InputError`."""
    try:
        async with conn.transaction():
            await conn.execute(
                f"INSERT INTO api_keys ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s)",
                key_values(key, CODEC.time),
            )
    except errors.UniqueViolation:
        raise duplicate_key(key.name) from None


async def key_by_hash(conn: Conn, key_hash: str) -> ApiKey | None:
    """The key with this hash."""
    cursor = await conn.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash = %s", (key_hash,))
    row = await cursor.fetchone()
    return None if row is None else key_from_row(row, CODEC.read_time)


async def list_keys(conn: Conn) -> list[ApiKey]:
    """Every key, oldest first."""
    cursor = await conn.execute(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at, pk")
    return [key_from_row(row, CODEC.read_time) for row in await cursor.fetchall()]


async def revoke_key(conn: Conn, name: str, at: datetime) -> bool:
    """Set ``revoked_at`` unless set; whether the key exists."""
    await conn.execute(
        "UPDATE api_keys SET revoked_at = %s WHERE name = %s AND revoked_at IS NULL",
        (CODEC.time(at), name),
    )
    cursor = await conn.execute("SELECT 1 FROM api_keys WHERE name = %s", (name,))
    return await cursor.fetchone() is not None

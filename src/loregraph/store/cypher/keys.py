"""The Cypher store's API keys: one ``(:LgApiKey)`` node per key, in no scope.

A key's name is unique: the node is created by one statement that first checks that no
key has the name, so two writers never both create it.
"""

from __future__ import annotations

from datetime import datetime

from loregraph.access import ApiKey
from loregraph.store.apikeys import KEY_FIELDS, duplicate_key, key_from_row, key_values
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.records import CODEC
from loregraph.store.rows import columns, iso

_RETURN = columns(KEY_FIELDS, "k")


async def add_key(conn: Connection, key: ApiKey) -> None:
    """Create ``key``'s node; a taken name or hash raises :class:`InputError`."""
    props = dict(zip(KEY_FIELDS, key_values(key, iso), strict=True))
    rows = await conn.write(
        "OPTIONAL MATCH (k:LgApiKey) WHERE k.name = $name OR k.key_hash = $key_hash "
        "WITH count(k) AS taken WHERE taken = 0 "
        "CREATE (n:LgApiKey) SET n = $props RETURN 1",
        {"name": key.name, "key_hash": key.key_hash, "props": props},
    )
    if not rows:
        raise duplicate_key(key.name)


async def key_by_hash(conn: Connection, key_hash: str) -> ApiKey | None:
    """The key with this hash."""
    rows = await conn.read(
        f"MATCH (k:LgApiKey {{key_hash: $key_hash}}) RETURN {_RETURN}", {"key_hash": key_hash}
    )
    return key_from_row(rows[0], CODEC.read_time) if rows else None


async def list_keys(conn: Connection) -> list[ApiKey]:
    """Every key, oldest first."""
    rows = await conn.read(f"MATCH (k:LgApiKey) RETURN {_RETURN} ORDER BY k.created_at, k.name")
    return [key_from_row(row, CODEC.read_time) for row in rows]


async def revoke_key(conn: Connection, name: str, at: datetime) -> bool:
    """Set ``revoked_at`` unless set; whether the key exists."""
    rows = await conn.write(
        "MATCH (k:LgApiKey {name: $name}) SET k.revoked_at = coalesce(k.revoked_at, $at) RETURN 1",
        {"name": name, "at": iso(at)},
    )
    return bool(rows)

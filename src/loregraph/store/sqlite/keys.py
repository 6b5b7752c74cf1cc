"""The SQLite store's API keys (table ``api_keys``), run on the store's worker thread."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from loregraph.access import ApiKey
from loregraph.store.apikeys import KEY_FIELDS, duplicate_key, key_from_row, key_values
from loregraph.store.rows import columns, iso
from loregraph.store.sqlite.db import transaction

_COLUMNS = columns(KEY_FIELDS)


def add_key(conn: sqlite3.Connection, key: ApiKey) -> None:
    """Insert ``key``; a taken name or hash raises :class:`InputError`."""
    with transaction(conn):
        try:
            conn.execute(
                f"INSERT INTO api_keys ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)", key_values(key, iso)
            )
        except sqlite3.IntegrityError:
            raise duplicate_key(key.name) from None


def key_by_hash(conn: sqlite3.Connection, key_hash: str) -> ApiKey | None:
    """The key with this hash."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash = ?", (key_hash,)
    ).fetchone()
    return None if row is None else key_from_row(row, datetime.fromisoformat)


def list_keys(conn: sqlite3.Connection) -> list[ApiKey]:
    """Every key, oldest first."""
    rows = conn.execute(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at, pk").fetchall()
    return [key_from_row(row, datetime.fromisoformat) for row in rows]


def revoke_key(conn: sqlite3.Connection, name: str, at: datetime) -> bool:
    """Set ``revoked_at`` unless set; whether the key exists."""
    with transaction(conn):
        conn.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
            (iso(at), name),
        )
        found = conn.execute("SELECT 1 FROM api_keys WHERE name = ?", (name,)).fetchone()
    return found is not None

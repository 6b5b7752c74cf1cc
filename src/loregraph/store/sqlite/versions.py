"""The SQLite store's graph version per scope (in ``meta``: every write moves its scope's
version, which the caches key on) and an entity's alias columns."""

from __future__ import annotations

import json
import sqlite3

from loregraph.store.names import key_lines
from loregraph.store.planning import alias_list


def alias_fields(key: str, aliases: dict[str, str]) -> tuple[str, str]:
    """``(aliases_json, search_keys)`` of an entity from ``{alias key: surface}`` (see
    :func:`~loregraph.store.planning.alias_list`)."""
    surfaces, keys = alias_list(key, aliases)
    return json.dumps(surfaces, ensure_ascii=False), key_lines([key, *keys])


def bump_graph_version(conn: sqlite3.Connection, scope: str) -> int:
    """Increment the scope's graph version counter; return the new value."""
    row = conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, 1) "
        "ON CONFLICT(key) DO UPDATE SET value = value + 1 RETURNING value",
        (graph_version_key(scope),),
    ).fetchone()
    return int(row[0])


def graph_version_key(scope: str) -> str:
    """The ``meta`` key holding a scope's graph version."""
    return f"graph_version:{scope}"


def read_graph_version(conn: sqlite3.Connection, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    row = conn.execute(
        "SELECT value FROM meta WHERE key = ?", (graph_version_key(scope),)
    ).fetchone()
    return 0 if row is None else int(row[0])

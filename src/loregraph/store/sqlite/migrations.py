"""Creating the SQLite schema in an empty database, and migrating an older one.

``MIGRATIONS[v]`` upgrades a store from version ``v`` to ``v + 1``; the versions are listed
in :mod:`.schema`. Foreign-key checks are off while :func:`ensure_schema` runs, since a
migration may rebuild a table others refer to (SQLite's procedure for changing a table).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from loregraph.errors import StoreError
from loregraph.store.base import SCHEMA_VERSION, check_schema_version
from loregraph.store.sqlite.fts import index_all_trigrams
from loregraph.store.sqlite.schema import (
    CHANGE_TABLES,
    GRANT_TABLES,
    INVALIDATED_INDEX,
    KEY_TABLES,
    LEDGER_TABLE,
    RELATIONS_TABLE,
    TABLES,
    TRIGRAM_TABLES,
    read_version,
    statements,
)

Migration = Callable[[sqlite3.Connection], None]


def _add_trigram_index(conn: sqlite3.Connection) -> None:
    """Version 2: the substring index of chunks, filled from the stored chunks."""
    for statement in statements(TRIGRAM_TABLES):
        conn.execute(statement)
    index_all_trigrams(conn)


def _add_invalidated_by(conn: sqlite3.Connection) -> None:
    """Version 5: which memory or document ended a relation (a column already there is
    kept)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(relations)")}
    if "invalidated_by" not in columns:
        conn.execute("ALTER TABLE relations ADD COLUMN invalidated_by TEXT")
    conn.execute(INVALIDATED_INDEX.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))


_RELATION_COLUMNS = (
    "pk, id, scope, source, target, type, fact, weight, confidence, valid_at, invalid_at, "
    "created_at, expired_at, invalidated_by"
)


def _add_statement(conn: sqlite3.Connection) -> None:
    """Version 6: ``relations.statement``, part of the relation's unique key. The table is
    rebuilt (a new one filled, the old one dropped, the new one renamed) with the same pks,
    so evidence rows and the full-text index still point at their relations."""
    table, *indexes = statements(RELATIONS_TABLE)
    conn.execute(table.replace("CREATE TABLE relations (", "CREATE TABLE relations_v6 (", 1))
    conn.execute(
        f"INSERT INTO relations_v6({_RELATION_COLUMNS}) SELECT {_RELATION_COLUMNS} FROM relations"
    )
    conn.execute("DROP TABLE relations")
    conn.execute("ALTER TABLE relations_v6 RENAME TO relations")
    for statement in indexes:
        conn.execute(statement)


def _add_contribution_scores(conn: sqlite3.Connection) -> None:
    """Version 7: each listing document's own salience and confidence of an entity (NULL,
    unknown, in the rows already there; columns already there are kept)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(entity_descriptions)")}
    for column in ("salience", "confidence"):
        if column not in columns:
            conn.execute(f"ALTER TABLE entity_descriptions ADD COLUMN {column} REAL")


_FROM_OLD_TABLES = (
    "INSERT INTO ledger (kind, part, key, value) SELECT 'api_key', '', name, json_object("
    "'name', name, 'key_hash', key_hash, 'roles', json(roles), 'created_at', created_at, "
    "'revoked_at', revoked_at) FROM api_keys ORDER BY created_at, pk",
    "INSERT INTO ledger (kind, part, key, value) SELECT 'grant', principal, scope, json_object("
    "'principal', principal, 'scope', scope, 'role', role) FROM grants ORDER BY principal, scope",
    "INSERT INTO ledger (kind, part, key, value) SELECT 'scope_link', scope, linked, "
    "json_object('scope', scope, 'linked', linked, 'share', share, 'documents', "
    "json(documents)) FROM scope_links ORDER BY scope, linked",
    "INSERT INTO ledger (kind, part, key, value) SELECT 'decision', scope, kind || ':' || "
    "merge_id, json_object('scope', scope, 'kind', kind, 'merge_id', merge_id, 'entity_id', "
    "entity_id, 'surface', surface, 'rule', rule, 'score', score, 'document_id', document_id, "
    "'principal', principal, 'created_at', created_at) FROM merge_decisions "
    "ORDER BY created_at, kind, merge_id",
    "INSERT INTO ledger (kind, part, key, value) SELECT 'audit', scope, 'log-' || pk, "
    "json_object('at', at, 'principal', principal, 'action', action, 'subject', subject, "
    "'detail', detail, 'scope', scope) FROM audit_log ORDER BY pk",
)


def _move_to_ledger(conn: sqlite3.Connection) -> None:
    """Version 9: the rows of the five tables of version 8 moved into ``ledger`` (the
    tables dropped)."""
    conn.execute(LEDGER_TABLE)
    for statement in _FROM_OLD_TABLES:
        conn.execute(statement)
    for table in ("api_keys", "grants", "scope_links", "merge_decisions", "audit_log"):
        conn.execute(f"DROP TABLE {table}")


MIGRATIONS: dict[int, Migration | str] = {
    1: _add_trigram_index,
    2: KEY_TABLES,  # the HTTP server's API keys
    3: CHANGE_TABLES,  # merge decisions and the audit log (empty)
    4: _add_invalidated_by,
    5: _add_statement,
    6: _add_contribution_scores,
    7: GRANT_TABLES,  # principals' roles by scope and the links between scopes (empty)
    8: _move_to_ledger,
}
"""``MIGRATIONS[v]`` upgrades a store from schema version ``v`` to ``v + 1`` (inside the
transaction :func:`ensure_schema` opens): a function, or a script of new tables."""


def ensure_schema(conn: sqlite3.Connection) -> int:
    """Create the schema in an empty database or migrate an older one; return the version.

    Raises :class:`~loregraph.errors.SchemaVersionError` when the store was written by a newer
    loregraph.
    """
    checks = conn.execute("PRAGMA foreign_keys").fetchone()[0]
    conn.execute("PRAGMA foreign_keys = OFF")  # a migration may rebuild a referenced table
    try:
        return _create_or_migrate(conn)
    finally:
        conn.execute(f"PRAGMA foreign_keys = {'ON' if checks else 'OFF'}")


def _create_or_migrate(conn: sqlite3.Connection) -> int:
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = read_version(conn)
        if version is None:
            for statement in statements(TABLES):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
            )
            version = SCHEMA_VERSION
        else:
            check_schema_version(version)
        while version < SCHEMA_VERSION:
            migrate = MIGRATIONS.get(version)
            if migrate is None:
                raise StoreError(f"no migration from schema version {version}; store too old")
            if isinstance(migrate, str):
                for statement in statements(migrate):
                    conn.execute(statement)
            else:
                migrate(conn)
            version += 1
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version

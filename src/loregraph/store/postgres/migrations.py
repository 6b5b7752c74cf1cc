"""Versioned schema migrations, run when a store opens.

``schema_migrations`` holds one row per applied version. Opening a store takes a
transaction-scoped advisory lock on its schema (so that two processes opening the same
empty schema at once do not both create it), installs the extensions when they are
missing, then applies ``MIGRATIONS[v]`` for every version ``v`` above the recorded one up to
:data:`TARGET_VERSION`, in one transaction. A store recorded at a newer version than this
code knows is refused with :class:`~loregraph.errors.SchemaVersionError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import psycopg

from loregraph.errors import StoreError
from loregraph.store.base import SCHEMA_VERSION, check_schema_version
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.schema import (
    EXTENSIONS,
    VERSION_1,
    VERSION_2,
    VERSION_3,
    VERSION_4,
    VERSION_5,
    VERSION_6,
    VERSION_7,
    VERSION_8,
    VERSION_9,
    statements,
    vector_index_statements,
)

TARGET_VERSION = SCHEMA_VERSION
"""The version this code migrates a store to."""

_LOCK_CLASS = 0x4C47  # "LG": the advisory-lock namespace of loregraph's schema changes

_MIGRATIONS_TABLE = """
CREATE TABLE schema_migrations (
    version integer PRIMARY KEY,
    description text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""

MIGRATIONS: dict[int, tuple[str, str]] = {
    1: ("The initial schema.", VERSION_1),
    2: (
        "Substring index of chunks in scripts without word spaces or with attached particles.",
        VERSION_2,
    ),
    3: ("The HTTP server's API keys.", VERSION_3),
    4: ("Remembered merge decisions and the audit log.", VERSION_4),
    5: ("Which memory or document ended a relation.", VERSION_5),
    6: ("A dated fact of a functional type is one relation per statement.", VERSION_6),
    7: ("Each listing document's own salience and confidence of an entity.", VERSION_7),
    8: ("Principals' roles by scope and the links between scopes.", VERSION_8),
    9: ("The ledger: what belongs to no document, moved into one table.", VERSION_9),
}
"""``MIGRATIONS[v]`` is the description and script that bring a schema from version
``v - 1`` to ``v`` (0: empty)."""


@dataclass(slots=True)
class SchemaState:
    """What :func:`ensure_schema` found and did."""

    version: int
    settings: dict[str, str]
    """Session settings every connection needs (``search_path``, vector search options)."""


async def ensure_schema(conn: Conn, schema: str) -> SchemaState:
    """Create or migrate ``schema`` on an autocommit connection; returns its state.

    Raises :class:`~loregraph.errors.SchemaVersionError` for a newer store and
    :class:`StoreError` for a schema that holds tables but is not a loregraph store, or when
    an extension cannot be installed.
    """
    target = TARGET_VERSION
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, schema))
        extension_schemas, vector_version = await _ensure_extensions(conn)
        await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        search_path = ", ".join([schema, *[s for s in extension_schemas if s != schema]])
        await conn.execute("SELECT set_config('search_path', %s, true)", (search_path,))
        version = await _recorded_version(conn, schema)
        check_schema_version(version, target)
        if version == 0:
            await conn.execute(_MIGRATIONS_TABLE)
        for step in range(version + 1, target + 1):
            if step not in MIGRATIONS:
                raise StoreError(f"no migration to schema version {step}; store too old")
            description, script = MIGRATIONS[step]
            for statement in statements(script):
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, description) VALUES (%s, %s)",
                (step, description),
            )
            version = step
    settings = {"search_path": search_path}
    if vector_version >= (0, 8):
        # filtered HNSW scans keep searching until the limit is filled (pgvector 0.8+)
        settings["hnsw.iterative_scan"] = "strict_order"
    return SchemaState(version, settings)


async def _ensure_extensions(conn: Conn) -> tuple[list[str], tuple[int, ...]]:
    """Install missing extensions; return the schemas that hold them and pgvector's version."""
    cursor = await conn.execute(
        "SELECT e.extname, n.nspname FROM pg_extension AS e "
        "JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = ANY(%s)",
        (list(EXTENSIONS),),
    )
    found = dict(await cursor.fetchall())
    for name in EXTENSIONS:
        if name in found:
            continue
        try:
            async with conn.transaction():
                await conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
        except psycopg.Error as exc:
            raise StoreError(
                f"the PostgreSQL extension {name!r} is missing and cannot be installed ({exc}); "
                f"a database administrator can run `CREATE EXTENSION {name}` once"
            ) from exc
        cursor = await conn.execute(
            "SELECT n.nspname FROM pg_extension AS e "
            "JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = %s",
            (name,),
        )
        row = await cursor.fetchone()
        found[name] = row[0] if row else "public"
    cursor = await conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    row = await cursor.fetchone()
    version = tuple(int(part) for part in re.findall(r"\d+", row[0] if row else ""))
    return list(dict.fromkeys(found[name] for name in EXTENSIONS)), version


async def _recorded_version(conn: Conn, schema: str) -> int:
    """The schema's recorded version; 0 for an empty schema."""
    cursor = await conn.execute(
        "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p')",
        (schema,),
    )
    tables = {row[0] for row in await cursor.fetchall()}
    if not tables:
        return 0
    if "schema_migrations" not in tables:
        raise StoreError(
            f"the PostgreSQL schema {schema!r} holds tables but is not a loregraph store "
            "(it has no schema_migrations table); choose another schema with ?schema=name"
        )
    cursor = await conn.execute("SELECT max(version) FROM schema_migrations")
    row = await cursor.fetchone()
    if row is None or row[0] is None:
        raise StoreError("this loregraph store has no recorded schema version; it is damaged")
    return int(row[0])


async def ensure_vector_indexes(conn: Conn, schema: str, dim: int) -> None:
    """Create the HNSW indexes for vectors of dimension ``dim`` unless they exist.

    Each index is created in its own transaction, under an advisory lock, after checking the
    catalog (which takes no table lock): a writer of another process never waits for an
    index build that waits for it.
    """
    for name, statement in vector_index_statements(dim):
        qualified = f"{schema}.{name}"
        async with conn.transaction():
            await conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, qualified)
            )
            cursor = await conn.execute("SELECT to_regclass(%s) IS NULL", (qualified,))
            row = await cursor.fetchone()
            if row is not None and row[0]:
                await conn.execute(statement)

"""Creating the graph's meta node and indexes; refusing a graph written by a newer version.

The single ``(:LgMeta {key: 'meta'})`` node records the schema version, the write sequence
(see :mod:`.apply`) and the vector dimension of entity and chunk embeddings (each vector
index has one dimension; it is created on the first write that brings vectors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from loregraph.errors import ConfigError, StoreError
from loregraph.store.base import SCHEMA_VERSION, check_schema_version
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.dialect import CHUNK, ENTITY, RANGE_INDEXES, REL_INDEXES
from loregraph.store.cypher.ledger import move_to_ledger


@dataclass(slots=True)
class SchemaState:
    """What :func:`ensure_schema` found: the version and the known vector dimensions."""

    version: int
    dims: dict[str, int] = field(default_factory=dict)
    vector_indexes: set[str] = field(default_factory=set)


def index_statements(conn: Connection) -> list[str]:
    """Every index the store creates when it opens (vector indexes aside)."""
    dialect = conn.dialect
    statements = [dialect.range_index(label, prop) for label, prop in RANGE_INDEXES]
    statements += [dialect.rel_index(prop) for prop in REL_INDEXES]
    return statements + dialect.fulltext_indexes()


async def ensure_schema(conn: Connection, where: str) -> SchemaState:
    """Create or check the meta node and the indexes; raises on a newer or foreign graph."""
    rows = await conn.read("MATCH (m:LgMeta) RETURN m.schema_version, m.entity_dim, m.chunk_dim")
    if not rows:
        if await conn.read("MATCH (n) RETURN 1 LIMIT 1"):
            raise StoreError(
                f"{where} holds data that is not a loregraph store; use another graph name"
            )
        await conn.write(
            "MERGE (m:LgMeta {key: 'meta'}) ON CREATE SET m.schema_version = $version, m.seq = 0",
            {"version": SCHEMA_VERSION},
        )
        rows = [[SCHEMA_VERSION, None, None]]
    version = int(rows[0][0])
    check_schema_version(version)
    if version < SCHEMA_VERSION:
        # versions 1 to 8 differ in the SQL stores' tables, columns and text indexes; here,
        # the key nodes' index is created below with the others, version 4's decision and
        # audit nodes when first written, and a relation edge without ``invalidated_by``
        # reads as one no document ended; one without ``statement`` (version 6) as one
        # that gathers every document's evidence; a contribution without ``salience`` or
        # ``confidence`` (version 7) as one whose values are unknown; version 8's grant and
        # scope link nodes are created when first written; version 9 keeps keys, grants,
        # links, decisions and the audit log as ledger rows
        await move_to_ledger(conn)
        await conn.write(
            "MATCH (m:LgMeta {key: 'meta'}) SET m.schema_version = $version",
            {"version": SCHEMA_VERSION},
        )
        version = SCHEMA_VERSION
    found = SchemaState(version)
    for statement in index_statements(conn):
        await conn.ddl(statement)
    for label, value in ((ENTITY, rows[0][1]), (CHUNK, rows[0][2])):
        if value is not None:
            found.dims[label] = int(value)
            await ensure_vector_index(conn, found, label, int(value))
    return found


async def ensure_vector_index(conn: Connection, schema: SchemaState, label: str, dim: int) -> None:
    """Create ``label``'s vector index for ``dim`` unless done; a other dimension is an error."""
    known = schema.dims.get(label)
    if known is not None and known != dim:
        raise ConfigError(
            f"this store holds {label} embeddings of dimension {known}; cannot add or search "
            f"with dimension {dim} (use one embedding model per store)"
        )
    if label in schema.vector_indexes:
        return
    await conn.ddl(conn.dialect.vector_index(label, dim))
    schema.vector_indexes.add(label)


async def refresh_dims(conn: Connection, schema: SchemaState) -> None:
    """Re-read the dimensions (another process may have written the first vectors)."""
    rows = await conn.read("MATCH (m:LgMeta) RETURN m.entity_dim, m.chunk_dim")
    if rows:
        for label, value in zip((ENTITY, CHUNK), rows[0], strict=True):
            if value is not None and label not in schema.dims:
                schema.dims[label] = int(value)

"""The PostgreSQL store: many processes and machines on one database.

pgvector (HNSW, cosine) for vectors, pg_trgm for fuzzy names, tsvector + ``ts_rank_cd`` for
BM25-like ranking, one recursive CTE for k-hop expansion. The store keeps no in-memory index:
every query reads the database, so writes from other processes are seen at once.

Writes are planned once for every backend (:mod:`loregraph.store.plan`: what a write adds
to stored rows, derived values, what deletion removes) and applied here (:mod:`.write`, one
writer at a time per store); :mod:`.graph` says how expired and invalidated relations are
read.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg

from loregraph import models
from loregraph.errors import NotFoundError, StoreError
from loregraph.store.base import SCHEMA_VERSION, Store
from loregraph.store.postgres import graph, provenance, reads, search, versions, write
from loregraph.store.postgres.connection import (
    DEFAULT_SCHEMA,
    Database,
    check_schema_name,
    redact,
    split_url,
)
from loregraph.store.postgres.ledger import PostgresLedger
from loregraph.store.postgres.migrations import ensure_schema, ensure_vector_indexes
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    VectorSearch,
)
from loregraph.store.sqlreads import SqlReads

ANALYZE_AFTER_ROWS = 2_000
"""Entities and chunks written by this store object between two ``ANALYZE`` runs."""


class PostgresStore(PostgresLedger, SqlReads, Store):
    """A store in one schema of a PostgreSQL database (pgvector, pg_trgm and btree_gist).

    ``url`` is a libpq URL (``postgresql://user:pass@host:5432/db``); ``?schema=name`` in it,
    or ``schema=``, names the schema the tables live in (default ``loregraph``, created on
    first open along with the extensions when they are missing).

    >>> store = PostgresStore("postgresql://localhost/kg?schema=team_a")  # doctest: +SKIP
    >>> async with store: ...                                             # doctest: +SKIP
    """

    def __init__(self, url: str, *, schema: str | None = None, max_connections: int = 4) -> None:
        plain, from_url = split_url(url)
        self.url = plain
        self.schema = check_schema_name(schema or from_url or DEFAULT_SCHEMA)
        self._db = Database(plain, self.schema, max_connections=max_connections)
        self._version = 0
        self._indexed_dims: set[int] = set()
        self._rows_since_analyze = 0

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self.url)!r}, schema={self.schema!r})"

    _reads = reads
    _search = search
    _graph = graph
    _cleanup = versions

    async def _query(self, fn: Any, *args: Any) -> Any:
        return await self._db.read(fn, *args)

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._db.is_open:
            return
        conn = await self._db.connect()
        try:
            state = await ensure_schema(conn, self.schema)
        except psycopg.Error as exc:
            raise StoreError(f"cannot set up the store schema {self.schema!r}: {exc}") from exc
        finally:
            await conn.close()
        await self._db.open(state.settings)
        self._version = state.version

    async def close(self) -> None:
        await self._db.close()

    # ----------------------------------------------------------------- documents
    async def write_document(self, bundle: models.DocumentBundle) -> None:
        bundle.validate()
        for dim in sorted(write.vector_dims(bundle) - self._indexed_dims):
            await self._db.read(ensure_vector_indexes, self.schema, dim)
            self._indexed_dims.add(dim)
        try:
            await self._db.write(write.write_bundle, bundle)
        except (psycopg.IntegrityError, psycopg.DataError) as exc:
            raise ValueError(f"document {bundle.document.id} cannot be written: {exc}") from exc
        self._rows_since_analyze += len(bundle.entities) + len(bundle.chunks)
        if self._rows_since_analyze >= ANALYZE_AFTER_ROWS:
            self._rows_since_analyze = 0
            await self._db.read(write.analyze)

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        report, _ = await self._db.write(write.delete_document, document_id, list(ends))
        return report

    # ----------------------------------------------------------------- chunks
    # ----------------------------------------------------------------- entities
    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        """pg_trgm similarity (0..1) of ``name_key(name)`` to entity name and alias keys."""
        return await self._db.read(search.search_entities_fuzzy, scope, name, limit, entity_type)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await self._db.read(search.search_vector, ask)

    # ----------------------------------------------------------------- relations, graph
    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """End a relation; raises :class:`NotFoundError` for an unknown relation."""
        if not await self._db.write(write.invalidate_relation, relation_id, invalid_at, by):
            raise NotFoundError(f"no relation with id {relation_id!r}")

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await self._db.snapshot(graph.graph_arrays, scope)

    # ----------------------------------------------------------------- merges, bundles, bulk
    # ----------------------------------------------------------------- decisions, audit, edits
    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        entity = await self._db.write(write.update_entity, entity_id, name, entity_type)
        if entity is None:
            raise NotFoundError(f"no entity with id {entity_id!r}")
        return entity

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        return await self._db.snapshot(reads.read_bundle, document_id)

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await self._db.snapshot(provenance.entity_sources, list(entity_ids))

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await self._db.snapshot(provenance.relation_sources, list(relation_ids))

    async def stats(self, scope: str) -> models.StoreStats:
        return await self._db.read(reads.stats, scope, self._version or SCHEMA_VERSION)

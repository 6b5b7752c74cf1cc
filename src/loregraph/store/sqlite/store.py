"""The SQLite store: one file, FTS5 for BM25, in-memory NumPy/rapidfuzz indexes.

Every call runs on the store's single worker thread (see :mod:`.db`). Vector search and
fuzzy name search use in-memory indexes per scope (see :mod:`.indexes`).

Writes are planned once for every backend (:mod:`loregraph.store.plan`: what a write adds
to stored rows, derived values, what deletion removes) and applied here (:mod:`.write`);
:mod:`.graph` says how expired and invalidated relations are read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from loregraph import models
from loregraph.errors import NotFoundError
from loregraph.models import name_key
from loregraph.store.base import Store
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    VectorSearch,
)
from loregraph.store.sqlite import changes, graph, provenance, reads, search, versions, write
from loregraph.store.sqlite.db import MEMORY, Database
from loregraph.store.sqlite.indexes import ENTITY, MemoryIndexes
from loregraph.store.sqlite.ledger import SqliteLedger
from loregraph.store.sqlreads import SqlReads


class SqliteStore(SqliteLedger, SqlReads, Store):
    """A store in one SQLite file (or ``":memory:"``), created on first open.

    >>> store = SqliteStore("graph.db")  # doctest: +SKIP
    >>> async with store: ...            # doctest: +SKIP
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = path if path == MEMORY else str(Path(path).expanduser())
        self.read_only = read_only
        self._db = Database(str(self.path), read_only=read_only)
        self._indexes = MemoryIndexes()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    _reads = reads
    _search = search
    _graph = graph
    _cleanup = versions

    async def _query(self, fn: Any, *args: Any) -> Any:
        return await self._db.run(fn, *args)

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        await self._db.open()

    async def close(self) -> None:
        self._indexes.clear()
        await self._db.close()

    # ----------------------------------------------------------------- writes
    async def write_document(self, bundle: models.DocumentBundle) -> None:
        await self._db.run(self._write_sync, bundle)

    def _write_sync(self, conn: sqlite3.Connection, bundle: models.DocumentBundle) -> None:
        scope = bundle.document.scope
        vectors, names = self._indexes.holds_vectors(scope), self._indexes.holds_names(scope)
        self._indexes.sync(write.write_bundle(conn, bundle, vectors=vectors, names=names))

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        return await self._db.run(self._delete_sync, document_id, list(ends))

    def _delete_sync(
        self, conn: sqlite3.Connection, document_id: str, ends: list[models.Relation]
    ) -> models.DeleteReport:
        names = self._indexes.holds_names()
        report, outcome = write.delete_document(conn, document_id, names=names, ends=ends)
        self._indexes.sync(outcome)
        return report

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """End a relation; raises :class:`NotFoundError` for an unknown relation."""
        if not await self._db.run(self._invalidate_sync, relation_id, invalid_at, by):
            raise NotFoundError(f"no relation with id {relation_id!r}")

    def _invalidate_sync(
        self, conn: sqlite3.Connection, relation_id: str, invalid_at: datetime, by: str | None
    ) -> bool:
        outcome = write.invalidate_relation(conn, relation_id, invalid_at, by)
        if outcome is not None:
            self._indexes.sync(outcome)
        return outcome is not None

    # ----------------------------------------------------------------- documents, chunks
    # ----------------------------------------------------------------- entities
    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        return (await self.search_entities_fuzzy_many(scope, [(name, entity_type)], limit))[0]

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        """Trigram similarity (0..1) of ``name_key(name)`` to entity name and alias keys,
        for many names in one worker-thread call and one ``cdist`` pass over the scope's
        in-memory key list (see :mod:`loregraph.store.names`)."""
        asked = [(name_key(name), kind) for name, kind in queries]
        return await self._db.run(self._indexes.search_names, scope, asked, limit)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await self._db.run(self._indexes.search_vector, ask)

    async def search_entities_vector_many(
        self, scope: str, queries: Sequence[tuple[models.Vector, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        """Many vector lookups in one worker-thread call and one matrix product."""
        if not queries:
            return []
        matrix = np.stack([np.asarray(v, dtype=np.float32).reshape(-1) for v, _ in queries])
        tags = [kind for _, kind in queries]
        indexes = self._indexes
        return await self._db.run(indexes.search_vectors, scope, ENTITY, matrix, tags, limit)

    # ----------------------------------------------------------------- relations, graph
    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await self._db.run(graph.graph_arrays, scope)

    # ----------------------------------------------------------------- merges, bundles, bulk
    # ----------------------------------------------------------------- decisions, audit, edits
    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        entity = await self._db.run(changes.update_entity, entity_id, name, entity_type)
        if entity is None:
            raise NotFoundError(f"no entity with id {entity_id!r}")
        self._indexes.clear()  # the name index holds the old key and type
        return entity

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        return await self._db.run(reads.read_bundle, document_id)

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await self._db.run(provenance.entity_sources, list(entity_ids))

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await self._db.run(provenance.relation_sources, list(relation_ids))

    async def stats(self, scope: str) -> models.StoreStats:
        return await self._db.run(reads.stats, scope, self._db.version)

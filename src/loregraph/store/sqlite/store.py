"""The SQLite store: one file, FTS5 for BM25, in-memory NumPy/rapidfuzz indexes.

Every call runs on the store's single worker thread (see :mod:`.db`). Vector search and
fuzzy name search use in-memory indexes per scope (:class:`~loregraph.store.vectors.VectorIndex`,
:class:`~loregraph.store.names.NameIndex`), loaded on first use, updated in place by
this store's own writes and reloaded when the scope's graph version moved for another reason
(another process wrote to the file).

Semantics beyond :class:`~loregraph.store.base.Store`'s contract are documented in
:mod:`.upsert` (what a write adds to existing rows), :mod:`.cleanup` (derived values, what
deletion removes) and :mod:`.graph` (expired and invalidated relations). Unknown ids:
``invalidate_relation`` raises :class:`~loregraph.errors.NotFoundError`;
``delete_document`` returns an all-zero report.
An inconsistent bundle raises :class:`ValueError` and writes nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from loregraph.errors import ConfigError, NotFoundError
from loregraph.models import (
    Chunk,
    DeleteReport,
    Document,
    DocumentBundle,
    Entity,
    GraphArrays,
    Merge,
    Relation,
    Scored,
    StoreStats,
    Subgraph,
    Vector,
    name_key,
)
from loregraph.store.base import Store
from loregraph.store.names import NameIndex, split_keys
from loregraph.store.sqlite import graph, reads, search, write
from loregraph.store.sqlite.cleanup import read_graph_version
from loregraph.store.sqlite.db import MEMORY, Database
from loregraph.store.vectors import VectorIndex, VectorIndexCache, VersionedCache, stack_blobs

ENTITY, CHUNK = "entity", "chunk"


class SqliteStore(Store):
    """A store in one SQLite file (or ``":memory:"``), created on first open.

    >>> store = SqliteStore("graph.db")  # doctest: +SKIP
    >>> async with store: ...            # doctest: +SKIP
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = path if path == MEMORY else str(Path(path).expanduser())
        self.read_only = read_only
        self._db = Database(str(self.path), read_only=read_only)
        self._vectors = VectorIndexCache()
        self._names: VersionedCache[NameIndex] = VersionedCache()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        await self._db.open()

    async def close(self) -> None:
        self._vectors.clear()
        self._names.clear()
        await self._db.close()

    # ----------------------------------------------------------------- documents
    async def write_document(self, bundle: DocumentBundle) -> None:
        await self._db.run(self._write_sync, bundle)

    def _write_sync(self, conn: sqlite3.Connection, bundle: DocumentBundle) -> None:
        scope = bundle.document.scope
        outcome = write.write_bundle(
            conn,
            bundle,
            vectors=self._vectors.peek((scope, ENTITY)) is not None,
            names=self._names.peek(scope) is not None,
        )
        self._sync(outcome)

    async def get_document(self, document_id: str) -> Document | None:
        return await self._db.run(reads.get_document, document_id)

    async def find_document(
        self, scope: str, *, content_hash: str | None = None, source: str | None = None
    ) -> Document | None:
        """A document by content hash and/or source; with both, both must match."""
        return await self._db.run(reads.find_document, scope, content_hash, source)

    async def list_documents(
        self, scope: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Document]:
        return await self._db.run(reads.list_documents, scope, limit, offset)

    async def delete_document(self, document_id: str) -> DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        return await self._db.run(self._delete_sync, document_id)

    def _delete_sync(self, conn: sqlite3.Connection, document_id: str) -> DeleteReport:
        report, outcome = write.delete_document(conn, document_id, names=len(self._names) > 0)
        self._sync(outcome)
        return report

    # ----------------------------------------------------------------- chunks
    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return await self._db.run(reads.get_chunks, list(chunk_ids))

    async def search_chunks_text(self, scope: str, query: str, limit: int) -> list[Scored]:
        return await self._db.run(search.search_chunks_text, scope, query, limit)

    async def search_chunks_vector(self, scope: str, vector: Vector, limit: int) -> list[Scored]:
        return await self._db.run(self._vector_sync, scope, CHUNK, vector, limit, None)

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        return await self._db.run(reads.get_entities, list(entity_ids))

    async def find_entities_by_key(self, scope: str, keys: Sequence[str]) -> dict[str, Entity]:
        return await self._db.run(reads.find_entities_by_key, scope, list(keys))

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[Scored]:
        """Trigram similarity (0..1) of ``name_key(name)`` to entity name and alias keys.

        Runs over an in-memory key list per scope (see :mod:`loregraph.store.names`).
        """
        return await self._db.run(self._fuzzy_sync, scope, name, limit, entity_type)

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[Scored]]:
        """Many fuzzy lookups in one worker-thread call and one ``cdist`` pass."""
        asked = [(name_key(name), kind) for name, kind in queries]
        return await self._db.run(self._fuzzy_many_sync, scope, asked, limit)

    async def search_entities_vector_many(
        self, scope: str, queries: Sequence[tuple[Vector, str | None]], limit: int
    ) -> list[list[Scored]]:
        """Many vector lookups in one worker-thread call and one matrix product."""
        if not queries:
            return []
        matrix = np.stack([np.asarray(v, dtype=np.float32).reshape(-1) for v, _ in queries])
        tags = [kind for _, kind in queries]
        return await self._db.run(self._vector_many_sync, scope, matrix, tags, limit)

    async def search_entities_text(self, scope: str, query: str, limit: int) -> list[Scored]:
        return await self._db.run(search.search_entities_text, scope, query, limit)

    async def search_entities_vector(
        self, scope: str, vector: Vector, limit: int, *, entity_type: str | None = None
    ) -> list[Scored]:
        return await self._db.run(self._vector_sync, scope, ENTITY, vector, limit, entity_type)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, Vector]:
        return await self._db.run(reads.entity_embeddings, list(entity_ids))

    async def list_entities(
        self,
        scope: str,
        *,
        entity_type: str | None = None,
        order: str = "mentions",
        limit: int | None = 100,
        offset: int = 0,
    ) -> list[Entity]:
        return await self._db.run(reads.list_entities, scope, entity_type, order, limit, offset)

    # ----------------------------------------------------------------- relations
    async def entity_relations(
        self,
        entity_id: str,
        *,
        direction: str = "both",
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        limit: int | None = None,
    ) -> list[Relation]:
        """An entity's live (not expired) relations, heaviest first, with evidence."""
        kinds = None if types is None else list(types)
        return await self._db.run(graph.entity_relations, entity_id, direction, kinds, at, limit)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[Relation]:
        return await self._db.run(graph.relations_among, list(entity_ids))

    async def get_relations(self, relation_ids: Sequence[str]) -> list[Relation]:
        return await self._db.run(graph.get_relations, list(relation_ids))

    async def invalidate_relation(self, relation_id: str, invalid_at: datetime) -> None:
        """Set ``invalid_at``; raises :class:`NotFoundError` for an unknown relation."""
        if await self._db.run(self._invalidate_sync, relation_id, invalid_at) is None:
            raise NotFoundError(f"no relation with id {relation_id!r}")

    def _invalidate_sync(
        self, conn: sqlite3.Connection, relation_id: str, invalid_at: datetime
    ) -> write.Outcome | None:
        outcome = write.invalidate_relation(conn, relation_id, invalid_at)
        if outcome is not None:
            self._sync(outcome)
        return outcome

    # ----------------------------------------------------------------- graph
    async def expand(
        self,
        scope: str,
        seed_ids: Sequence[str],
        *,
        depth: int = 2,
        per_node: int = 20,
        max_entities: int = 200,
        types: Sequence[str] | None = None,
        min_weight: float = 0.0,
    ) -> Subgraph:
        """BFS from the seeds over live relations in both directions (see :mod:`.graph`).

        Seeds outside ``scope`` are ignored; the returned relations carry no evidence.
        """
        kinds = None if types is None else list(types)
        return await self._db.run(
            graph.expand, scope, list(seed_ids), depth, per_node, max_entities, kinds, min_weight
        )

    async def graph_arrays(self, scope: str) -> GraphArrays:
        return await self._db.run(graph.graph_arrays, scope)

    async def graph_version(self, scope: str) -> int:
        return await self._db.run(read_graph_version, scope)

    # ----------------------------------------------------------------- merges, bundles
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[Merge]:
        return await self._db.run(reads.list_merges, scope, entity_id)

    async def read_bundle(self, document_id: str) -> DocumentBundle | None:
        return await self._db.run(reads.read_bundle, document_id)

    # ----------------------------------------------------------------- bulk
    async def iter_entities(self, scope: str, batch: int = 1000) -> AsyncIterator[Entity]:
        after = 0
        while True:
            page = await self._db.run(reads.entities_page, scope, after, batch)
            if not page:
                return
            for _, entity in page:
                yield entity
            after = page[-1][0]

    async def iter_relations(self, scope: str, batch: int = 1000) -> AsyncIterator[Relation]:
        after = 0
        while True:
            page = await self._db.run(reads.relations_page, scope, after, batch)
            if not page:
                return
            for _, relation in page:
                yield relation
            after = page[-1][0]

    async def stats(self, scope: str) -> StoreStats:
        return await self._db.run(reads.stats, scope, self._db.version)

    async def scopes(self) -> list[str]:
        return await self._db.run(reads.scopes)

    # ----------------------------------------------------------------- in-memory indexes
    def _vector_sync(
        self,
        conn: sqlite3.Connection,
        scope: str,
        kind: str,
        vector: Vector,
        limit: int,
        tag: str | None,
    ) -> list[Scored]:
        index = self._vector_index(conn, scope, kind)
        return [Scored(item, score) for item, score in index.search(vector, limit, tag=tag)]

    def _vector_many_sync(
        self,
        conn: sqlite3.Connection,
        scope: str,
        matrix: Vector,
        tags: list[str | None],
        limit: int,
    ) -> list[list[Scored]]:
        index = self._vector_index(conn, scope, ENTITY)
        hits = index.search_many(matrix, limit, tags)
        return [[Scored(item, score) for item, score in row] for row in hits]

    def _vector_index(self, conn: sqlite3.Connection, scope: str, kind: str) -> VectorIndex:
        key = (scope, kind)
        index = self._vectors.get(key, read_graph_version(conn, scope))
        if index is None:
            index = search.load_vector_index(conn, scope, kind)
            self._vectors.put(key, index)
        return index

    def _fuzzy_sync(
        self,
        conn: sqlite3.Connection,
        scope: str,
        name: str,
        limit: int,
        entity_type: str | None,
    ) -> list[Scored]:
        return self._fuzzy_many_sync(conn, scope, [(name_key(name), entity_type)], limit)[0]

    def _fuzzy_many_sync(
        self,
        conn: sqlite3.Connection,
        scope: str,
        queries: list[tuple[str, str | None]],
        limit: int,
    ) -> list[list[Scored]]:
        index = self._names.get(scope, read_graph_version(conn, scope))
        if index is None:
            index = search.load_name_index(conn, scope)
            self._names.put(scope, index)
        hits = index.search_many(queries, limit)
        return [[Scored(item, score) for item, score in row] for row in hits]

    def _sync(self, outcome: write.Outcome) -> None:
        """Bring loaded in-memory indexes up to date after a committed transaction.

        An index is updated in place when it reflected the version just before this
        transaction, and dropped (reloaded on next use) otherwise.
        """
        changes = outcome.changes
        for scope, version in outcome.versions.items():
            fresh = len(outcome.versions) == 1
            names = self._names.peek(scope)
            if names is not None:
                if fresh and names.version == version - 1:
                    names.remove(changes.removed_entities)
                    for entity_id, entity_type, keys in outcome.entity_names:
                        names.upsert(entity_id, entity_type, split_keys(keys))
                    names.version = version
                else:
                    self._names.discard(scope)
            for kind in (ENTITY, CHUNK):
                key = (scope, kind)
                index = self._vectors.peek(key)
                if index is None:
                    continue
                if not fresh or index.version != version - 1:
                    self._vectors.discard(key)
                    continue
                rows: list[tuple[str, bytes, str | None]]
                try:
                    if kind == ENTITY:
                        index.remove(changes.removed_entities)
                        rows = list(outcome.entity_vectors)
                    else:
                        index.remove(changes.removed_chunks)
                        rows = [(item, blob, None) for item, blob in outcome.chunk_vectors]
                    if rows:
                        index.upsert(
                            [row[0] for row in rows],
                            stack_blobs([row[1] for row in rows]),
                            [row[2] for row in rows],
                        )
                except (ConfigError, ValueError):
                    self._vectors.discard(key)
                    continue
                index.version = version

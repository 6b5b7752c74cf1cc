"""The SQLite store: one file, FTS5 for BM25, in-memory NumPy/rapidfuzz indexes.

Every call runs on the store's single worker thread (see :mod:`.db`). Vector search and
fuzzy name search use in-memory indexes per scope (see :mod:`.indexes`).

Semantics beyond :class:`~loregraph.store.base.Store`'s contract are documented in
:mod:`loregraph.store.planning` and :mod:`.upsert` (what a write adds to existing rows),
:mod:`.cleanup` (derived values, what deletion removes) and :mod:`.graph` (expired and
invalidated relations).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from loregraph import models
from loregraph.errors import NotFoundError
from loregraph.models import name_key
from loregraph.store.base import Store
from loregraph.store.hops import Hop
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    RelationQuery,
    TextSearch,
    VectorSearch,
)
from loregraph.store.sqlite import changes, graph, provenance, reads, search, write
from loregraph.store.sqlite.cleanup import read_graph_version
from loregraph.store.sqlite.db import MEMORY, Database
from loregraph.store.sqlite.indexes import ENTITY, MemoryIndexes
from loregraph.store.sqlite.ledger import SqliteLedger


class SqliteStore(SqliteLedger, Store):
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
    async def get_document(self, document_id: str) -> models.Document | None:
        return await self._db.run(reads.get_document, document_id)

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        return await self._db.run(reads.documents, query)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await self._db.run(reads.get_chunks, list(chunk_ids))

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        if ask.kind == "entity":
            return await self._db.run(search.search_entities_text, ask.scope, ask.query, ask.limit)
        return await self._db.run(
            search.search_chunks_text, ask.scope, ask.query, ask.limit, ask.document_kind
        )

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await self._db.run(reads.get_entities, list(entity_ids))

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await self._db.run(reads.find_entities_by_key, scope, list(keys))

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

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await self._db.run(reads.entity_embeddings, list(entity_ids))

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await self._db.run(reads.list_entities, listing)

    # ----------------------------------------------------------------- relations, graph
    async def _entity_relations(self, query: RelationQuery) -> list[models.Relation]:
        return await self._db.run(graph.entity_relations, query)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[models.Relation]:
        return await self._db.run(graph.relations_among, list(entity_ids))

    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        """One query for a whole hop."""
        return await self._db.run(graph.relations_touching, hop)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await self._db.run(graph.get_relations, list(relation_ids))

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await self._db.run(graph.graph_arrays, scope)

    async def graph_version(self, scope: str) -> int:
        return await self._db.run(read_graph_version, scope)

    # ----------------------------------------------------------------- merges, bundles, bulk
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await self._db.run(reads.list_merges, scope, entity_id)

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

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        return await self._db.run(reads.entities_page, scope, after, batch)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        return await self._db.run(reads.relations_page, scope, after, batch)

    async def stats(self, scope: str) -> models.StoreStats:
        return await self._db.run(reads.stats, scope, self._db.version)

    async def scopes(self) -> list[str]:
        return await self._db.run(reads.scopes)

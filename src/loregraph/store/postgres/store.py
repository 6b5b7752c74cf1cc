"""The PostgreSQL store: many processes and machines on one database.

pgvector (HNSW, cosine) for vectors, pg_trgm for fuzzy names, tsvector + ``ts_rank_cd`` for
BM25-like ranking, one recursive CTE for k-hop expansion. The store keeps no in-memory index:
every query reads the database, so writes from other processes are seen at once.

Semantics beyond :class:`~loregraph.store.base.Store`'s contract match the SQLite store:
:mod:`loregraph.store.planning`, :mod:`.entities` and :mod:`.relations` (what a write adds
to existing rows), :mod:`.cleanup` (derived values, what deletion removes), :mod:`.graph`
(expired and invalidated relations).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import psycopg

from loregraph import models
from loregraph.errors import NotFoundError, StoreError
from loregraph.store.base import SCHEMA_VERSION, Store
from loregraph.store.hops import Hop
from loregraph.store.postgres import changes, graph, provenance, reads, search, write
from loregraph.store.postgres.cleanup import read_graph_version
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
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    RelationQuery,
    TextSearch,
    VectorSearch,
)

ANALYZE_AFTER_ROWS = 2_000
"""Entities and chunks written by this store object between two ``ANALYZE`` runs."""


class PostgresStore(PostgresLedger, Store):
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

    async def get_document(self, document_id: str) -> models.Document | None:
        return await self._db.read(reads.get_document, document_id)

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        return await self._db.read(reads.documents, query)

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        report, _ = await self._db.write(write.delete_document, document_id, list(ends))
        return report

    # ----------------------------------------------------------------- chunks
    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await self._db.read(reads.get_chunks, list(chunk_ids))

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        if ask.kind == "entity":
            return await self._db.read(search.search_entities_text, ask.scope, ask.query, ask.limit)
        return await self._db.read(
            search.search_chunks_text, ask.scope, ask.query, ask.limit, ask.document_kind
        )

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await self._db.read(reads.get_entities, list(entity_ids))

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await self._db.read(reads.find_entities_by_key, scope, list(keys))

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        """pg_trgm similarity (0..1) of ``name_key(name)`` to entity name and alias keys."""
        return await self._db.read(search.search_entities_fuzzy, scope, name, limit, entity_type)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await self._db.read(search.search_vector, ask)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await self._db.read(reads.entity_embeddings, list(entity_ids))

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await self._db.read(reads.list_entities, listing)

    # ----------------------------------------------------------------- relations, graph
    async def _entity_relations(self, query: RelationQuery) -> list[models.Relation]:
        return await self._db.read(graph.entity_relations, query)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[models.Relation]:
        return await self._db.read(graph.relations_among, list(entity_ids))

    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        """One query for a whole hop."""
        return await self._db.read(graph.relations_touching, hop)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await self._db.read(graph.get_relations, list(relation_ids))

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """End a relation; raises :class:`NotFoundError` for an unknown relation."""
        if not await self._db.write(write.invalidate_relation, relation_id, invalid_at, by):
            raise NotFoundError(f"no relation with id {relation_id!r}")

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await self._db.snapshot(graph.graph_arrays, scope)

    async def graph_version(self, scope: str) -> int:
        return await self._db.read(read_graph_version, scope)

    # ----------------------------------------------------------------- merges, bundles, bulk
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await self._db.read(reads.list_merges, scope, entity_id)

    # ----------------------------------------------------------------- decisions, audit, edits
    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        entity = await self._db.write(changes.update_entity, entity_id, name, entity_type)
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

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        return await self._db.read(reads.entities_page, scope, after, batch)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        return await self._db.read(reads.relations_page, scope, after, batch)

    async def stats(self, scope: str) -> models.StoreStats:
        return await self._db.read(reads.stats, scope, self._version or SCHEMA_VERSION)

    async def scopes(self) -> list[str]:
        return await self._db.read(reads.scopes)

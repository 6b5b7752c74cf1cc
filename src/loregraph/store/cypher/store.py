"""The Cypher store: FalkorDB or Neo4j behind the same queries.

``CypherStore("falkordb://localhost:6379/kg")`` or ``CypherStore("neo4j://user:pw@host/db")``.
Writes are planned in Python from a few reads (:mod:`.plan`) and carried out by one
statement (:mod:`.apply`): atomic on both databases, and re-planned when another writer
committed in between. Writes from one store object are serialised by a lock; search and
graph semantics follow the SQL stores (:mod:`.graph`, :mod:`.search`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from loregraph.errors import NotFoundError, StoreError
from loregraph.models import (
    Chunk,
    DeleteReport,
    DocStatus,
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
from loregraph.store.cypher import graph, reads, search
from loregraph.store.cypher.apply import write_statement
from loregraph.store.cypher.bolt import Neo4jConnection
from loregraph.store.cypher.bundle import read_bundle
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.dialect import CHUNK, ENTITY
from loregraph.store.cypher.falkor import FalkorConnection
from loregraph.store.cypher.plan import WritePlan, plan_delete, plan_write
from loregraph.store.cypher.schema import SchemaState, ensure_schema, ensure_vector_index
from loregraph.store.cypher.url import CypherTarget, parse_cypher_url
from loregraph.store.sqlite.names import NameIndex
from loregraph.store.vectors import VersionedCache

WRITE_ATTEMPTS = 20


def connect(target: CypherTarget) -> Connection:
    """The connection class for the target's database kind (not opened)."""
    if target.kind == "falkordb":
        return FalkorConnection(target)
    return Neo4jConnection(target)


class CypherStore(Store):
    """A store in a FalkorDB graph or a Neo4j database, chosen by the URL's scheme.

    >>> store = CypherStore("falkordb://localhost:6379/kg")  # doctest: +SKIP
    >>> async with store: ...                                # doctest: +SKIP
    """

    def __init__(self, url: str, *, connection: Connection | None = None) -> None:
        self.target = parse_cypher_url(url)
        self.connection = connection or connect(self.target)
        self._schema: SchemaState | None = None
        self._lock = asyncio.Lock()
        self._names: VersionedCache[NameIndex] = VersionedCache()

    def __repr__(self) -> str:
        return f"CypherStore({self.target.redacted()!r})"

    @property
    def url(self) -> str:
        """The store's URL without its password."""
        return self.target.redacted()

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._schema is not None:
            return
        await self.connection.open()
        try:
            self._schema = await ensure_schema(self.connection, self.target.redacted())
        except BaseException:
            await self.connection.close()
            raise

    async def close(self) -> None:
        self._schema = None
        self._names.clear()
        await self.connection.close()

    def _conn(self) -> Connection:
        if self._schema is None:
            raise StoreError("the store is not open: use `await store.open()` or `async with`")
        return self.connection

    def _state(self) -> SchemaState:
        if self._schema is None:
            raise StoreError("the store is not open: use `await store.open()` or `async with`")
        return self._schema

    async def schema_version(self) -> int:
        return self._state().version

    # ----------------------------------------------------------------- writes
    async def write_document(self, bundle: DocumentBundle) -> None:
        """Write (or replace) a document atomically; ``ValueError`` for a bad bundle."""
        conn = self._conn()
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                plan = await plan_write(conn, bundle)
                if await self._apply(conn, plan):
                    return
        raise StoreError(f"could not write document {bundle.document.id}: too many conflicts")

    async def delete_document(self, document_id: str) -> DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        conn = self._conn()
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                plan = await plan_delete(conn, document_id)
                if plan is None:
                    return DeleteReport(document_id=document_id)
                if await self._apply(conn, plan):
                    return plan.report
        raise StoreError(f"could not delete document {document_id}: too many conflicts")

    async def _apply(self, conn: Connection, plan: WritePlan) -> bool:
        """Run the plan's statement; ``False`` when another writer got in first."""
        schema = self._state()
        for label, dim in plan.dims.items():
            await ensure_vector_index(conn, schema, label, dim)
        query, params = write_statement(plan, conn.dialect)
        rows = await conn.write(query, params)
        if not rows:
            return False
        for label, dim in plan.dims.items():
            schema.dims.setdefault(label, dim)
        return True

    async def set_document_status(self, document_id: str, status: DocStatus) -> None:
        """Record a document's status; raises :class:`NotFoundError` for an unknown id."""
        if not await reads.set_document_status(self._conn(), document_id, str(status)):
            raise NotFoundError(f"no document with id {document_id!r}")

    async def invalidate_relation(self, relation_id: str, invalid_at: datetime) -> None:
        """Set ``invalid_at``; raises :class:`NotFoundError` for an unknown relation."""
        async with self._lock:
            if not await graph.invalidate_relation(self._conn(), relation_id, invalid_at):
                raise NotFoundError(f"no relation with id {relation_id!r}")

    # ----------------------------------------------------------------- documents, chunks
    async def get_document(self, document_id: str) -> Document | None:
        return await reads.get_document(self._conn(), document_id)

    async def find_document(
        self, scope: str, *, content_hash: str | None = None, source: str | None = None
    ) -> Document | None:
        """A document by content hash and/or source; with both, both must match."""
        return await reads.find_document(self._conn(), scope, content_hash, source)

    async def list_documents(
        self, scope: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Document]:
        return await reads.list_documents(self._conn(), scope, limit, offset)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return await reads.get_chunks(self._conn(), list(chunk_ids))

    async def document_chunks(self, document_id: str) -> list[Chunk]:
        return await reads.document_chunks(self._conn(), document_id)

    async def search_chunks_text(self, scope: str, query: str, limit: int) -> list[Scored]:
        return await search.search_chunks_text(self._conn(), scope, query, limit)

    async def search_chunks_vector(self, scope: str, vector: Vector, limit: int) -> list[Scored]:
        return await search.search_vector(self._conn(), self._state(), CHUNK, scope, vector, limit)

    async def chunks_mentioning(
        self, entity_ids: Sequence[str], limit: int | None = None
    ) -> list[tuple[str, str, int]]:
        return await reads.chunks_mentioning(self._conn(), list(entity_ids), limit)

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        return await reads.get_entities(self._conn(), list(entity_ids))

    async def find_entities_by_key(self, scope: str, keys: Sequence[str]) -> dict[str, Entity]:
        return await reads.find_entities_by_key(self._conn(), scope, list(keys))

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[Scored]:
        """Trigram similarity (0..1) of ``name_key(name)`` to entity name and alias keys."""
        return (await self.search_entities_fuzzy_many(scope, [(name, entity_type)], limit))[0]

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[Scored]]:
        """Many fuzzy lookups against one in-memory name index of the scope."""
        if not queries:
            return []
        conn = self._conn()
        version = await graph.graph_version(conn, scope)
        index = self._names.get(scope, version)
        if index is None:
            index = await search.load_names(conn, scope, version)
            self._names.put(scope, index)
        asked = [(name_key(name), kind) for name, kind in queries]
        return [[Scored(i, s) for i, s in row] for row in index.search_many(asked, limit)]

    async def search_entities_text(self, scope: str, query: str, limit: int) -> list[Scored]:
        return await search.search_text(self._conn(), ENTITY, scope, query, limit)

    async def search_entities_vector(
        self, scope: str, vector: Vector, limit: int, *, entity_type: str | None = None
    ) -> list[Scored]:
        return await search.search_vector(
            self._conn(), self._state(), ENTITY, scope, vector, limit, entity_type
        )

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, Vector]:
        return await reads.entity_embeddings(self._conn(), list(entity_ids))

    async def list_entities(
        self,
        scope: str,
        *,
        entity_type: str | None = None,
        order: str = "mentions",
        limit: int | None = 100,
        offset: int = 0,
    ) -> list[Entity]:
        return await reads.list_entities(self._conn(), scope, entity_type, order, limit, offset)

    # ----------------------------------------------------------------- relations, graph
    async def entity_relations(
        self,
        entity_id: str,
        *,
        direction: str = "both",
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        limit: int | None = None,
    ) -> list[Relation]:
        return await graph.entity_relations(self._conn(), entity_id, direction, types, at, limit)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[Relation]:
        return await graph.relations_among(self._conn(), list(entity_ids))

    async def search_relations_text(self, scope: str, query: str, limit: int) -> list[Scored]:
        return await search.search_relations_text(self._conn(), scope, query, limit)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[Relation]:
        return await graph.get_relations(self._conn(), list(relation_ids))

    @property
    def native_graph(self) -> bool:
        """``True``: retrieval's k-hop expansion runs in this graph database."""
        return True

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
        """BFS from the seeds in one Cypher query (seeds outside ``scope`` ignored)."""
        return await graph.expand(
            self._conn(), scope, list(seed_ids), depth, per_node, max_entities, types, min_weight
        )

    async def graph_arrays(self, scope: str) -> GraphArrays:
        return await graph.graph_arrays(self._conn(), scope)

    async def graph_version(self, scope: str) -> int:
        return await graph.graph_version(self._conn(), scope)

    # ----------------------------------------------------------------- merges, cache, bulk
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[Merge]:
        return await reads.list_merges(self._conn(), scope, entity_id)

    async def read_bundle(self, document_id: str) -> DocumentBundle | None:
        return await read_bundle(self._conn(), document_id)

    async def cache_get(self, key: str) -> str | None:
        return await reads.cache_get(self._conn(), key)

    async def cache_put(self, key: str, model: str, value: str) -> None:
        await reads.cache_put(self._conn(), key, model, value, reads.now_text())

    async def iter_entities(self, scope: str, batch: int = 1000) -> AsyncIterator[Entity]:
        after = ""
        while True:
            page = await reads.entities_page(self._conn(), scope, after, batch)
            if not page:
                return
            for entity in page:
                yield entity
            after = page[-1].id

    async def iter_relations(self, scope: str, batch: int = 1000) -> AsyncIterator[Relation]:
        after = ""
        while True:
            page = await graph.relations_page(self._conn(), scope, after, batch)
            if not page:
                return
            for relation in page:
                yield relation
            after = page[-1].id

    async def stats(self, scope: str) -> StoreStats:
        return await reads.stats(self._conn(), scope, self._state().version)

    async def scopes(self) -> list[str]:
        return await reads.scopes(self._conn())


__all__ = ["CypherStore", "connect"]

"""The Cypher store: FalkorDB or Neo4j behind the same queries.

``CypherStore("falkordb://localhost:6379/kg")`` or ``CypherStore("neo4j://user:pw@host/db")``.
Writes are planned in Python from a few reads (:mod:`loregraph.store.plan` over
:mod:`.state`) and carried out by one
statement (:mod:`.apply`): atomic on both databases, and re-planned when another writer
committed in between. Writes from one store object are serialised by a lock; search and
graph semantics follow the SQL stores (:mod:`.graph`, :mod:`.search`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from loregraph import models
from loregraph.store.base import Store
from loregraph.store.cypher import changes, graph, provenance, reads, search
from loregraph.store.cypher.apply import write_statement
from loregraph.store.cypher.bolt import Neo4jConnection
from loregraph.store.cypher.bundle import read_bundle
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.dialect import CHUNK, ENTITY
from loregraph.store.cypher.falkor import FalkorConnection
from loregraph.store.cypher.ledger import CypherLedger
from loregraph.store.cypher.schema import SchemaState, ensure_schema, ensure_vector_index
from loregraph.store.cypher.state import CypherWriteState
from loregraph.store.cypher.url import CypherTarget, parse_cypher_url
from loregraph.store.hops import Hop
from loregraph.store.plan import WritePlan
from loregraph.store.planned import EntityEdit, Opened, PlannedWrites
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    TextSearch,
    VectorSearch,
)

LABELS = {"entity": ENTITY, "chunk": CHUNK}
"""The node label of each kind of record a plan gives embeddings to."""


def connect(target: CypherTarget) -> Connection:
    """The connection class for the target's database kind (not opened)."""
    if target.kind == "falkordb":
        return FalkorConnection(target)
    return Neo4jConnection(target)


class CypherStore(Opened[Connection, SchemaState], PlannedWrites, CypherLedger, Store):
    """A store in a FalkorDB graph or a Neo4j database, chosen by the URL's scheme.

    >>> store = CypherStore("falkordb://localhost:6379/kg")  # doctest: +SKIP
    >>> async with store: ...                                # doctest: +SKIP
    """

    filters_documents = True

    target: CypherTarget

    def __init__(self, url: str, *, connection: Connection | None = None) -> None:
        self.target = parse_cypher_url(url)
        self.connection = connection or connect(self.target)
        self._schema: SchemaState | None = None
        self._lock = asyncio.Lock()

    # ----------------------------------------------------------------- lifecycle
    async def _ensure_schema(self) -> SchemaState:
        return await ensure_schema(self.connection, self.target.redacted())

    async def close(self) -> None:
        self._schema = None
        await self.connection.close()

    # ----------------------------------------------------------------- writes
    def _reads(self) -> CypherWriteState:
        return CypherWriteState(self._conn())

    async def _apply(self, plan: WritePlan) -> bool:
        """Run the plan's statement; ``False`` when another writer got in first."""
        conn, schema = self._conn(), self._state()
        dims = {LABELS[kind]: dim for kind, dim in plan.dims.items()}
        for label, dim in dims.items():
            await ensure_vector_index(conn, schema, label, dim)
        query, params = write_statement(plan, conn.dialect)
        rows = await conn.write(query, params)
        if not rows:
            return False
        for label, dim in dims.items():
            schema.dims.setdefault(label, dim)
        return True

    async def _end(self, relation_id: str, invalid_at: str, by: str | None) -> bool:
        return await graph.invalidate_relation(self._conn(), relation_id, invalid_at, by)

    # ----------------------------------------------------------------- documents, chunks
    async def get_document(self, document_id: str) -> models.Document | None:
        return await reads.get_document(self._conn(), document_id)

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        return await reads.documents(self._conn(), query)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await reads.get_chunks(self._conn(), list(chunk_ids))

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        if ask.kind == "entity":
            return await search.search_text(self._conn(), ENTITY, ask.query, ask)
        return await search.search_chunks_text(self._conn(), ask)

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await reads.get_entities(self._conn(), list(entity_ids))

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await reads.find_entities_by_key(self._conn(), scope, list(keys))

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await search.search_vector(self._conn(), self._state(), ask)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await reads.entity_embeddings(self._conn(), list(entity_ids))

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await reads.list_entities(self._conn(), listing)

    # ----------------------------------------------------------------- relations, graph
    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        """One query for a whole hop."""
        return await graph.relations_touching(self._conn(), hop)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await graph.get_relations(self._conn(), list(relation_ids))

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await graph.graph_arrays(self._conn(), scope)

    async def graph_version(self, scope: str) -> int:
        return await graph.graph_version(self._conn(), scope)

    # ----------------------------------------------------------------- merges, bundles, bulk
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await reads.list_merges(self._conn(), scope, entity_id)

    # ----------------------------------------------------------------- decisions, audit, edits
    async def _apply_edit(self, edit: EntityEdit) -> None:
        await changes.apply_edit(self._conn(), edit)

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        return await read_bundle(self._conn(), document_id)

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await provenance.entity_sources(self._conn(), list(entity_ids))

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await provenance.relation_sources(self._conn(), list(relation_ids))

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        return await reads.entities_page(self._conn(), scope, after, batch)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        return await graph.relations_page(self._conn(), scope, after, batch)

    async def stats(self, scope: str) -> models.StoreStats:
        return await reads.stats(self._conn(), scope, self._state().version)

    async def scopes(self) -> list[str]:
        return await reads.scopes(self._conn())

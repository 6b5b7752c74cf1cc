"""The SurrealDB store: an embedded engine (``mem://``, ``surrealkv://PATH``) or a server.

Writes are planned in Python from a few reads (:mod:`loregraph.store.plan` over
:mod:`.state`, as for the Cypher store) and carried out by one transaction
(:mod:`.apply`), planned again when another writer committed in between; writes from one
store object are serialised by a lock. Expansion and PageRank run on the in-memory graph
index like every backend's; one hop of a path search is one traversal query.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from loregraph import models
from loregraph.errors import NotFoundError, StoreError
from loregraph.store.base import NOT_OPEN, Store
from loregraph.store.hops import Hop
from loregraph.store.ledger import LedgerQuery, LedgerRow
from loregraph.store.plan import WritePlan, plan_delete, plan_write
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    TextSearch,
    VectorSearch,
)
from loregraph.store.surreal import graph, reads, search
from loregraph.store.surreal.apply import transaction
from loregraph.store.surreal.compact import recover, rewrite
from loregraph.store.surreal.connection import CONFLICT, SurrealConnection, SurrealTarget
from loregraph.store.surreal.schema import SchemaState, ensure_schema, ensure_vector_index
from loregraph.store.surreal.state import SurrealWriteState, relation_sources

WRITE_ATTEMPTS = 20
_LEDGER_WHERE = "kind = $kind AND part = $part AND key = $key"


class SurrealStore(Store):
    """A store in a SurrealDB database.

    >>> store = SurrealStore("surrealkv://kg.surreal")  # doctest: +SKIP
    >>> async with store: ...                           # doctest: +SKIP
    """

    def __init__(self, url: str) -> None:
        self.target = SurrealTarget.parse(url)
        self.connection = SurrealConnection(self.target)
        self._schema: SchemaState | None = None
        self._lock = asyncio.Lock()
        self._removed = False
        """Whether something was removed since opening (a ``surrealkv`` store is then
        rewritten when it closes: :mod:`.compact`)."""

    def __repr__(self) -> str:
        return f"SurrealStore({self.target.redacted()!r})"

    @property
    def url(self) -> str:
        """The store's location without its password."""
        return self.target.redacted()

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self._schema is not None:
            return
        if self.target.scheme == "surrealkv":
            recover(Path(self.target.path))
        await self.connection.open()
        try:
            self._schema = await ensure_schema(self.connection, self.target.redacted())
        except BaseException:
            await self.connection.close()
            raise

    async def close(self) -> None:
        """Close; a ``surrealkv`` store that removed anything is first rewritten so that
        nothing removed stays in its files (:mod:`.compact`)."""
        schema, self._schema = self._schema, None
        removed, self._removed = self._removed, False
        if schema is not None and removed and self.target.scheme == "surrealkv":
            await rewrite(self.connection, schema.dims)
        await self.connection.close()

    def _conn(self) -> SurrealConnection:
        self._state()
        return self.connection

    def _state(self) -> SchemaState:
        if self._schema is None:
            raise StoreError(NOT_OPEN)
        return self._schema

    # ----------------------------------------------------------------- writes
    async def write_document(self, bundle: models.DocumentBundle) -> None:
        """Write (or replace) a document atomically; ``ValueError`` for a bad bundle."""
        conn = self._conn()
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                if await self._apply(await plan_write(SurrealWriteState(conn), bundle)):
                    return
        raise StoreError(f"could not write document {bundle.document.id}: too many conflicts")

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        conn = self._conn()
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                plan = await plan_delete(SurrealWriteState(conn), document_id, ends)
                if plan is None:
                    return models.DeleteReport(document_id=document_id)
                if await self._apply(plan):
                    return plan.report
        raise StoreError(f"could not delete document {document_id}: too many conflicts")

    async def _apply(self, plan: WritePlan) -> bool:
        """Run the plan's transaction; ``False`` when another writer got in first."""
        schema = self._state()
        for table, dim in plan.dims.items():
            await ensure_vector_index(self.connection, schema, table, dim)
        self._removed |= plan.replace or bool(plan.dead_entities or plan.dead_relations)
        try:
            await self.connection.run(*transaction(plan))
        except StoreError as exc:
            if CONFLICT in str(exc):
                return False
            raise
        return True

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """End a relation; raises :class:`NotFoundError` for an unknown relation."""
        async with self._lock:
            if not await graph.invalidate_relation(self._conn(), relation_id, invalid_at, by):
                raise NotFoundError(f"no relation with id {relation_id!r}")

    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        async with self._lock:
            found = await graph.update_entity(self._conn(), entity_id, name, entity_type)
            self._removed = True
        if not found:
            raise NotFoundError(f"no entity with id {entity_id!r}")
        return (await reads.get_entities(self._conn(), [entity_id]))[0]

    # ----------------------------------------------------------------- ledger
    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        params = {"kind": row.kind, "part": row.part, "key": row.key}
        params["value"] = json.dumps(row.value, sort_keys=True)
        when_found = "UPDATE $found SET value = $value; true" if replace else "false"
        async with self._lock:
            result = await self._conn().run(
                "BEGIN TRANSACTION; "
                f"LET $found = (SELECT VALUE id FROM ledger WHERE {_LEDGER_WHERE}); "
                f"LET $done = IF array::len($found) > 0 {{ {when_found} }} ELSE {{ "
                "UPDATE meta:meta SET ledger += 1; CREATE ledger SET kind = $kind, part = $part, "
                "key = $key, value = $value, seq = (SELECT VALUE ledger FROM meta:meta)[0]; "
                "true }; RETURN $done; COMMIT TRANSACTION;",
                params,
            )
        return bool(result[-2])  # the last result is the COMMIT's

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        self._removed = True
        async with self._lock:
            gone = await self._conn().rows(
                f"DELETE ledger WHERE {_LEDGER_WHERE} RETURN BEFORE",
                {"kind": kind, "part": part, "key": key},
            )
        return bool(gone)

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        where = "" if query.part is None else " AND part = $part"
        order = " DESC" if query.newest_first else ""
        tail = "" if query.limit is None else f" LIMIT {max(0, int(query.limit))}"
        found = await self._conn().rows(
            f"SELECT kind, part, key, value, seq FROM ledger WHERE kind = $kind{where} "
            f"ORDER BY seq{order}{tail}",
            {"kind": query.kind, "part": query.part},
        )
        return [LedgerRow(r["kind"], r["part"], r["key"], json.loads(r["value"])) for r in found]

    # ----------------------------------------------------------------- documents, chunks
    async def get_document(self, document_id: str) -> models.Document | None:
        return await reads.get_document(self._conn(), document_id)

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        return await reads.documents(self._conn(), query)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await reads.get_chunks(self._conn(), chunk_ids)

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        return await search.search_text(self._conn(), ask)

    # ----------------------------------------------------------------- entities
    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await reads.get_entities(self._conn(), entity_ids)

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await reads.find_entities_by_key(self._conn(), scope, keys)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await search.search_vector(self._conn(), self._state(), ask)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await reads.entity_embeddings(self._conn(), entity_ids)

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await reads.list_entities(self._conn(), listing)

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await reads.entity_sources(self._conn(), entity_ids)

    # ----------------------------------------------------------------- relations, graph
    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        """One traversal query for a whole hop."""
        return await graph.relations_touching(self._conn(), hop)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await graph.get_relations(self._conn(), relation_ids)

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await relation_sources(self._conn(), list(relation_ids))

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await graph.graph_arrays(self._conn(), scope)

    async def graph_version(self, scope: str) -> int:
        return await graph.graph_version(self._conn(), scope)

    # ----------------------------------------------------------------- merges, copying, counts
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await reads.list_merges(self._conn(), scope, entity_id)

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        return await reads.read_bundle(self._conn(), document_id)

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

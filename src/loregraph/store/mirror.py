"""Mirror mode: SQL is the source of truth, a graph DB traverses.

``MirroredStore(SqliteStore("kg.db"), CypherStore("falkordb://localhost/kg"))`` answers every
call from the primary store except :meth:`~MirroredStore.expand`, which walks the graph
database; it declares ``native_graph``, so retrieval's k-hop expansion is asked of the graph
database rather than walked in memory (:mod:`loregraph.retrieve.expander`). After each
write, delete or invalidation on the primary, the entities that changed and their
relations are copied to the graph in one atomic statement:

* touched entities = those the document mentions or lists, before and after the change,
  and the ends of every edge whose weight changed (the scope's edges are compared before
  and after, from ``graph_arrays``, an in-memory snapshot);
* removed entities = those the graph holds for the scope but the primary no longer does
  (compared over the scope's full id list from ``graph_arrays``, so the mirror is exact
  after deletes even for entities the document listed without mentioning);
* a touched entity's edges are replaced by its relations in the primary, ended ones too
  (queries about the past follow them).

If the graph write fails after the primary committed, the mirror is behind: call
:meth:`MirroredStore.resync` (also what a new mirror of an existing store needs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from loregraph import models
from loregraph.access import ApiKey, Grant, ScopeLink
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.cypher import graph as cypher_graph
from loregraph.store.cypher.store import CypherStore
from loregraph.store.cypher.sync import apply_sync, graph_entity_ids
from loregraph.store.provenance import EntitySource, RelationSource
from loregraph.store.queries import (
    EntityListing,
    Expansion,
    Page,
    PageKey,
    RelationQuery,
    VectorSearch,
)

SYNC_BATCH = 500


@dataclass(slots=True)
class _Snapshot:
    """What the mirror compares before and after a change of the primary."""

    entities: set[str] = field(default_factory=set)
    edges: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    mentioned: set[str] = field(default_factory=set)


class MirroredStore(Store):
    """A primary store with a Cypher graph mirror used for expansion."""

    def __init__(self, primary: Store, graph: CypherStore) -> None:
        self.primary = primary
        self.graph = graph

    def __repr__(self) -> str:
        return f"MirroredStore({self.primary!r}, {self.graph!r})"

    # ----------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        await self.primary.open()
        try:
            await self.graph.open()
        except BaseException:
            await self.primary.close()
            raise

    async def close(self) -> None:
        try:
            await self.graph.close()
        finally:
            await self.primary.close()

    # ----------------------------------------------------------------- writes, mirrored
    async def write_document(self, bundle: models.DocumentBundle) -> None:
        doc = bundle.document
        before = await self._snapshot(doc.scope, doc.id)
        await self.primary.write_document(bundle)
        listed = {w.entity.id for w in bundle.entities}
        await self._sync(doc.scope, doc.id, before, listed)

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        doc = await self.primary.get_document(document_id)
        if doc is None:
            return await self.primary.delete_document(document_id, ends=ends)
        before = await self._snapshot(doc.scope, document_id)
        report = await self.primary.delete_document(document_id, ends=ends)
        touched = {end for rel in ends for end in (rel.source_id, rel.target_id) if end}
        await self._sync(doc.scope, document_id, before, touched)
        return report

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        await self.primary.invalidate_relation(relation_id, invalid_at, by=by)
        for relation in await self.primary.get_relations([relation_id]):
            ends = {relation.source_id, relation.target_id}
            await self._sync(relation.scope, None, _Snapshot(), ends)

    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        entity = await self.primary.update_entity(entity_id, name=name, entity_type=entity_type)
        await self._sync(entity.scope, None, _Snapshot(), {entity_id})
        return entity

    async def resync(self, scope: str) -> None:
        """Copy the scope's whole graph from the primary (idempotent)."""
        ids = (await self.primary.graph_arrays(scope)).entity_ids
        for start in range(0, max(len(ids), 1), SYNC_BATCH):
            await self._sync(scope, None, _Snapshot(), set(ids[start : start + SYNC_BATCH]))

    async def _snapshot(self, scope: str, document_id: str | None) -> _Snapshot:
        """The scope's edges and the entities a document mentions (per the primary)."""
        arrays = await self.primary.graph_arrays(scope)
        ids = arrays.entity_ids
        snapshot = _Snapshot()
        for src, dst, weight in zip(
            arrays.edge_src.tolist(),
            arrays.edge_dst.tolist(),
            arrays.edge_weight.tolist(),
            strict=True,
        ):
            snapshot.edges.setdefault((ids[src], ids[dst]), []).append(float(weight))
        chunks = {i for i, doc in enumerate(arrays.chunk_document) if doc == document_id}
        snapshot.mentioned = {
            ids[e]
            for e, c in zip(
                arrays.mention_entity.tolist(), arrays.mention_chunk.tolist(), strict=True
            )
            if c in chunks
        }
        snapshot.entities = set(ids)
        return snapshot

    async def _sync(
        self, scope: str, document_id: str | None, before: _Snapshot, touched: set[str]
    ) -> None:
        after = await self._snapshot(scope, document_id)
        touched = touched | before.mentioned | after.mentioned
        for pair in set(before.edges) | set(after.edges):
            if sorted(before.edges.get(pair, [])) != sorted(after.edges.get(pair, [])):
                touched |= set(pair)
        conn = self.graph.connection
        mirrored = await graph_entity_ids(conn, scope)
        alive = after.entities
        removed = sorted(mirrored - alive)
        touched = (touched | (alive - mirrored)) & alive
        relations: dict[str, models.Relation] = {}
        for entity_id in sorted(touched):
            for relation in await self.primary.entity_relations(entity_id, history=True):
                relations[relation.id] = relation
        ends = touched | {r.source_id for r in relations.values()}
        ends |= {r.target_id for r in relations.values()}
        entities = await self.primary.get_entities(sorted(ends))
        await apply_sync(conn, scope, removed, sorted(touched), entities, list(relations.values()))

    # ----------------------------------------------------------------- graph from the mirror
    @property
    def native_graph(self) -> bool:
        """``True``: retrieval's k-hop expansion runs in the graph database."""
        return True

    async def mirror_version(self, scope: str) -> int:
        """How many times the graph mirror of ``scope`` was written."""
        return await cypher_graph.graph_version(self.graph.connection, scope)

    # ----------------------------------------------------------------- everything else: primary
    async def get_document(self, document_id: str) -> models.Document | None:
        return await self.primary.get_document(document_id)

    async def _find_document(self, scope: str, criteria: dict[str, str]) -> models.Document | None:
        return await self.primary._find_document(scope, criteria)

    async def list_documents(
        self, scope: str, *, limit: int | None = None, offset: int = 0
    ) -> list[models.Document]:
        return await self.primary.list_documents(scope, limit=limit, offset=offset)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await self.primary.get_chunks(chunk_ids)

    async def search_chunks_text(
        self, scope: str, query: str, limit: int, *, kind: models.DocKind | None = None
    ) -> list[models.Scored]:
        return await self.primary.search_chunks_text(scope, query, limit, kind=kind)

    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await self.primary.get_entities(entity_ids)

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await self.primary.find_entities_by_key(scope, keys)

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        return await self.primary.search_entities_fuzzy(scope, name, limit, entity_type=entity_type)

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        return await self.primary.search_entities_fuzzy_many(scope, queries, limit)

    async def search_entities_vector_many(
        self, scope: str, queries: Sequence[tuple[models.Vector, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        return await self.primary.search_entities_vector_many(scope, queries, limit)

    async def search_entities_text(self, scope: str, query: str, limit: int) -> list[models.Scored]:
        return await self.primary.search_entities_text(scope, query, limit)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        return await self.primary._search_vector(ask)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await self.primary.entity_embeddings(entity_ids)

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await self.primary._list_entities(listing)

    async def _entity_relations(self, query: RelationQuery) -> list[models.Relation]:
        return await self.primary._entity_relations(query)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[models.Relation]:
        return await self.primary.relations_among(entity_ids)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await self.primary.get_relations(relation_ids)

    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        return await self.primary.graph_arrays(scope)

    async def graph_version(self, scope: str) -> int:
        return await self.primary.graph_version(scope)

    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await self.primary.list_merges(scope, entity_id)

    async def add_decision(self, decision: Decision) -> None:
        await self.primary.add_decision(decision)

    async def remove_decision(self, scope: str, kind: str, merge_id: str) -> bool:
        return await self.primary.remove_decision(scope, kind, merge_id)

    async def list_decisions(self, scope: str) -> list[Decision]:
        return await self.primary.list_decisions(scope)

    async def add_audit(self, entry: AuditEntry) -> None:
        await self.primary.add_audit(entry)

    async def list_audit(self, scope: str, limit: int | None = None) -> list[AuditEntry]:
        return await self.primary.list_audit(scope, limit)

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        return await self.primary.read_bundle(document_id)

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await self.primary.entity_sources(entity_ids)

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await self.primary.relation_sources(relation_ids)

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        return await self.primary._entities_page(scope, after, batch)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        return await self.primary._relations_page(scope, after, batch)

    async def stats(self, scope: str) -> models.StoreStats:
        return await self.primary.stats(scope)

    async def scopes(self) -> list[str]:
        return await self.primary.scopes()

    async def _expand(self, expansion: Expansion) -> models.Subgraph:
        """The expansion hook of :class:`Store`, answered by the graph database."""
        return await self.graph._expand(expansion)

    async def relations_touching(
        self,
        entity_ids: Sequence[str],
        *,
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        reaching: Sequence[str] | None = None,
    ) -> list[models.Relation]:
        """A hop of a path search, answered by the graph database."""
        return await self.graph.relations_touching(
            entity_ids, types=types, at=at, reaching=reaching
        )

    # ----------------------------------------------------------------- API keys (primary)
    async def add_api_key(self, key: ApiKey) -> None:
        await self.primary.add_api_key(key)

    async def api_key_by_hash(self, key_hash: str) -> ApiKey | None:
        return await self.primary.api_key_by_hash(key_hash)

    async def list_api_keys(self) -> list[ApiKey]:
        return await self.primary.list_api_keys()

    async def revoke_api_key(self, name: str, at: datetime) -> bool:
        return await self.primary.revoke_api_key(name, at)

    # ----------------------------------------------------------------- grants and links (primary)
    async def add_grant(self, grant: Grant) -> None:
        await self.primary.add_grant(grant)

    async def remove_grant(self, principal: str, scope: str) -> bool:
        return await self.primary.remove_grant(principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        return await self.primary.list_grants(principal)

    async def add_scope_link(self, link: ScopeLink) -> None:
        await self.primary.add_scope_link(link)

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        return await self.primary.remove_scope_link(scope, linked)

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        return await self.primary.scope_links(scope)

"""A store as one principal sees it: the graph built from the documents it may read.

:class:`VisibleStore` wraps any store for one principal, given when it is made
(:meth:`VisibleStore.seen_by` gives the view of another, sharing the caches). For the
store's operator (no principal: library use, the command line without ``--principal``, a
server without keys), or when the principal reads every
document of a scope, each call goes straight to the wrapped store and costs nothing more.
Otherwise passages of unreadable documents are left out, and every entity, relation, alias,
description, count and evidence sentence is derived again from the readable documents'
contributions only (:mod:`.derive`): what a principal sees is exactly what those documents
support. Writes go through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from loregraph import models
from loregraph.access import Principal
from loregraph.store.base import Store
from loregraph.store.hops import Hop
from loregraph.store.queries import (
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    RelationFilter,
    RelationQuery,
    TextSearch,
    VectorSearch,
)
from loregraph.store.visible import filters, matches, snapshot
from loregraph.store.visible.derive import visible_merge
from loregraph.store.visible.passthrough import Passthrough
from loregraph.store.visible.readers import Readers, ReadersCache

SNAPSHOTS = 8
"""Whole-scope views kept (per scope and readable set)."""
Snapshots = dict[tuple[str, frozenset[str]], tuple[int | None, snapshot.VisibleGraph]]
"""Whole-scope views by scope and readable set, with the graph version they were built at."""


class VisibleStore(Passthrough):
    """``inner`` as ``principal`` sees it (``None``: the store's operator; see the module
    notes)."""

    def __init__(
        self,
        inner: Store,
        principal: Principal | None = None,
        *,
        shared: tuple[ReadersCache, Snapshots] | None = None,
    ) -> None:
        super().__init__(inner)
        cache, self._graphs = shared or (ReadersCache(), {})
        self.readers = Readers(inner, principal, cache)

    def changed(self) -> None:
        self.readers.forget()

    @classmethod
    def over(cls, store: Store) -> VisibleStore:
        """``store`` wrapped once (a store already wrapped is returned as it is)."""
        return store if isinstance(store, VisibleStore) else cls(store)

    def seen_by(self, principal: Principal | None) -> VisibleStore:
        """The same store as ``principal`` sees it (``None``: the operator), sharing what
        this view has cached."""
        return VisibleStore(self.inner, principal, shared=(self.readers.cache, self._graphs))

    def _operator(self) -> bool:
        return self.readers.everything()

    # ----------------------------------------------------------------- documents
    async def get_document(self, document_id: str) -> models.Document | None:
        doc = await self.inner.get_document(document_id)
        return doc if doc is None or await self._reads(doc) else None

    async def _reads(self, doc: models.Document) -> bool:
        readable = await self.readers.readable(doc.scope)
        return readable is None or doc.id in readable

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        readable = await self.readers.readable(query.scope)
        if readable is None:
            return await self.inner._documents(query)
        every = replace(query, limit=None, offset=0)
        shown = [d for d in await self.inner._documents(every) if d.id in readable]
        return shown[query.offset : None if query.limit is None else query.offset + query.limit]

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        found = await self.inner.read_bundle(document_id)
        if found is None or not await self._reads(found.document):
            return None
        readable = await self.readers.readable(found.document.scope)
        return await filters.bundle(self.inner, self.readers, found, readable)

    async def scopes(self) -> list[str]:
        names = await self.inner.scopes()
        if self._operator():
            return names
        shown = []
        for scope in names:
            readable = await self.readers.readable(scope)
            if readable is None or readable:
                shown.append(scope)
        return shown

    # ----------------------------------------------------------------- chunks
    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await filters.chunks(
            self.inner, self.readers, await self.inner.get_chunks(chunk_ids)
        )

    async def _chunk_ids(self, ids: list[str]) -> set[str]:
        return {chunk.id for chunk in await self.get_chunks(ids)}

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        readable = await self.readers.readable(ask.scope)
        if readable is None:
            return await self.inner._search_text(ask)
        if ask.kind == "chunk" and self.inner.filters_documents:
            return await self.inner._search_text(replace(ask, documents=readable))

        async def search(n: int) -> list[models.Scored]:
            return await self.inner._search_text(replace(ask, limit=n))

        if ask.kind == "chunk":
            return await filters.ranked(search, self._chunk_ids, ask.limit)

        async def keep(ids: list[str]) -> set[str]:
            shown = await self._shown(ids)
            return {i for i, e in shown.items() if matches.matches_text(ask.query, e)}

        return await filters.ranked(search, keep, ask.limit)

    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        readable = await self.readers.readable(ask.scope)
        if readable is None:
            return await self.inner._search_vector(ask)
        if ask.kind == "chunk" and self.inner.filters_documents:
            return await self.inner._search_vector(replace(ask, documents=readable))

        async def search(n: int) -> list[models.Scored]:
            return await self.inner._search_vector(replace(ask, limit=n))

        if ask.kind == "chunk":
            return await filters.ranked(search, self._chunk_ids, ask.limit)
        return await filters.ranked(search, self._entity_keep(ask.scope), ask.limit)

    # ----------------------------------------------------------------- entities
    def _entity_keep(self, scope: str) -> filters.Keep:
        async def keep(ids: list[str]) -> set[str]:
            return await filters.visible_entity_ids(self.inner, self.readers, scope, ids)

        return keep

    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        found = await self.inner.get_entities(entity_ids)
        return await filters.entities(self.inner, self.readers, found)

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        found = await self.inner.find_entities_by_key(scope, keys)
        if await self.readers.readable(scope) is None:
            return found
        seen = await filters.entities(self.inner, self.readers, list(found.values()))
        shown = {e.id: e for e in seen}
        return {
            key: shown[e.id]
            for key, e in found.items()
            if e.id in shown and key in matches.names_of(shown[e.id])
        }

    async def _shown(self, ids: list[str]) -> dict[str, models.Entity]:
        return {e.id: e for e in await self.get_entities(ids)}

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        if await self.readers.readable(scope) is None:
            return await self.inner.search_entities_fuzzy(
                scope, name, limit, entity_type=entity_type
            )

        async def search(n: int) -> list[models.Scored]:
            return await self.inner.search_entities_fuzzy(scope, name, n, entity_type=entity_type)

        async def keep(ids: list[str]) -> set[str]:  # like the name by what it shows
            return {h.id for h in matches.rescored_by_name(name, hits(ids), await self._shown(ids))}

        def hits(ids: list[str]) -> list[models.Scored]:
            return [models.Scored(i, 1.0) for i in ids]

        kept = await filters.ranked(search, keep, limit)
        return matches.rescored_by_name(name, kept, await self._shown([h.id for h in kept]))

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        if await self.readers.readable(scope) is None:
            return await self.inner.search_entities_fuzzy_many(scope, queries, limit)
        return await super().search_entities_fuzzy_many(scope, queries, limit)

    async def search_entities_vector_many(
        self, scope: str, queries: Sequence[tuple[models.Vector, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        if await self.readers.readable(scope) is None:
            return await self.inner.search_entities_vector_many(scope, queries, limit)
        return await super().search_entities_vector_many(scope, queries, limit)

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        found = await self.inner.entity_embeddings(entity_ids)
        if self.readers.everything():
            return found
        shown = {e.id for e in await self.get_entities(list(found))}
        return {entity_id: v for entity_id, v in found.items() if entity_id in shown}

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        graph = await self._graph(listing.scope)
        if graph is None:
            return await self.inner._list_entities(listing)
        return snapshot.listing(
            graph, listing.entity_type, listing.order, listing.limit, listing.offset
        )

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        if await self.readers.readable(scope) is None:
            return await self.inner._entities_page(scope, after, batch)
        page: Page[models.Entity] = []
        while len(page) < batch:
            found = await self.inner._entities_page(scope, after, batch)
            if not found:
                break
            shown = {
                e.id: e
                for e in await filters.entities(self.inner, self.readers, [e for _, e in found])
            }
            page.extend((key, shown[e.id]) for key, e in found if e.id in shown)
            after = found[-1][0]
        return page

    # ----------------------------------------------------------------- relations
    async def _entity_relations(self, query: RelationQuery) -> list[models.Relation]:
        if self._operator():
            return await self.inner._entity_relations(query)
        entity = await self.inner.get_entities([query.entity_id])
        readable = await self.readers.readable(entity[0].scope) if entity else None
        if readable is None:
            return await self.inner._entity_relations(query)
        graph = self._built(entity[0].scope, readable)
        if graph is not None:  # copies: callers may change what they get
            shown = [
                replace(r, evidence=list(r.evidence))
                for r in graph.touching(query.entity_id, query.direction)
            ]
        else:
            every = replace(query, filter=replace(query.filter, history=True), limit=None)
            shown = await filters.relations(
                self.inner, self.readers, await self.inner._entity_relations(every)
            )
        kept = [r for r in shown if query.filter.admits(r)]
        kept.sort(key=lambda r: -r.weight)
        return kept[: query.limit] if query.limit is not None else kept

    async def relations_among(self, entity_ids: Sequence[str]) -> list[models.Relation]:
        if self._operator():
            return await self.inner.relations_among(entity_ids)
        scopes = {e.scope for e in await self.inner.get_entities(entity_ids)}
        readable = await self.readers.per_scope(sorted(scopes))
        if all(ids is None for ids in readable.values()):
            return await self.inner.relations_among(entity_ids)
        wanted = set(entity_ids)
        graph = None
        if len(readable) == 1:
            scope, ids = next(iter(readable.items()))
            graph = self._built(scope, ids) if ids is not None else None
        if graph is not None:
            among = {
                r.id: replace(r, evidence=[])
                for entity_id in wanted
                for r in graph.touching(entity_id)
                if {r.source_id, r.target_id} <= wanted and RelationFilter().admits(r)
            }
            return sorted(among.values(), key=lambda r: -r.weight)
        # each entity's relations as the principal sees them: a relation an unreadable
        # document ended is live for it, and the store's own query would leave it out
        found: dict[str, models.Relation] = {}
        for entity_id in dict.fromkeys(entity_ids):
            live = RelationQuery(entity_id, "both", RelationFilter(), None)
            for relation in await self._entity_relations(live):
                if {relation.source_id, relation.target_id} <= wanted:
                    found.setdefault(relation.id, replace(relation, evidence=[]))
        return sorted(found.values(), key=lambda r: -r.weight)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        found = await self.inner.get_relations(relation_ids)
        return await filters.relations(self.inner, self.readers, found)

    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        if self._operator():
            return await self.inner._relations_touching(hop)
        return await super()._relations_touching(hop)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        graph = await self._graph(scope)
        if graph is None:
            return await self.inner._relations_page(scope, after, batch)
        start = 0 if after is None else int(after)
        chosen = graph.relations[start : start + batch]
        return [(start + i + 1, relation) for i, relation in enumerate(chosen)]

    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        found = await self.inner.list_merges(scope, entity_id)
        readable = await self.readers.readable(scope)
        if readable is None:
            return found
        entities = {m.entity_id for m in found}
        seen = await filters.visible_entity_ids(self.inner, self.readers, scope, list(entities))
        return [m for m in found if visible_merge(m, readable) and m.entity_id in seen]

    # ----------------------------------------------------------------- graph
    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        full = await self.inner.graph_arrays(scope)
        graph = await self._graph(scope)
        return full if graph is None else snapshot.arrays(full, graph)

    async def graph_version(self, scope: str) -> int:
        version = await self.inner.graph_version(scope)
        readable = await self.readers.readable(scope)
        return version if readable is None else hash((version, readable))

    async def stats(self, scope: str) -> models.StoreStats:
        full = await self.inner.stats(scope)
        graph = await self._graph(scope)
        if graph is None:
            return full
        return snapshot.stats(
            full, graph, snapshot.arrays(await self.inner.graph_arrays(scope), graph)
        )

    async def _graph(self, scope: str) -> snapshot.VisibleGraph | None:
        """The scope as the principal sees it, built when it is not (``None``: nothing to
        filter)."""
        readable = await self.readers.readable(scope)
        if readable is None:
            return None
        graph = self._built(scope, readable)
        if graph is not None:
            return graph
        version = self.readers.version(scope)
        graph = await snapshot.visible_graph(self.inner, scope, readable)
        if len(self._graphs) >= SNAPSHOTS:
            self._graphs.pop(next(iter(self._graphs)))
        self._graphs[(scope, readable)] = (version, graph)
        return graph

    def _built(self, scope: str, readable: frozenset[str]) -> snapshot.VisibleGraph | None:
        """The principal's view of the scope if it is built and current."""
        cached = self._graphs.get((scope, readable))
        if cached is None or cached[0] != self.readers.version(scope):
            return None
        return cached[1]

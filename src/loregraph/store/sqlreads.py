# mypy: disable-error-code="no-any-return"
"""The reads a SQL backend answers with one function each of its own modules: the SQL stays
in the backend's ``reads``, ``search``, ``graph`` and ``cleanup`` modules, and what calls
them is written here once. A backend names its modules and says how a read runs
(:meth:`SqlReads._query`: SQLite on its worker thread, PostgreSQL on a pooled connection).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from loregraph import models
from loregraph.store.hops import Hop
from loregraph.store.queries import (
    DocumentQuery,
    EntityListing,
    Page,
    PageKey,
    RelationQuery,
    TextSearch,
)
from loregraph.store.rows import RELATION_FIELDS, columns

RELATION_SELECT = (
    f"SELECT r.id, s.id, t.id, {columns(RELATION_FIELDS[3:], 'r')} FROM relations AS r "
    "JOIN entities AS s ON s.pk = r.source JOIN entities AS t ON t.pk = r.target"
)
"""Relation rows (alias ``r``) with their ends' text ids, in both SQL stores' tables;
append ``WHERE``/``ORDER BY``."""
MERGE_SELECT = (
    "SELECT e.id, m.surface, m.rule, m.score, m.scope, d.id, m.created_at FROM merges AS m "
    "JOIN entities AS e ON e.pk = m.entity LEFT JOIN documents AS d ON d.pk = m.document"
)
"""Merge rows with their entity's and document's text ids."""


class SqlReads:
    """Contract reads written once over a SQL backend's modules (see the module docstring).

    The SQL backends keep chunk searches to the readable documents in their own queries
    (:attr:`~loregraph.store.base.Store.filters_documents`).

    Each function is called with the backend's connection first, then the arguments. A
    function is looked up by name in a module, so its type is checked where it is defined
    and the contract's signature here says what it returns (hence no ``no-any-return``).
    """

    filters_documents = True
    _reads: ModuleType
    _search: ModuleType
    _graph: ModuleType
    _cleanup: ModuleType

    async def _query(self, fn: Any, *args: Any) -> Any:
        """``fn(connection, *args)`` run as the backend runs a read."""
        raise NotImplementedError

    async def get_document(self, document_id: str) -> models.Document | None:
        return await self._query(self._reads.get_document, document_id)

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        return await self._query(self._reads.documents, query)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        return await self._query(self._reads.get_chunks, list(chunk_ids))

    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        chunks, entities = self._search.search_chunks_text, self._search.search_entities_text
        return await self._query(entities if ask.kind == "entity" else chunks, ask)

    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        return await self._query(self._reads.get_entities, list(entity_ids))

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        return await self._query(self._reads.find_entities_by_key, scope, list(keys))

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        return await self._query(self._reads.entity_embeddings, list(entity_ids))

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        return await self._query(self._reads.list_entities, listing)

    async def _entity_relations(self, query: RelationQuery) -> list[models.Relation]:
        return await self._query(self._graph.entity_relations, query)

    async def relations_among(self, entity_ids: Sequence[str]) -> list[models.Relation]:
        return await self._query(self._graph.relations_among, list(entity_ids))

    async def _relations_touching(self, hop: Hop) -> list[models.Relation]:
        """One query for a whole hop."""
        return await self._query(self._graph.relations_touching, hop)

    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        return await self._query(self._graph.get_relations, list(relation_ids))

    async def graph_version(self, scope: str) -> int:
        return await self._query(self._cleanup.read_graph_version, scope)

    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        return await self._query(self._reads.list_merges, scope, entity_id)

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        return await self._query(self._reads.entities_page, scope, after, batch)

    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        return await self._query(self._reads.relations_page, scope, after, batch)

    async def scopes(self) -> list[str]:
        return await self._query(self._reads.scopes)

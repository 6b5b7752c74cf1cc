"""Fuzzy entity-name search written once for every backend (a base of
:class:`~loregraph.store.base.Store`): trigram similarity of name keys
(:class:`~loregraph.store.names.NameIndex`) over an in-memory index of a scope's names and
aliases, read with ``_list_entities`` and read again when the scope's graph version moves.
A backend with a similarity index of its own (SQLite, PostgreSQL) overrides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loregraph.models import Entity, Scored, name_key
from loregraph.store.names import NameIndex, key_lines
from loregraph.store.queries import EntityListing
from loregraph.store.vectors import VersionedCache


class NameSearch:
    """``search_entities_fuzzy`` and its batched form."""

    if TYPE_CHECKING:

        async def graph_version(self, scope: str) -> int: ...

        async def _list_entities(self, listing: EntityListing) -> list[Entity]: ...

    async def search_entities_fuzzy(
        self, scope: str, name: str, limit: int, *, entity_type: str | None = None
    ) -> list[Scored]:
        """Entity ids whose name or alias is like ``name`` (trigram similarity, 0..1)."""
        return (await self._by_names(scope, [(name, entity_type)], limit))[0]

    async def search_entities_fuzzy_many(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[Scored]]:
        """:meth:`search_entities_fuzzy` for many ``(name, entity_type)`` queries at once.

        Returns one result list per query, in order, each exactly what
        :meth:`search_entities_fuzzy` returns for it (a backend with its own
        :meth:`search_entities_fuzzy` is asked once per query unless it batches them too).
        """
        if type(self).search_entities_fuzzy is not NameSearch.search_entities_fuzzy:
            return [
                await self.search_entities_fuzzy(scope, name, limit, entity_type=entity_type)
                for name, entity_type in queries
            ]
        return await self._by_names(scope, queries, limit)

    async def _by_names(
        self, scope: str, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[Scored]]:
        if not queries:
            return []
        cache: VersionedCache[NameIndex] | None = getattr(self, "_name_indexes", None)
        if cache is None:
            cache = VersionedCache()
            self._name_indexes = cache
        version = await self.graph_version(scope)
        index = cache.get(scope, version)
        if index is None:
            entities = await self._list_entities(EntityListing(scope, None, "name", None, 0))
            index = NameIndex.build(
                (
                    (e.id, e.type, key_lines([name_key(e.name), *map(name_key, e.aliases)]))
                    for e in sorted(entities, key=lambda e: e.id)
                ),
                version,
            )
            cache.put(scope, index)
        asked = [(name_key(name), kind) for name, kind in queries]
        return [[Scored(i, s) for i, s in row] for row in index.search_many(asked, limit)]

"""The SQLite store's in-memory indexes: vectors and name keys per scope.

Vector search and fuzzy name search run over indexes held in memory per scope
(:class:`~loregraph.store.vectors.VectorIndex`, :class:`~loregraph.store.names.NameIndex`),
loaded on first use, updated in place by the store's own writes and reloaded when the
scope's graph version moved for another reason (another process wrote to the file). Every
method runs on the store's worker thread, with its connection.
"""

from __future__ import annotations

import sqlite3

from loregraph.errors import ConfigError
from loregraph.models import Scored, Vector
from loregraph.store.names import NameIndex, split_keys
from loregraph.store.queries import VectorSearch
from loregraph.store.sqlite.apply import Outcome
from loregraph.store.sqlite.search import chunk_ids_of, load_name_index, load_vector_index
from loregraph.store.sqlite.versions import read_graph_version
from loregraph.store.vectors import VectorIndex, VectorIndexCache, VersionedCache, stack_blobs

ENTITY, CHUNK = "entity", "chunk"


class MemoryIndexes:
    """The vector and name indexes of the scopes a store has searched."""

    def __init__(self) -> None:
        self._vectors = VectorIndexCache()
        self._names: VersionedCache[NameIndex] = VersionedCache()

    def clear(self) -> None:
        """Forget every index."""
        self._vectors.clear()
        self._names.clear()

    def holds_vectors(self, scope: str) -> bool:
        """Whether the scope's entity vectors are loaded (a write then reports its own)."""
        return self._vectors.peek((scope, ENTITY)) is not None

    def holds_names(self, scope: str | None = None) -> bool:
        """Whether the scope's (any scope's) name keys are loaded."""
        return self._names.peek(scope) is not None if scope is not None else len(self._names) > 0

    def search_vectors(
        self,
        conn: sqlite3.Connection,
        scope: str,
        kind: str,
        matrix: Vector,
        tags: list[str | None],
        limit: int,
    ) -> list[list[Scored]]:
        """One ranking per row of ``matrix`` over the scope's ``entity`` or ``chunk`` vectors."""
        index = self._vector_index(conn, scope, kind)
        hits = index.search_many(matrix, limit, tags)
        return [[Scored(item, score) for item, score in row] for row in hits]

    def search_vector(self, conn: sqlite3.Connection, search: VectorSearch) -> list[Scored]:
        """The ranking of one vector over the scope's ``entity`` vectors (tagged with their
        type) or ``chunk`` vectors (tagged with their document's kind)."""
        index = self._vector_index(conn, search.scope, search.kind)
        tag = search.entity_type if search.kind == ENTITY else search.document_kind
        among = None
        if search.documents is not None and search.kind != ENTITY:
            among = chunk_ids_of(conn, search.scope, search.documents)
        hits = index.search(search.vector, search.limit, tag=tag, among=among)
        return [Scored(item, score) for item, score in hits]

    def search_names(
        self,
        conn: sqlite3.Connection,
        scope: str,
        queries: list[tuple[str, str | None]],
        limit: int,
    ) -> list[list[Scored]]:
        """One ranking per ``(name key, entity type)`` over the scope's name keys."""
        index = self._names.get(scope, read_graph_version(conn, scope))
        if index is None:
            index = load_name_index(conn, scope)
            self._names.put(scope, index)
        hits = index.search_many(queries, limit)
        return [[Scored(item, score) for item, score in row] for row in hits]

    def _vector_index(self, conn: sqlite3.Connection, scope: str, kind: str) -> VectorIndex:
        key = (scope, kind)
        index = self._vectors.get(key, read_graph_version(conn, scope))
        if index is None:
            index = load_vector_index(conn, scope, kind)
            self._vectors.put(key, index)
        return index

    def sync(self, outcome: Outcome) -> None:
        """Bring loaded indexes up to date after a committed transaction.

        An index is updated in place when it reflected the version just before this
        transaction, and dropped (reloaded on next use) otherwise.
        """
        fresh = len(outcome.versions) == 1
        for scope, version in outcome.versions.items():
            names = self._names.peek(scope)
            if names is not None:
                if fresh and names.version == version - 1:
                    names.remove(outcome.removed_entities)
                    for entity_id, entity_type, keys in outcome.entity_names:
                        names.upsert(entity_id, entity_type, split_keys(keys))
                    names.version = version
                else:
                    self._names.discard(scope)
            for kind in (ENTITY, CHUNK):
                self._sync_vectors(outcome, scope, kind, version, fresh)

    def _sync_vectors(
        self, outcome: Outcome, scope: str, kind: str, version: int, fresh: bool
    ) -> None:
        key = (scope, kind)
        index = self._vectors.peek(key)
        if index is None:
            return
        if not fresh or index.version != version - 1:
            self._vectors.discard(key)
            return
        rows: list[tuple[str, bytes, str | None]]
        try:
            if kind == ENTITY:
                index.remove(outcome.removed_entities)
                rows = list(outcome.entity_vectors)
            else:
                index.remove(outcome.removed_chunks)
                rows = list(outcome.chunk_vectors)
            if rows:
                index.upsert(
                    [row[0] for row in rows],
                    stack_blobs([row[1] for row in rows]),
                    [row[2] for row in rows],
                )
        except (ConfigError, ValueError):
            self._vectors.discard(key)
            return
        index.version = version

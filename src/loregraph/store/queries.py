"""The arguments of the store's structured queries, checked once by :class:`~.base.Store`.

:class:`~.base.Store` takes a query's arguments with their defaults, checks them and hands
one of these values to the backend, which only runs it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from loregraph.errors import ConfigError
from loregraph.models import Relation, Vector
from loregraph.store.rows import iso_or_none

ENTITY_ORDERS = ("mentions", "degree", "name")
"""How :meth:`~.base.Store.list_entities` can order entities."""
DIRECTIONS = ("out", "in", "both")
"""Which relations of an entity :meth:`~.base.Store.entity_relations` follows."""

T = TypeVar("T")
PageKey = int | str | None
"""Where a page of :meth:`~.base.Store.iter_entities` or ``iter_relations`` starts (the key
of the last item of the page before; ``None`` for the first page)."""
Page = list[tuple[PageKey, T]]
"""Items with their keys, in key order."""


def document_criteria(content_hash: str | None, source: str | None) -> dict[str, str]:
    """The criteria :meth:`~.base.Store.find_document` was given, by field name (a document
    must match all of them; none given finds nothing)."""
    criteria = {"content_hash": content_hash, "source": source}
    return {name: value for name, value in criteria.items() if value is not None}


@dataclass(frozen=True, slots=True)
class RelationFilter:
    """Which relations a graph query follows.

    Without ``at``, only live relations (``expired_at`` unset: what the graph believes now);
    with ``at``, the relations valid at that world time (``valid_at <= at < invalid_at``,
    open ends allowed), ended ones included, so a question about the past sees what held
    then (a relation retired without an end in world time, ``expired_at`` alone, never
    held); with ``types``, only those types; only those with ``weight >= min_weight`` when
    it is positive.
    """

    types: tuple[str, ...] | None = None
    at: datetime | None = None
    min_weight: float = 0.0
    history: bool = False
    """Every relation, whatever its time (``live`` and ``at`` not applied)."""

    def conditions(self) -> list[str]:
        """The conditions this filter sets, by name, for a backend to spell: ``live`` or
        ``at``, then ``types`` and ``min_weight`` when they restrict anything."""
        names = [] if self.history else ["live" if self.at is None else "at"]
        if self.types is not None:
            names.append("types")
        if self.min_weight > 0:
            names.append("min_weight")
        return names

    @classmethod
    def of(
        cls,
        types: Sequence[str] | None,
        at: datetime | None = None,
        min_weight: float = 0.0,
        *,
        history: bool = False,
    ) -> RelationFilter:
        """A filter from a query's arguments."""
        return cls(None if types is None else tuple(types), at, min_weight, history)

    def spelled(self, spelling: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
        """This filter's conditions in a backend's words (``spelling``: condition name →
        text using the parameters ``types``, ``at``, ISO-8601 text, and ``min_weight``),
        and those parameters."""
        names = self.conditions()
        given = {"types": self.types, "at": iso_or_none(self.at), "min_weight": self.min_weight}
        return [spelling[name] for name in names], {n: given[n] for n in names if n in given}

    def admits(self, relation: Relation) -> bool:
        """Whether ``relation`` passes this filter (what a backend's query applies, in
        Python)."""
        if not self.history:
            if self.at is None:
                if relation.expired_at is not None:
                    return False
            else:
                if relation.expired_at is not None and relation.invalid_at is None:
                    return False
                if relation.valid_at is not None and relation.valid_at > self.at:
                    return False
                if relation.invalid_at is not None and relation.invalid_at <= self.at:
                    return False
        if self.types is not None and relation.type not in self.types:
            return False
        return not (self.min_weight > 0 and relation.weight < self.min_weight)


@dataclass(frozen=True, slots=True)
class TextSearch:
    """:meth:`~.base.Store.search_chunks_text` (``kind`` ``chunk``, maybe of one kind of
    document) and :meth:`~.base.Store.search_entities_text` (``kind`` ``entity``).

    ``documents`` keeps a chunk search to the chunks of those documents (the ones the acting
    principal may read), in the backend's own query where it can
    (:attr:`~.base.Store.filters_documents`); ``None``: any document."""

    kind: str
    scope: str
    query: str
    limit: int
    document_kind: str | None = None
    documents: frozenset[str] | None = None

    def chunk_clauses(
        self, kind: str, documents: str, listed: Callable[[frozenset[str]], object]
    ) -> tuple[str, list[object]]:
        """The ``AND ...`` clauses (and their parameters) keeping chunks to documents of the
        asked kind and to the documents listed, each when given, in a store's spelling:
        ``kind`` and ``documents`` take one parameter each, the list made by ``listed``."""
        sql, params = "", list[object]()
        if self.document_kind is not None:
            sql += f"AND {kind} "
            params.append(self.document_kind)
        if self.documents is not None:
            sql += f"AND {documents} "
            params.append(listed(self.documents))
        return sql, params


@dataclass(frozen=True, slots=True)
class DocumentQuery:
    """:meth:`~.base.Store.find_document` (``criteria`` by field name, the newest first,
    one) and :meth:`~.base.Store.list_documents` (no criteria, the oldest first, a window)."""

    scope: str
    criteria: dict[str, str]
    newest_first: bool = False
    limit: int | None = None
    offset: int = 0


@dataclass(frozen=True, slots=True)
class VectorSearch:
    """:meth:`~.base.Store.search_chunks_vector` (``kind`` ``chunk``, maybe of one kind of
    document) and :meth:`~.base.Store.search_entities_vector` (``kind`` ``entity``, maybe of
    one type)."""

    kind: str
    scope: str
    vector: Vector
    limit: int
    entity_type: str | None = None
    document_kind: str | None = None
    documents: frozenset[str] | None = None
    """As :attr:`TextSearch.documents`: only chunks of these documents (``None``: any)."""

    def check(self, dim: int, what: str) -> None:
        """Refuse (:class:`ConfigError`) a query vector of another dimension than ``dim``,
        the one of the store's ``what`` embeddings."""
        if len(self.vector) != dim:
            raise ConfigError(
                f"a query vector of dimension {len(self.vector)} for {what} embeddings of "
                f"dimension {dim}"
            )


@dataclass(frozen=True, slots=True)
class EntityListing:
    """:meth:`~.base.Store.list_entities`: ``order`` is one of :data:`ENTITY_ORDERS`."""

    scope: str
    entity_type: str | None
    order: str
    limit: int | None
    offset: int


@dataclass(frozen=True, slots=True)
class RelationQuery:
    """:meth:`~.base.Store.entity_relations`: ``direction`` is one of :data:`DIRECTIONS`."""

    entity_id: str
    direction: str
    filter: RelationFilter
    limit: int | None


@dataclass(frozen=True, slots=True)
class Expansion:
    """:meth:`~.base.Store.expand`: a breadth-first expansion from ``seeds``."""

    scope: str
    seeds: tuple[str, ...]
    depth: int
    per_node: int
    max_entities: int
    filter: RelationFilter


async def paged(
    fetch: Callable[[str, PageKey, int], Awaitable[Page[T]]], scope: str, batch: int
) -> AsyncIterator[T]:
    """Every item of the pages ``fetch(scope, after, batch)`` gives, page after page."""
    after: PageKey = None
    while page := await fetch(scope, after, batch):
        for _, item in page:
            yield item
        after = page[-1][0]

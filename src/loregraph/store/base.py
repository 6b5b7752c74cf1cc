"""The abstract store: the one contract every backend implements.

SQL and Cypher appear only inside implementations of this class; the rest of the code never
asks which backend it runs on. All methods are async (a blocking driver runs in a thread).

Conventions:

* Every query method takes the ``scope`` it reads from; nothing crosses scopes.
* Ranked results are lists of :class:`~loregraph.models.Scored`, best first, higher score
  is better.
* Vectors passed in are L2-normalised ``float32``; vector search ranks by cosine similarity.
* ``write_document`` is atomic: after a failure the store is exactly as it was before.

Where the contract itself checks or defaults a query's arguments (``find_document``, the
vector searches, ``list_entities``, ``entity_relations``, the bulk iterators),
the public method is written here and a backend implements the protected hook it calls
(``_find_document``, ``_search_vector``, ``_list_entities``, ``_entity_relations``,
``_entities_page``, ``_relations_page``), which gets the checked arguments as
one value of :mod:`loregraph.store.queries`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from types import TracebackType
from typing import ClassVar, Self

from loregraph import models
from loregraph.errors import SchemaVersionError
from loregraph.store.changelog import ChangeLog
from loregraph.store.fuzzy import NameSearch
from loregraph.store.grants import GrantStore
from loregraph.store.hops import Hops
from loregraph.store.keystore import KeyStore
from loregraph.store.provenance import Provenance
from loregraph.store.queries import (
    DIRECTIONS,
    ENTITY_ORDERS,
    DocumentQuery,
    EntityListing,
    Expansion,
    Page,
    PageKey,
    RelationFilter,
    RelationQuery,
    TextSearch,
    VectorSearch,
    document_criteria,
    paged,
)

SCHEMA_VERSION = 9
"""The schema version this code writes. A store written by a newer version is refused."""

DocKindArg = models.DocKind | None

NOT_OPEN = "the store is not open: use `await store.open()` or `async with`"
"""The message of the :class:`~loregraph.errors.StoreError` a closed store raises."""


def check_schema_version(version: int, known: int = SCHEMA_VERSION) -> None:
    """Refuse (:class:`SchemaVersionError`) a store written with a newer schema version than
    the ``known`` one."""
    if version > known:
        raise SchemaVersionError(
            f"this store was written with schema version {version}, but this loregraph "
            f"only knows version {known}: upgrade loregraph to open it"
        )


class Store(ChangeLog, KeyStore, GrantStore, Provenance, Hops, NameSearch):
    """A knowledge-graph store. Open with ``await store.open()`` or ``async with``."""

    filters_documents: ClassVar[bool] = False
    """Whether the chunk searches keep to :attr:`.queries.TextSearch.documents` in the
    backend's own query. A backend that says so is given the acting principal's readable
    documents with each chunk search; for one that does not, the visibility view asks for
    more hits and leaves out the unreadable ones."""

    # ----------------------------------------------------------------- lifecycle
    @abstractmethod
    async def open(self) -> None:
        """Connect and create or migrate the schema.

        Raises :class:`~loregraph.errors.SchemaVersionError` when the store was written by
        a newer schema version.
        """

    @abstractmethod
    async def close(self) -> None:
        """Release connections. Safe to call twice."""

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def underlying(self) -> Store:
        """The store that holds the data (a view of a store gives the store it views)."""
        return self

    # ----------------------------------------------------------------- documents
    @abstractmethod
    async def write_document(self, bundle: models.DocumentBundle) -> None:
        """Write a document and everything derived from it in one transaction.

        If a document with the same id exists it is replaced: its old chunks, mentions and
        evidence are removed first (exactly as :meth:`delete_document` would), inside the
        same transaction. Entities in ``bundle.entities`` are upserted by id: a new one is
        created; an existing one gains the aliases, the document's description, and keeps
        its id. Relations are upserted by id; their evidence is added. Entity
        ``mention_count``, aliases and description, and relation ``weight`` are then
        recomputed from what remains, so they always equal what the evidence supports (the
        rules: :mod:`loregraph.store.planning`). An inconsistent bundle (a reference to an
        unknown entity or chunk, an entity of another scope) raises :class:`ValueError` and
        writes nothing.
        """

    @abstractmethod
    async def get_document(self, document_id: str) -> models.Document | None:
        """A document by id."""

    async def find_document(
        self, scope: str, *, content_hash: str | None = None, source: str | None = None
    ) -> models.Document | None:
        """The newest document of ``scope`` with this content hash and/or source
        (path/URI/record id): with both, both must match; with neither, ``None``."""
        criteria = document_criteria(content_hash, source)
        if not criteria:
            return None
        found = await self._documents(DocumentQuery(scope, criteria, newest_first=True, limit=1))
        return found[0] if found else None

    async def list_documents(
        self, scope: str, *, limit: int | None = None, offset: int = 0
    ) -> list[models.Document]:
        """The documents of a scope, oldest first."""
        return await self._documents(DocumentQuery(scope, {}, limit=limit, offset=offset))

    @abstractmethod
    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        """The documents of ``query.scope`` that match every criterion (by field name), by
        ``created_at`` (ties in an order the backend keeps stable; both reversed when
        ``newest_first``), from ``offset``, at most ``limit`` of them."""

    @abstractmethod
    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        """Delete a document and exactly what only it supported, in one transaction: its
        chunks, mentions and relation evidence, relations left with no evidence, entities
        left with no mention; remaining ones get their counts, aliases, descriptions and
        weights recomputed, the relations it ended open again, then ``ends`` (as a bundle's
        invalidations) end theirs. An unknown id gives an all-zero report, changes nothing."""

    # ----------------------------------------------------------------- chunks
    @abstractmethod
    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        """Chunks by id, in the order asked (missing ids skipped), without embeddings."""

    async def search_chunks_text(
        self, scope: str, query: str, limit: int, *, kind: models.DocKind | None = None
    ) -> list[models.Scored]:
        """Chunk ids ranked by BM25 over their text (and their document's title); with
        ``kind``, only chunks of documents of that kind (memories or documents)."""
        return await self._search_text(TextSearch("chunk", scope, query, limit, kind))

    @abstractmethod
    async def _search_text(self, ask: TextSearch) -> list[models.Scored]:
        """:meth:`search_chunks_text` and :meth:`search_entities_text`."""

    async def search_chunks_vector(
        self, scope: str, vector: models.Vector, limit: int, *, kind: DocKindArg = None
    ) -> list[models.Scored]:
        """Chunk ids ranked by cosine similarity of their embedding; with ``kind``, only
        chunks of documents of that kind."""
        return await self._search_vector(VectorSearch("chunk", scope, vector, limit, None, kind))

    @abstractmethod
    async def _search_vector(self, ask: VectorSearch) -> list[models.Scored]:
        """:meth:`search_chunks_vector` and :meth:`search_entities_vector`."""

    # ----------------------------------------------------------------- entities
    @abstractmethod
    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        """Entities by id, in the order asked (missing ids skipped), without embeddings."""

    @abstractmethod
    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        """Exact lookup by :func:`~loregraph.models.name_key` of a name or of an alias.

        Returns ``{key: entity}`` for the keys that matched; a key matching a canonical name
        wins over one matching an alias; among aliases, the most-mentioned entity wins.
        """

    async def search_entities_text(self, scope: str, query: str, limit: int) -> list[models.Scored]:
        """Entity ids ranked by BM25 over name, aliases and description."""
        return await self._search_text(TextSearch("entity", scope, query, limit))

    async def search_entities_vector(
        self, scope: str, vector: models.Vector, limit: int, *, entity_type: str | None = None
    ) -> list[models.Scored]:
        """Entity ids ranked by cosine similarity of their embedding."""
        return await self._search_vector(VectorSearch("entity", scope, vector, limit, entity_type))

    async def search_entities_vector_many(
        self, scope: str, queries: Sequence[tuple[models.Vector, str | None]], limit: int
    ) -> list[list[models.Scored]]:
        """:meth:`search_entities_vector` for many ``(vector, entity_type)`` queries at once.

        Returns one result list per query, in order, each what :meth:`search_entities_vector`
        returns for it (scores may differ in the last float bit). This default asks one query
        at a time; backends override it with a faster batched lookup.
        """
        return [
            await self.search_entities_vector(scope, vector, limit, entity_type=entity_type)
            for vector, entity_type in queries
        ]

    @abstractmethod
    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        """The stored embeddings of these entities (ids without one are absent)."""

    async def list_entities(
        self,
        scope: str,
        *,
        entity_type: str | None = None,
        order: str = "mentions",
        limit: int | None = 100,
        offset: int = 0,
    ) -> list[models.Entity]:
        """Entities of a scope; ``order`` is ``mentions``, ``degree`` or ``name``."""
        if order not in ENTITY_ORDERS:
            raise ValueError(f"order must be one of {sorted(ENTITY_ORDERS)}, not {order!r}")
        return await self._list_entities(EntityListing(scope, entity_type, order, limit, offset))

    @abstractmethod
    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        """:meth:`list_entities` (without embeddings)."""

    # ----------------------------------------------------------------- relations
    async def entity_relations(
        self,
        entity_id: str,
        *,
        direction: str = "both",
        types: Sequence[str] | None = None,
        at: datetime | None = None,
        limit: int | None = None,
        history: bool = False,
    ) -> list[models.Relation]:
        """Relations of an entity (``out``, ``in`` or ``both``), heaviest first, with evidence.

        ``at`` keeps only relations valid at that world time
        (``valid_at <= at < invalid_at``, open ends allowed); ``history`` keeps every
        relation, ended and retired ones too (``at`` is then ignored).
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
        filter_ = RelationFilter.of(types, at, history=history)
        query = RelationQuery(entity_id, direction, filter_, limit)
        return await self._entity_relations(query)

    @abstractmethod
    async def get_relations(self, relation_ids: Sequence[str]) -> list[models.Relation]:
        """Relations by id, in order, with evidence."""

    @abstractmethod
    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """Mark a relation as no longer true from ``invalid_at`` (world time), and no longer
        believed from now (``expired_at``); ``by`` is the id of the memory or document that
        ended it (forgetting that one opens the relation again).

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown relation.
        """

    # ----------------------------------------------------------------- graph
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
        at: datetime | None = None,
    ) -> models.Subgraph:
        """Breadth-first expansion from the seeds, the heaviest neighbours first
        (written once over :meth:`relations_touching`: :mod:`loregraph.store.hops`).

        At most ``per_node`` neighbours are followed from each entity and ``max_entities``
        entities are returned; relations whose ends are both reached are included. ``at``
        follows only relations valid at that world time (as for :meth:`entity_relations`);
        seeds outside ``scope`` are ignored.
        """
        live = RelationFilter.of(types, at, min_weight)
        ask = Expansion(scope, tuple(seed_ids), depth, per_node, max_entities, live)
        return await self._walk(ask)

    @abstractmethod
    async def graph_arrays(self, scope: str) -> models.GraphArrays:
        """A compact snapshot of the scope's graph for in-memory algorithms."""

    @abstractmethod
    async def graph_version(self, scope: str) -> int:
        """A counter that changes whenever the scope's graph changes (for cache invalidation)."""

    # ----------------------------------------------------------------- merges
    @abstractmethod
    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        """Recorded resolution decisions, newest first."""

    # ----------------------------------------------------------------- copying
    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        """A document and exactly what it contributed, as a bundle that rebuilds it.

        ``None`` for an unknown id. Writing the bundles of a scope's documents, oldest
        first, into an empty store rebuilds the scope: the same ids, texts, embeddings,
        derived counts, descriptions, aliases, weights and temporal fields.

        * ``document``: as stored (status, metadata, ``created_at``, ``valid_at``);
        * ``chunks``: in order, with their embeddings;
        * ``entities``: one :class:`~loregraph.models.EntityWrite` per entity the document
          lists; its ``entity`` is the stored one (id, name, type, embedding, ``created_at``)
          with this document's ``aliases`` (surface forms), ``description`` (also the
          write's), ``salience`` (also the write's) and ``confidence`` (the stored ones when
          the store does not know this document's: written before schema version 7);
        * ``mentions``: per chunk, with surface form and count;
        * ``relations``: those this document supports, as stored (fact and temporal fields),
          with ``evidence`` = this document's evidence (``chunk_id`` empty for support
          without a chunk) and ``confidence`` = the highest confidence among it;
        * ``merges``: the resolution decisions recorded with this document.

        Entities the document refers to without listing them (mentions, relation ends,
        merges) are not in ``entities``. The default raises :class:`NotImplementedError`:
        the other read methods cannot give back chunk embeddings or per-document
        contributions, so a faithful bundle needs the backend.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot read a document back as a bundle")

    # ----------------------------------------------------------------- bulk / export
    async def iter_entities(self, scope: str, batch: int = 1000) -> AsyncIterator[models.Entity]:
        """Every entity of a scope (with embeddings), for export and copying."""
        async for entity in paged(self._entities_page, scope, batch):
            yield entity

    async def iter_relations(self, scope: str, batch: int = 1000) -> AsyncIterator[models.Relation]:
        """Every relation of a scope, with evidence, for export and copying."""
        async for relation in paged(self._relations_page, scope, batch):
            yield relation

    @abstractmethod
    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        """The next ``batch`` entities of a scope (with embeddings) after the one of key
        ``after`` (``None``: from the first), each with its key, in key order."""

    @abstractmethod
    async def _relations_page(
        self, scope: str, after: PageKey, batch: int
    ) -> Page[models.Relation]:
        """:meth:`_entities_page` for relations (with evidence)."""

    @abstractmethod
    async def stats(self, scope: str) -> models.StoreStats:
        """Counts for a scope."""

    @abstractmethod
    async def scopes(self) -> list[str]:
        """The scopes that hold at least one document."""

"""The public engine: :class:`AsyncGraph` (the async core) and :class:`Graph` (its sync facade).

>>> import loregraph
>>> g = loregraph.open("dracula.db")            # doctest: +SKIP
>>> g.ingest("dracula.txt")                      # doctest: +SKIP
>>> print(g.ask("Which men proposed to Lucy Westenra?").text)   # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypeVar

from loregraph.answer.extractive import Answer, extractive_answer
from loregraph.embed.base import Embedder
from loregraph.errors import EmptyStoreError, InputError, NotFoundError
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.pipeline import IngestPipeline, document_id
from loregraph.ingest.progress import Progress
from loregraph.ingest.readers import iter_sources, read_records
from loregraph.ingest.readlog import ReadLog
from loregraph.ingest.report import IngestReport
from loregraph.ingest.types import SourceDocument
from loregraph.models import (
    DeleteReport,
    DocKind,
    Document,
    Entity,
    Relation,
    StoreStats,
    name_key,
)
from loregraph.retrieve.formats import format_context
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.result import RetrievalResult
from loregraph.settings import RetrievalSettings, Settings, check_budget, check_limit, preset
from loregraph.store.base import Store
from loregraph.streaming import BlockingStreamedAnswer, StreamedAnswer

if TYPE_CHECKING:
    from loregraph.llm.base import ChatModel
    from loregraph.llm.client import LLMClient
    from loregraph.llm.query import LLMQueryAnalyzer
    from loregraph.llm.usage import UsageTracker
    from loregraph.llm.wiring import LLMComponents

ContextFormat = Literal["markdown", "xml", "json", "mermaid"]
SearchKind = Literal["documents", "entities", "relations"]


@dataclass(slots=True)
class EntityView:
    """An entity with its relations (each with its evidence passages)."""

    entity: Entity
    relations: list[Relation] = field(default_factory=list)
    neighbours: dict[str, Entity] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The entity as JSON, with its relations (both ends by name)."""
        names = {entity_id: other.name for entity_id, other in self.neighbours.items()}
        names[self.entity.id] = self.entity.name
        return {**self.entity.to_dict(), "relations": [r.to_dict(names) for r in self.relations]}


@dataclass(slots=True)
class SearchHit:
    """One ranked search result."""

    kind: str
    id: str
    title: str
    score: float
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON: kind, id, title, score and the kind's extra fields."""
        return {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "score": self.score,
            "extra": self.extra,
        }


def _default_embedder() -> Embedder:
    from loregraph.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _default_extractor(settings: Settings) -> Extractor:
    from loregraph.ingest.extract.offline import OfflineExtractor

    return OfflineExtractor(settings.extraction)


def open_store(location: str | Path) -> Store:
    """A store for a location: a file path (SQLite) or a database URL (``postgresql://``)."""
    from loregraph.store.urls import store_for_url

    return store_for_url(location)


def _store_path(store: Store) -> str | None:
    """The file a store lives in (the LLM cache goes next to it), if it has one."""
    path = getattr(store, "path", None)
    return str(path) if isinstance(path, str | Path) else None


class AsyncGraph:
    """The loregraph engine (async). Pass backends and providers in as objects.

    Args:
        store: where the graph lives (an opened or unopened :class:`Store`).
        settings: chunking, extraction, resolution and retrieval settings.
        embedder: embeds chunks, entities and questions (default: through the LLM API when
            ``settings.llm.embedding_model`` is set, else packaged MiniLM, loaded on first use).
        extractor: finds entities and relations (default: the LLM extractor when an LLM is
            configured, else the offline spaCy extractor).
        llm: a language model: an :class:`~loregraph.llm.client.LLMClient` (used as it is)
            or a provider such as :class:`~loregraph.llm.openai_client.OpenAIChat` (wrapped
            with the cache and resilience of ``settings.llm``). Default: built from
            ``settings.llm`` when it names a provider; with provider ``none`` everything
            stays offline and no LLM code is loaded.
        usage: the tracker LLM calls and tokens are counted in (default: a new one).
    """

    def __init__(
        self,
        store: Store,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        llm: LLMClient | ChatModel | None = None,
        usage: UsageTracker | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or Settings()
        self._embedder = embedder
        self._extractor = extractor
        self._llm_arg = llm
        self._usage = usage
        self._parts: LLMComponents | None = None
        self._parts_ready = False
        self._built: set[str] = set()
        self._opened = False

    @classmethod
    async def connect(cls, location: str | Path, **kwargs: Any) -> AsyncGraph:
        """Open the store at ``location`` and return an engine on it."""
        graph = cls(open_store(location), **kwargs)
        await graph.open()
        return graph

    async def open(self) -> None:
        """Open the store (creating or migrating its schema)."""
        if not self._opened:
            await self.store.open()
            self._opened = True

    async def close(self) -> None:
        """Close the store, and the LLM client and embedder the engine built."""
        try:
            if self._opened:
                await self.store.close()
                self._opened = False
        finally:
            await self._close_llm()

    async def _close_llm(self) -> None:
        parts, self._parts, self._parts_ready = self._parts, None, False
        if "embedder" in self._built:
            closer = getattr(self._embedder, "close", None)
            self._embedder = None
            if closer is not None:
                closer()
        if "extractor" in self._built:
            self._extractor = None
        self._built.clear()
        if parts is not None:
            await parts.aclose()

    def _llm_parts(self) -> LLMComponents | None:
        """The LLM client and stages, built on first use; ``None`` without an LLM."""
        if not self._parts_ready:
            if self._llm_arg is not None or self.settings.llm.enabled:
                from loregraph.llm.wiring import LLMComponents

                self._parts = LLMComponents.create(
                    self.settings.llm,
                    self._llm_arg,
                    store_path=_store_path(self.store),
                    usage=self._usage,
                )
            self._parts_ready = True
        return self._parts

    @property
    def llm(self) -> LLMClient | None:
        """The language-model client (``None`` when no LLM is configured)."""
        parts = self._llm_parts()
        return parts.client if parts is not None else None

    @property
    def usage(self) -> UsageTracker | None:
        """LLM calls, cache hits and tokens per stage (``None`` when no LLM is configured)."""
        parts = self._llm_parts()
        return parts.usage if parts is not None else self._usage

    @property
    def embedder(self) -> Embedder:
        """The embedder, created on first use."""
        if self._embedder is None:
            built: Embedder | None = None
            parts = self._llm_parts()
            if parts is not None:
                built = parts.embedder()
            elif self.settings.llm.embedding_model:
                from loregraph.llm.config import build_embedder
                from loregraph.llm.usage import UsageTracker

                self._usage = self._usage or UsageTracker()
                built = build_embedder(self.settings.llm, usage=self._usage)
            if built is not None:
                self._built.add("embedder")
            self._embedder = built or _default_embedder()
        return self._embedder

    @property
    def extractor(self) -> Extractor:
        """The extractor, created on first use."""
        if self._extractor is None:
            parts = self._llm_parts()
            if parts is not None:
                self._extractor = parts.extractor(self.settings)
                self._built.add("extractor")
            else:
                self._extractor = _default_extractor(self.settings)
        return self._extractor

    # ------------------------------------------------------------------ ingest
    async def ingest(
        self,
        *paths: str | Path,
        stdin: IO[str] | None = None,
        stdin_id: str | None = None,
        stdin_title: str | None = None,
        scope: str | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest files, directories, JSON/JSONL record files or stdin (``"-"``).

        Folders are read for text and Markdown files (and PDF, Word, PowerPoint and
        HTML with the ``docs`` extra); every file skipped is listed in the report's
        ``skipped_inputs`` with the reason. A document piped in is identified by
        ``stdin_id`` (else by the hash of its text) and titled ``stdin_title`` (else by its
        first line). Unchanged documents are skipped, changed ones replaced; each document
        is committed in its own transaction as soon as it is done. Errors in a file given
        directly (binary, invalid UTF-8, no words) raise
        :class:`~loregraph.errors.InputError` before anything of that file is written.
        """
        log = ReadLog()
        sources = iter_sources(
            [str(p) for p in paths],
            stdin=stdin,
            stdin_id=stdin_id,
            stdin_title=stdin_title,
            log=log,
        )
        # read the first document before opening the store: input that yields nothing
        # readable fails without creating an empty database
        first = next(sources, None)
        ahead = [first] if first is not None else []
        report = await self.ingest_documents(
            itertools.chain(ahead, sources), scope=scope, progress=progress
        )
        report.skipped_inputs = list(log.skipped)
        return report

    async def ingest_records(
        self, path: str | Path, *, scope: str | None = None, progress: Progress | None = None
    ) -> IngestReport:
        """Ingest a JSON array or JSONL file of ``{"title", "text", "id"?, ...}`` records."""
        await self.open()
        log = ReadLog()
        records = read_records(Path(path), log=log)
        report = await self.ingest_documents(records, scope=scope, progress=progress)
        report.skipped_inputs = list(log.skipped)
        return report

    async def ingest_text(
        self,
        text: str,
        *,
        title: str,
        source: str | None = None,
        kind: DocKind = DocKind.DOCUMENT,
        metadata: dict[str, Any] | None = None,
        scope: str | None = None,
    ) -> IngestReport:
        """Ingest one text (a document, or an agent memory with ``kind=DocKind.MEMORY``)."""
        doc = SourceDocument(
            title=title,
            text=text,
            source=source or f"text:{title}",
            metadata=metadata or {},
            kind=kind,
        )
        return await self.ingest_documents([doc], scope=scope)

    async def ingest_documents(
        self,
        sources: Iterable[SourceDocument],
        *,
        scope: str | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest already-read documents.

        With an LLM, the report's ``llm`` field holds the calls, cache hits, repairs,
        retries, drops and tokens of this run, per stage.
        """
        await self.open()
        pipeline = IngestPipeline(
            self.store, self.extractor, self.embedder, self.settings, progress=progress
        )
        parts = self._llm_parts()
        confirm = parts.confirmer() if parts is not None else None
        if confirm is not None:
            pipeline.resolver.confirm = confirm
        usage = self.usage
        before = usage.stages() if usage is not None else {}
        report = await pipeline.ingest(sources, scope=scope or self.settings.scope)
        if usage is not None:
            report.llm = usage.since(before)
        return report

    # ------------------------------------------------------------------ query
    def _retrieval_settings(self, preset_name: str | None) -> RetrievalSettings:
        return preset(preset_name) if preset_name else self.settings.retrieval

    async def retrieve(
        self, question: str, *, preset: str | None = None, scope: str | None = None
    ) -> RetrievalResult:
        """Ranked entities, relations, passages and documents for a question."""
        await self.open()
        retriever = Retriever(
            self.store,
            self.embedder,
            self._retrieval_settings(preset),
            analyzer=self._analyzer(),
        )
        return await retriever.retrieve(question, scope or self.settings.scope)

    def _analyzer(self) -> LLMQueryAnalyzer | None:
        """The LLM query analysis (falls back to the offline one), if there is an LLM."""
        parts = self._llm_parts()
        return parts.analyzer() if parts is not None else None

    async def context(
        self,
        question: str,
        *,
        format: ContextFormat = "markdown",
        preset: str | None = None,
        budget: int | None = None,
        scope: str | None = None,
    ) -> str:
        """A token-budgeted context for an LLM prompt, in the chosen format.

        When nothing in the store is relevant to the question, the context says so (in the
        chosen format) instead of listing unrelated passages.
        """
        check_budget(budget)
        result = await self.retrieve(question, preset=preset, scope=scope)
        if not result.relevant:
            from loregraph.retrieve.nothing import nothing_relevant_context

            return nothing_relevant_context(result, format)
        return format_context(result, format, budget)

    async def ask(
        self, question: str, *, preset: str | None = None, scope: str | None = None
    ) -> Answer:
        """Answer a question with citations. With no LLM configured the answer is extractive.

        When nothing in the store is relevant to the question, the answer says so
        (``Answer.found`` is ``False``) and no language model is asked.
        """
        result = await self.retrieve(question, preset=preset, scope=scope)
        if not result.relevant:
            from loregraph.answer.extractive import nothing_found

            return nothing_found(result)
        parts = self._llm_parts()
        if parts is None:
            return extractive_answer(result)
        return await parts.answerer().answer(result)

    def ask_stream(
        self, question: str, *, preset: str | None = None, scope: str | None = None
    ) -> StreamedAnswer:
        """Answer a question as it is written: ``async for piece in graph.ask_stream(q)``.

        The pieces joined are the answer's text (with an LLM: the model's reply, then its
        ``Sources``); ``.answer`` holds the :class:`Answer` with citations once the stream
        is exhausted. With no LLM configured the extractive answer comes as one piece.
        """
        parts = self._llm_parts()
        return StreamedAnswer(
            question,
            lambda: self.retrieve(question, preset=preset, scope=scope),
            parts.answerer() if parts is not None else None,
        )

    async def search(
        self,
        query: str,
        *,
        kind: SearchKind = "documents",
        limit: int = 10,
        preset: str | None = None,
        scope: str | None = None,
    ) -> list[SearchHit]:
        """Ranked documents, entities or relations for a query.

        Returns no hits when nothing in the store is relevant to the query (see
        :attr:`~loregraph.retrieve.result.RetrievalResult.relevant`).
        """
        check_limit(limit)
        result = await self.retrieve(query, preset=preset, scope=scope)
        if not result.relevant:
            return []
        if kind == "documents":
            return [
                SearchHit(
                    "document",
                    d.document_id,
                    d.title,
                    d.score,
                    {"source": d.source, "chunk_id": d.best_chunk_id},
                )
                for d in result.documents[:limit]
            ]
        if kind == "entities":
            return [
                SearchHit(
                    "entity",
                    e.entity.id,
                    e.entity.name,
                    e.score,
                    {"type": e.entity.type, "description": e.entity.description},
                )
                for e in result.entities[:limit]
            ]
        names = {e.entity.id: e.entity.name for e in result.entities}
        return [
            SearchHit(
                "relation",
                r.relation.id,
                f"{names.get(r.relation.source_id, r.relation.source_id)} {r.relation.type} "
                f"{names.get(r.relation.target_id, r.relation.target_id)}",
                r.score,
                {"fact": r.relation.fact, "weight": r.relation.weight},
            )
            for r in result.relations[:limit]
        ]

    # ------------------------------------------------------------------ browse
    async def entities(
        self,
        *,
        entity_type: str | None = None,
        order: str = "mentions",
        limit: int | None = 50,
        scope: str | None = None,
    ) -> list[Entity]:
        """Entities of the scope, most mentioned first (or by ``degree`` or ``name``)."""
        check_limit(limit)
        await self.open()
        return await self.store.list_entities(
            scope or self.settings.scope, entity_type=entity_type, order=order, limit=limit
        )

    async def find_entity(self, name: str, *, scope: str | None = None) -> Entity:
        """The entity called ``name`` (or with that alias); the closest name if none is exact."""
        await self.open()
        scope = scope or self.settings.scope
        key = name_key(name)
        found = await self.store.find_entities_by_key(scope, [key])
        if key in found:
            return found[key]
        fuzzy = await self.store.search_entities_fuzzy(scope, name, 5)
        if fuzzy and fuzzy[0].score >= 0.5:
            entities = await self.store.get_entities([fuzzy[0].id])
            if entities:
                return entities[0]
        suggestions = await self.store.get_entities([s.id for s in fuzzy])
        hint = ", ".join(e.name for e in suggestions)
        raise NotFoundError(
            f"no entity named {name!r}" + (f"; did you mean: {hint}?" if hint else "")
        )

    async def entity(
        self, name: str, *, limit: int | None = 50, scope: str | None = None
    ) -> EntityView:
        """An entity with its relations and their evidence passages, heaviest first."""
        check_limit(limit)
        found = await self.find_entity(name, scope=scope)
        relations = await self.store.entity_relations(found.id, limit=limit)
        other = {r.source_id for r in relations} | {r.target_id for r in relations}
        neighbours = {e.id: e for e in await self.store.get_entities(sorted(other))}
        return EntityView(found, relations, neighbours)

    async def documents(self, *, scope: str | None = None) -> list[Document]:
        """The documents of the scope."""
        await self.open()
        return await self.store.list_documents(scope or self.settings.scope)

    async def stats(self, *, scope: str | None = None) -> StoreStats:
        """Counts of documents, chunks, entities, relations and mentions."""
        await self.open()
        return await self.store.stats(scope or self.settings.scope)

    async def scopes(self) -> dict[str, StoreStats]:
        """Every scope that holds data, with its counts, by name."""
        await self.open()
        return {name: await self.store.stats(name) for name in sorted(await self.store.scopes())}

    async def delete(self, ref: str, *, scope: str | None = None) -> DeleteReport:
        """Delete a document (by id, source path or exact title) and exactly what only it
        supported."""
        doc = await self._find_document(ref, scope or self.settings.scope)
        return await self.store.delete_document(doc.id)

    async def _find_document(self, ref: str, scope: str) -> Document:
        await self.open()
        doc = await self.store.get_document(ref)
        if doc is not None and doc.scope == scope:
            return doc
        candidates = [ref]
        path = Path(ref)
        if path.exists():
            candidates.insert(0, str(path.resolve()))
        for source in candidates:
            doc = await self.store.find_document(scope, source=source)
            if doc is not None:
                return doc
            doc = await self.store.get_document(document_id(scope, source))
            if doc is not None:
                return doc
        titled = [d for d in await self.store.list_documents(scope) if d.title == ref]
        if len(titled) == 1:
            return titled[0]
        if len(titled) > 1:
            raise NotFoundError(
                f"{len(titled)} documents are titled {ref!r}; delete one by id: "
                + ", ".join(d.id for d in titled)
            )
        raise NotFoundError(f"no document {ref!r} in scope {scope!r} (give an id, path or title)")

    async def export(
        self,
        path: str | Path | IO[bytes],
        *,
        format: Literal["json", "graphml"] = "json",
        scope: str | None = None,
    ) -> int:
        """Write the scope's graph to a JSON or GraphML file (or a binary stream); returns
        the entity count. A file is written whole or not at all."""
        from loregraph.export import export_graph

        target = path if not isinstance(path, str | Path) else Path(path)
        if isinstance(target, Path):
            _check_writable_target(target)
        await self.open()
        scope = scope or self.settings.scope
        if (await self.store.stats(scope)).documents == 0:
            raise EmptyStoreError(f"scope {scope!r} holds no documents: nothing to export")
        return await export_graph(self.store, scope, target, format)


def _check_writable_target(path: Path) -> None:
    """Raise :class:`InputError` when ``path`` cannot be written as a new or replaced file."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder; give a file name")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write {path}: permission denied")


P = ParamSpec("P")
R = TypeVar("R")


def _blocking(
    method: Callable[Concatenate[AsyncGraph, P], Awaitable[R]],
) -> Callable[Concatenate[Graph, P], R]:
    """Expose an :class:`AsyncGraph` coroutine method as a blocking :class:`Graph` method."""

    def run(self: Graph, /, *args: P.args, **kwargs: P.kwargs) -> R:
        coro = method(self.aio, *args, **kwargs)
        return self._run(coro)  # type: ignore[arg-type]

    functools.update_wrapper(run, method)
    return run


class Graph:
    """The blocking facade over :class:`AsyncGraph`; same methods, no ``await``.

    Use as a context manager, or call :meth:`close` when done.
    """

    def __init__(self, aio: AsyncGraph) -> None:
        self.aio = aio
        self._runner = asyncio.Runner()

    def _run(self, coro: Coroutine[Any, Any, R]) -> R:
        return self._runner.run(coro)

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store and the event loop."""
        try:
            self._run(self.aio.close())
        finally:
            self._runner.close()

    @property
    def store(self) -> Store:
        """The underlying store."""
        return self.aio.store

    @property
    def llm(self) -> LLMClient | None:
        """The language-model client (``None`` when no LLM is configured)."""
        return self.aio.llm

    @property
    def usage(self) -> UsageTracker | None:
        """LLM calls, cache hits and tokens per stage (``None`` when no LLM is configured)."""
        return self.aio.usage

    def ask_stream(
        self, question: str, *, preset: str | None = None, scope: str | None = None
    ) -> BlockingStreamedAnswer:
        return BlockingStreamedAnswer(
            self, self.aio.ask_stream(question, preset=preset, scope=scope)
        )

    ask_stream.__doc__ = (AsyncGraph.ask_stream.__doc__ or "").replace(
        "async for piece in graph.ask_stream(q)", "for piece in graph.ask_stream(q)"
    )

    open = _blocking(AsyncGraph.open)
    ingest = _blocking(AsyncGraph.ingest)
    ingest_records = _blocking(AsyncGraph.ingest_records)
    ingest_text = _blocking(AsyncGraph.ingest_text)
    ingest_documents = _blocking(AsyncGraph.ingest_documents)
    retrieve = _blocking(AsyncGraph.retrieve)
    context = _blocking(AsyncGraph.context)
    ask = _blocking(AsyncGraph.ask)
    search = _blocking(AsyncGraph.search)
    entities = _blocking(AsyncGraph.entities)
    find_entity = _blocking(AsyncGraph.find_entity)
    entity = _blocking(AsyncGraph.entity)
    documents = _blocking(AsyncGraph.documents)
    stats = _blocking(AsyncGraph.stats)
    scopes = _blocking(AsyncGraph.scopes)
    delete = _blocking(AsyncGraph.delete)
    export = _blocking(AsyncGraph.export)


def open(
    location: str | Path = "loregraph.db",
    *,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    store: Store | None = None,
    llm: LLMClient | ChatModel | None = None,
    usage: UsageTracker | None = None,
) -> Graph:
    """Open (or create) a graph and return the blocking facade.

    ``location`` is an SQLite file path or a database URL; pass ``store=`` to use another
    backend object. ``llm`` and ``usage`` are as for :class:`AsyncGraph`.
    """
    aio = AsyncGraph(
        store or open_store(location),
        settings=settings,
        embedder=embedder,
        extractor=extractor,
        llm=llm,
        usage=usage,
    )
    graph = Graph(aio)
    graph.open()
    return graph


async def open_async(
    location: str | Path = "loregraph.db",
    *,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    store: Store | None = None,
    llm: LLMClient | ChatModel | None = None,
    usage: UsageTracker | None = None,
) -> AsyncGraph:
    """Open (or create) a graph and return the async engine."""
    aio = AsyncGraph(
        store or open_store(location),
        settings=settings,
        embedder=embedder,
        extractor=extractor,
        llm=llm,
        usage=usage,
    )
    await aio.open()
    return aio


__all__ = [
    "AsyncGraph",
    "BlockingStreamedAnswer",
    "EntityView",
    "Graph",
    "SearchHit",
    "StreamedAnswer",
    "open",
    "open_async",
    "open_store",
]

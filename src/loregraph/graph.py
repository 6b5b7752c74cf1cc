"""The async engine: :class:`AsyncGraph`. Its blocking facade is :class:`loregraph.blocking.Graph`
(``g = loregraph.open("dracula.db"); g.ingest("dracula.txt"); print(g.ask("Who...?").text)``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, Unpack

from loregraph.access import Role, require
from loregraph.engine.backfill import BackfillReport, Clock, Pace, Run, backfill
from loregraph.engine.commits import (
    GIT_LIMIT,
    History,
    commit_documents,
    known_commits,
    open_histories,
)
from loregraph.engine.core import EngineOptions, actor
from loregraph.engine.grants import AccessControl
from loregraph.engine.lookup import find_document
from loregraph.engine.merges import Corrections
from loregraph.engine.queries import Explore
from loregraph.engine.questions import Asking, ContextFormat, Questions
from loregraph.engine.remember import Memories
from loregraph.engine.views import EntityView, SearchHit, SearchResults
from loregraph.engine.visibility import document_access
from loregraph.errors import EmptyStoreError, InputError
from loregraph.ingest.code.graph import CHUNK_CHARS
from loregraph.ingest.code.history import commit_source
from loregraph.ingest.facts.supersede import delete_and_recheck
from loregraph.ingest.progress import NullProgress, Progress
from loregraph.ingest.read.readers import iter_sources, read_records
from loregraph.ingest.read.readlog import ReadLog
from loregraph.ingest.report import IngestReport, ReplacedDocument
from loregraph.ingest.types import SourceDocument
from loregraph.kinds import Visibility
from loregraph.location import Location
from loregraph.models import DeleteReport, DocKind, Document, StoreStats
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry
from loregraph.streaming import StreamedAnswer

if TYPE_CHECKING:
    pass


def open_store(location: str | Path | Location, *, read_only: bool = False) -> Store:
    """A store for a location: a file path (SQLite), a ``.json`` memory file, a ``.surreal``
    folder or a database URL (``postgresql://``, ``falkordb://``, ``surrealkv://``, ...).
    ``read_only`` opens an SQLite store without writing to it."""
    from loregraph.store.urls import store_for_url

    return store_for_url(location, read_only=read_only)


class AsyncGraph(Questions):
    """The loregraph engine (async). Pass backends and providers in as objects.

    Args:
        store: where the graph lives (an opened or unopened :class:`Store`).
        settings: chunking, extraction, resolution and retrieval settings.
        embedder / extractor / llm / usage: objects to use instead of the defaults that
            :class:`~loregraph.engine.parts.Parts` builds from ``settings`` (an API or the
            packaged MiniLM; a model's or spaCy's extractor; a model client, or a provider
            wrapped with the cache and resilience of ``settings.llm``; a usage tracker).
            With provider ``none`` everything stays offline and no LLM code is loaded.

    Documents (``ingest``, ``delete``, ``backfill``, ...) and questions (``search``,
    ``context``, ``ask``, ...) are methods of the graph; the rest is grouped by concern:
    :attr:`memories`, :attr:`explore`, :attr:`corrections` and :attr:`access`.
    """

    @property
    def memories(self) -> Memories:
        """What an agent remembers: ``remember``, ``remember_many``, ``all``, ``search``,
        ``forget``."""
        return Memories(self)

    @property
    def explore(self) -> Explore:
        """The graph by entity: ``entities``, ``find_entity``, ``entity``, ``relations``,
        ``neighbors``, ``path``, ``history``; ``impact`` and ``code`` for source code;
        ``suggest`` and ``passage``."""
        return Explore(self)

    @property
    def corrections(self) -> Corrections:
        """Merges seen, undone and made by hand; ``rename`` and ``retype``."""
        return Corrections(self)

    @property
    def access(self) -> AccessControl:
        """Grants, scope links, API keys and the audit log."""
        return AccessControl(self)

    # ------------------------------------------------------------------ ingest
    async def ingest(
        self,
        *paths: str | Path,
        stdin: IO[str] | None = None,
        stdin_id: str | None = None,
        stdin_title: str | None = None,
        scope: str | None = None,
        progress: Progress | None = None,
        visibility: Visibility | str | None = None,
        owner: str | None = None,
        prune: bool = False,
        git: bool = False,
        git_limit: int | None = None,
    ) -> IngestReport:
        """Ingest files, directories, JSON/JSONL record files or stdin (``"-"``).

        Folders are read for text and Markdown files (PDF, Word, PowerPoint and HTML with
        the ``docs`` extra) and source code (Python, JavaScript, TypeScript, Go, Rust and
        Java with the ``code`` extra: a graph of its files, modules, classes, functions,
        imports and calls); files skipped are listed in ``skipped_inputs`` with the reason.
        A document piped in is identified by ``stdin_id`` (else by the hash of its text) and
        titled ``stdin_title`` (else by its first line). Unchanged documents are skipped,
        changed ones replaced, each committed on its own as soon as it is done. A file given
        directly that cannot be read raises :class:`~loregraph.errors.InputError` first.
        ``visibility`` (public, private, personal) and ``owner`` apply to every document
        (see :meth:`ingest_documents`). With ``prune``, the stored documents read from a
        file below a directory given that this run did not read (the file was deleted or
        moved, or is no longer readable) are deleted with what only they supported, as
        :meth:`delete` does (``removed_documents`` in the report). With ``git``, each
        folder's git history is read too: its newest ``git_limit`` commits (default 300;
        merges left out) not read before, each a memory at its author time (``git:<sha>``; tagged
        ``commit``) whose author, a ``Person``, ``AUTHORED`` the files and definitions it
        changed, and who ``OWNS`` each file (most commits); a path that is not a folder of
        a git work tree, or no ``git`` program, raises
        :class:`~loregraph.errors.InputError` before anything is written.
        """
        document_access(
            visibility, owner, self.principal
        )  # a bad one fails before anything is read
        limit = GIT_LIMIT if git_limit is None else git_limit
        histories = open_histories(paths, limit) if git else []
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
        read: set[str] = set()
        known, history = await self._history(histories, scope)
        report = await self.ingest_documents(
            itertools.chain(_noting(itertools.chain(ahead, sources), read), history),
            scope=scope,
            progress=progress,
            visibility=visibility,
            owner=owner,
        )
        report.skipped_inputs = list(log.skipped)
        report.documents_seen += known
        report.skipped += known
        if prune:
            folders = [str(Path(p).resolve()) for p in paths if p != "-" and Path(p).is_dir()]
            for doc in await self.documents(scope=scope):
                below = any(doc.source.startswith(folder + os.sep) for folder in folders)
                if below and doc.source not in read:
                    await self.delete(doc.id, scope=scope)
                    report.removed_documents.append(ReplacedDocument(doc.source, doc.title))
        return report

    async def _history(
        self, histories: list[History], scope: str | None
    ) -> tuple[int, Iterator[SourceDocument]]:
        """How many commits of ``histories`` the scope holds already, and the documents of
        the others (:func:`~loregraph.engine.commits.commit_documents`)."""
        if not histories:
            return 0, iter(())
        await self.open()
        known = await known_commits(self.store, self._scope(scope))
        chunk = self.settings.chunk
        size = chunk.size if chunk.unit == "chars" else CHUNK_CHARS
        held = sum(commit_source(c.sha) in known for h in histories for c in h.commits)
        return held, commit_documents(histories, known, size, self.principal)

    async def ingest_records(
        self,
        path: str | Path,
        *,
        scope: str | None = None,
        progress: Progress | None = None,
        visibility: Visibility | str | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """Ingest a JSON array or JSONL file of ``{"title", "text", "id"?, ...}`` records."""
        await self.open()
        log = ReadLog()
        records = read_records(Path(path), log=log)
        report = await self.ingest_documents(
            records, scope=scope, progress=progress, visibility=visibility, owner=owner
        )
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
        visibility: Visibility | str | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """Ingest one text (a document, or an agent memory with ``kind=DocKind.MEMORY``)."""
        doc = SourceDocument(
            title=title,
            text=text,
            source=source or f"text:{title}",
            metadata=metadata or {},
            kind=kind,
        )
        return await self.ingest_documents([doc], scope=scope, visibility=visibility, owner=owner)

    # ------------------------------------------------------------------ query
    def ask_stream(self, question: str, **asking: Unpack[Asking]) -> StreamedAnswer:
        """Answer a question as it is written: ``async for piece in graph.ask_stream(q)``;
        ``asking`` holds the options of :meth:`retrieve`.

        The pieces joined are the answer's text (with an LLM: the model's reply, then its
        ``Sources``); ``.answer`` holds the :class:`Answer` with citations once the stream
        is exhausted. With no LLM configured the extractive answer comes as one piece.
        """
        return StreamedAnswer(
            question, lambda: self.retrieve(question, **asking), self.parts.answerer()
        )

    # ------------------------------------------------------------------ browse
    async def documents(self, *, scope: str | None = None) -> list[Document]:
        """The documents of the scope."""
        await self.open()
        return await self.store.list_documents(self._scope(scope))

    async def stats(self, *, scope: str | None = None) -> StoreStats:
        """Counts of documents, chunks, entities, relations and mentions."""
        await self.open()
        return await self.store.stats(self._scope(scope))

    async def scopes(self) -> dict[str, StoreStats]:
        """Every scope that holds data, with its counts, by name."""
        await self.open()
        return {name: await self.store.stats(name) for name in sorted(await self.store.scopes())}

    async def delete(self, ref: str, *, scope: str | None = None, by: str = "") -> DeleteReport:
        """Delete a document (by id, source path or exact title) and exactly what only it
        supported; recorded in the audit log as made ``by`` (a name; default: who the engine
        acts for)."""
        await self.open()
        scope = self._scope(scope)
        require(self.principal, scope, Role.WRITER, "delete documents")
        by = actor(self.principal, by)
        doc = await find_document(self.store, scope, ref)
        report = await delete_and_recheck(self.store, doc.id, self.settings.extraction)
        await self.store.add_audit(AuditEntry.removal("delete", doc, by))
        return report

    async def backfill(
        self,
        *,
        scope: str | None = None,
        rate: float | None = None,
        limit: int | None = None,
        progress: Progress | None = None,
        clock: Clock | None = None,
    ) -> BackfillReport:
        """Extract the scope's stored documents again with the current extractor (after
        configuring a model, say), each replacing its old graph in one write
        (:mod:`loregraph.engine.backfill`).

        Documents the current extractor already made are skipped (a second run does
        nothing; an interrupted one resumes); at most ``rate`` documents begin per second
        (``clock``: where the time is read, for tests) and at most ``limit`` are processed
        in this run. A document that fails is listed in the report and left as it was.
        """
        if limit is not None and limit < 1:
            raise InputError(f"the limit must be at least 1, not {limit}")
        pace = Pace(rate, clock)
        where = self._scope(scope)
        require(self.principal, where, Role.WRITER, "backfill")
        await self.open()
        sink = progress or NullProgress()
        run = Run(pace, limit, sink, self.correcting)
        return await self._counted(backfill(self._pipeline(sink), where, run))

    async def export(
        self,
        path: str | Path | IO[bytes],
        *,
        format: Literal["json", "graphml"] = "json",
        scope: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> int:
        """Write the scope's graph to a JSON or GraphML file (or a binary stream); returns
        the entity count. A file is written whole or not at all. With ``as_of`` or
        ``known_at``, the graph as it stood then (:mod:`loregraph.timepoint`)."""
        from loregraph.export import check_writable_target, export_graph
        from loregraph.timepoint import TimePoint

        target = path if not isinstance(path, str | Path) else Path(path)
        if isinstance(target, Path):
            check_writable_target(target)
        await self.open()
        scope = self._scope(scope)
        if (await self.store.stats(scope)).documents == 0:
            raise EmptyStoreError(f"scope {scope!r} holds no documents: nothing to export")
        point = None if as_of is None and known_at is None else TimePoint(as_of, known_at)
        return await export_graph(self.store, scope, target, format, point)


async def open_async(
    location: str | Path = "loregraph.db",
    *,
    store: Store | None = None,
    **options: Unpack[EngineOptions],
) -> AsyncGraph:
    """Open (or create) a graph and return the async engine (options as for
    :class:`AsyncGraph`)."""
    aio = AsyncGraph(store or open_store(location), **options)
    await aio.open()
    return aio


__all__ = [
    "AsyncGraph",
    "ContextFormat",
    "EngineOptions",
    "EntityView",
    "SearchHit",
    "SearchResults",
    "open_async",
    "open_store",
]


def _noting(sources: Iterable[SourceDocument], read: set[str]) -> Iterator[SourceDocument]:
    """``sources``, each one's ``source`` added to ``read`` as it passes."""
    for source in sources:
        read.add(source.source)
        yield source

"""The engine's core, which every group of its methods builds on: the store as the acting
principal sees it, the settings, the parts built from them (embedder, extractor, model
client), the observers, the engine's lifecycle (open, close, acting as a principal) and
writing documents.

:class:`~loregraph.graph.AsyncGraph` is this core with the questions on it and its other
methods in a few objects by concern, each a :class:`Section` over the core:
``graph.memories``, ``graph.explore``, ``graph.corrections`` and ``graph.access``.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, TypedDict, TypeVar, Unpack

from loregraph.access import Principal, Role, require
from loregraph.embed.base import Embedder
from loregraph.engine.parts import Parts, store_file
from loregraph.engine.visibility import check_owner, document_access, with_access
from loregraph.errors import InputError
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.progress import Progress
from loregraph.ingest.report import IngestReport
from loregraph.ingest.types import SourceDocument
from loregraph.kinds import Visibility
from loregraph.observe import Observer, Observers, observed
from loregraph.settings import Settings
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

if TYPE_CHECKING:
    from loregraph.llm.base import ChatModel
    from loregraph.llm.client import LLMClient
    from loregraph.llm.usage import UsageTracker


class _Report(Protocol):
    llm: Any


Counted = TypeVar("Counted", bound=_Report)


class EngineOptions(TypedDict, total=False):
    """What may be passed to the engine instead of its defaults (see :class:`AsyncGraph`)."""

    settings: Settings | None
    embedder: Embedder | None
    extractor: Extractor | None
    llm: LLMClient | ChatModel | None
    usage: UsageTracker | None
    observers: Sequence[Observer]


def actor(acting: Principal | None, by: str) -> str:
    """Who makes a change, for the audit log and merge decisions (the one rule for every
    change): ``by`` when given, else the principal the engine acts for (empty for the
    store's operator)."""
    return by or (acting.name if acting is not None else "")


class EngineCore:
    """What every method of the engine shares (see the module docstring); its arguments are
    :class:`~loregraph.graph.AsyncGraph`'s."""

    def __init__(self, store: Store, **options: Unpack[EngineOptions]) -> None:
        self._visible = VisibleStore.over(store)
        self.store: Store = self._visible
        """The store as :attr:`principal` sees it."""
        self.principal: Principal | None = None
        """Who the engine acts for: ``None``, the store's operator, who may do and see
        everything (library use); :meth:`acting_as` gives the engine of a principal."""
        self.settings = options.get("settings") or Settings()
        self.parts = Parts(
            self.settings,
            store_path=store_file(store),
            llm=options.get("llm"),
            usage=options.get("usage"),
            embedder=options.get("embedder"),
            extractor=options.get("extractor"),
        )
        self._opened = False
        self.correcting = asyncio.Lock()
        """Held by a hand merge or an undo: one at a time in this process, so that two undos
        of one merge cannot both find it not yet undone."""
        self.observers = Observers(options.get("observers") or ())

    def acting_as(self, principal: Principal) -> Self:
        """This engine acting for ``principal``: the same methods, which see only the
        documents it may read and do only what its roles allow (it shares this engine's
        store, models and caches). Raises :class:`~loregraph.errors.InputError` for a
        principal with a blank name: the operator is the engine itself, never a blank one.
        """
        if not isinstance(principal, Principal) or not principal.name.strip():
            raise InputError(f"a principal needs a name, not {principal!r}")
        view = copy.copy(self)
        view.principal = principal
        view.store = self._visible.seen_by(principal)
        return view

    @property
    def operator_store(self) -> Store:
        """The store as its operator sees it: everything, whoever the engine acts for."""
        return self._visible

    def seen_by(self, principal: Principal | None) -> Store:
        """The store as ``principal`` sees it (``None``: its operator)."""
        return self._visible.seen_by(principal)

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
            await self.parts.aclose()

    @property
    def llm(self) -> LLMClient | None:
        """The language-model client (``None`` when no LLM is configured)."""
        return self.parts.llm

    @property
    def usage(self) -> UsageTracker | None:
        """LLM calls, cache hits and tokens per stage (``None`` when no LLM is configured)."""
        return self.parts.usage

    @property
    def embedder(self) -> Embedder:
        """The embedder, created on first use."""
        return self.parts.embedder

    @property
    def extractor(self) -> Extractor:
        """The extractor, created on first use."""
        return self.parts.extractor

    def _scope(self, scope: str | None) -> str:
        return scope or self.settings.scope

    def _pipeline(
        self, progress: Progress | None = None, *, contradict: bool = True
    ) -> IngestPipeline:
        """The ingest pipeline over this engine's store, extractor, embedder and settings,
        with the model's confirmation of merges and (``contradict``) its check of what a
        document ends."""
        pipeline = IngestPipeline(
            self.store, self.extractor, self.embedder, self.settings, progress=progress
        )
        pipeline.resolver.confirm = self.parts.confirmer()
        if contradict:
            pipeline.contradict = self.parts.contradiction_check()
        return pipeline

    async def ingest_documents(
        self,
        sources: Iterable[SourceDocument],
        *,
        scope: str | None = None,
        progress: Progress | None = None,
        visibility: Visibility | str | None = None,
        owner: str | None = None,
    ) -> IngestReport:
        """Ingest already-read documents.

        ``visibility`` (``public``, ``private`` or ``personal``) and ``owner`` (a
        principal's name) are given to every document (default: the visibility of the
        document it replaces, else public); a personal document without an owner belongs to
        the principal the engine acts for, and raises
        :class:`~loregraph.errors.InputError` when none acts. With an LLM, the report's
        ``llm`` field holds the calls, cache hits, repairs, retries, drops and tokens of
        this run, per stage.
        """
        where = self._scope(scope)
        require(self.principal, where, Role.WRITER, "ingest")
        access = document_access(visibility, owner, self.principal)
        check_owner(access.owner, where, self.principal)
        sources = with_access(sources, access, where, self.principal)
        await self.open()
        pipeline = self._pipeline(progress)
        return await self._counted(observed(self.observers, pipeline.ingest(sources, scope=where)))

    async def _counted(self, work: Awaitable[Counted]) -> Counted:
        """``work``'s report with the model calls, cache hits, repairs, retries, drops and
        tokens it spent, per stage, in its ``llm`` field (when a model is configured)."""
        usage = self.usage
        before = usage.stages() if usage is not None else {}
        report = await work
        if usage is not None:
            report.llm = usage.since(before)
        return report


class Section:
    """One group of the engine's methods by concern (``graph.memories``, ``graph.explore``,
    ``graph.corrections``, ``graph.access``): it works on the engine's :attr:`core`, so it
    sees what the core sees and acts for whom the core acts."""

    def __init__(self, core: EngineCore) -> None:
        self.core = core

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.core.store!r}>"

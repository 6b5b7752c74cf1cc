"""The engine's core, which every group of its methods builds on: the store as the acting
principal sees it, the settings, the parts built from them (embedder, extractor, model
client), the observers, and the engine's lifecycle (open, close, acting as a principal).

:class:`~loregraph.graph.AsyncGraph` is this core with its methods by concern (questions,
memories, graph queries, merges, grants, keys, passages, backfill, suggestions), each a
class over :class:`EngineCore` in its own module of this package.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self, TypedDict, Unpack

from loregraph.access import Principal
from loregraph.embed.base import Embedder
from loregraph.engine.parts import Parts, store_file
from loregraph.errors import InputError
from loregraph.ingest.extract.base import Extractor
from loregraph.observe import Observer, Observers
from loregraph.settings import Settings
from loregraph.store.base import Store
from loregraph.store.visible import VisibleStore

if TYPE_CHECKING:
    from loregraph.llm.base import ChatModel
    from loregraph.llm.client import LLMClient
    from loregraph.llm.usage import UsageTracker


class EngineOptions(TypedDict, total=False):
    """What may be passed to the engine instead of its defaults (see :class:`AsyncGraph`)."""

    settings: Settings | None
    embedder: Embedder | None
    extractor: Extractor | None
    llm: LLMClient | ChatModel | None
    usage: UsageTracker | None
    observers: Sequence[Observer]


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
        self.corrections = asyncio.Lock()
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

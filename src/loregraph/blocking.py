"""The blocking facade: :class:`Graph`, the same methods as :class:`~loregraph.graph.AsyncGraph`
without ``await``, and :func:`open`.

Each method runs the async core's coroutine on the facade's own event loop; nothing is
written twice.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    ParamSpec,
    TypeVar,
    Unpack,
    cast,
    overload,
)

from loregraph.access import Principal
from loregraph.engine.core import Section
from loregraph.engine.grants import AccessControl
from loregraph.engine.merges import Corrections
from loregraph.engine.queries import Explore
from loregraph.engine.questions import Asking
from loregraph.engine.remember import Memories
from loregraph.graph import AsyncGraph, EngineOptions, open_store
from loregraph.store.base import Store
from loregraph.streaming import BlockingStreamedAnswer

if TYPE_CHECKING:
    from loregraph.embed.base import Embedder
    from loregraph.ingest.extract.base import Extractor
    from loregraph.llm.client import LLMClient
    from loregraph.llm.usage import UsageTracker
    from loregraph.retrieve.personas.library import PersonaLibrary
    from loregraph.retrieve.search.resilience import GraphStatus

P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")


def _blocking(
    method: Callable[Concatenate[Any, P], Awaitable[R]],
) -> Callable[Concatenate[_Facade, P], R]:
    """Expose a coroutine method of the async engine (or of one of its sections) as a
    blocking method of its facade."""

    def run(self: _Facade, /, *args: P.args, **kwargs: P.kwargs) -> R:
        coro = method(self.aio, *args, **kwargs)
        return self._run(coro)  # type: ignore[arg-type]

    functools.update_wrapper(run, method)
    return run


class _Facade:
    """What a blocking facade has: the async object it wraps (``aio``) and a way to run
    its coroutines."""

    aio: Any

    def _run(self, coro: Coroutine[Any, Any, R]) -> R:
        raise NotImplementedError


class _Section(_Facade):
    """The blocking face of one section of the engine (``graph.memories``, ...): it runs on
    its graph's event loop."""

    def __init__(self, graph: Graph, aio: Section) -> None:
        self.graph, self.aio = graph, aio

    def _run(self, coro: Coroutine[Any, Any, R]) -> R:
        return self.graph._run(coro)


class BlockingMemories(_Section):
    """:class:`~loregraph.engine.remember.Memories`, blocking."""

    remember = _blocking(Memories.remember)
    remember_many = _blocking(Memories.remember_many)
    all = _blocking(Memories.all)
    search = _blocking(Memories.search)
    forget = _blocking(Memories.forget)


class BlockingExplore(_Section):
    """:class:`~loregraph.engine.queries.Explore`, blocking."""

    entities = _blocking(Explore.entities)
    find_entity = _blocking(Explore.find_entity)
    entity = _blocking(Explore.entity)
    relations = _blocking(Explore.relations)
    impact = _blocking(Explore.impact)
    code = _blocking(Explore.code)
    neighbors = _blocking(Explore.neighbors)
    path = _blocking(Explore.path)
    history = _blocking(Explore.history)
    suggest = _blocking(Explore.suggest)
    passage = _blocking(Explore.passage)


class BlockingCorrections(_Section):
    """:class:`~loregraph.engine.merges.Corrections`, blocking."""

    merges = _blocking(Corrections.merges)
    unmerge = _blocking(Corrections.unmerge)
    merge = _blocking(Corrections.merge)
    rename = _blocking(Corrections.rename)
    retype = _blocking(Corrections.retype)


class BlockingAccess(_Section):
    """:class:`~loregraph.engine.grants.AccessControl`, blocking."""

    grant = _blocking(AccessControl.grant)
    revoke_grant = _blocking(AccessControl.revoke_grant)
    grants = _blocking(AccessControl.grants)
    principal_named = _blocking(AccessControl.principal_named)
    link = _blocking(AccessControl.link)
    unlink = _blocking(AccessControl.unlink)
    links = _blocking(AccessControl.links)
    create_key = _blocking(AccessControl.create_key)
    keys = _blocking(AccessControl.keys)
    revoke_key = _blocking(AccessControl.revoke_key)
    principal_for_key = _blocking(AccessControl.principal_for_key)
    audit = _blocking(AccessControl.audit)


class _CoreAttribute(Generic[V]):
    """A read-only attribute of :class:`Graph` that is its core's attribute of the same name
    (with the core's documentation)."""

    def __init__(self, doc: str | None = None) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        if self.__doc__ is None:
            self.__doc__ = getattr(AsyncGraph, name).__doc__

    @overload
    def __get__(self, graph: None, owner: type | None = None) -> _CoreAttribute[V]: ...

    @overload
    def __get__(self, graph: Graph, owner: type | None = None) -> V: ...

    def __get__(self, graph: Graph | None, owner: type | None = None) -> V | _CoreAttribute[V]:
        if graph is None:  # read on the class: the attribute itself (its documentation)
            return self
        return cast(V, getattr(graph.aio, self.name))


class Graph(_Facade):
    """The blocking facade over :class:`AsyncGraph`; same methods, no ``await``.

    Use as a context manager, or call :meth:`close` when done.
    """

    aio: AsyncGraph

    def __init__(self, aio: AsyncGraph) -> None:
        self.aio = aio
        self._runner = asyncio.Runner()

    def acting_as(self, principal: Principal) -> Graph:
        """This graph acting for ``principal`` (see :meth:`AsyncGraph.acting_as`); it shares
        this graph's store and event loop: close the graph it came from."""
        view = copy.copy(self)
        view.aio = self.aio.acting_as(principal)
        return view

    def _run(self, coro: Coroutine[Any, Any, R]) -> R:
        return self._runner.run(coro, context=contextvars.copy_context())

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

    store = _CoreAttribute[Store]("The store the graph lives in.")
    llm: _CoreAttribute[LLMClient | None] = _CoreAttribute()
    usage: _CoreAttribute[UsageTracker | None] = _CoreAttribute()

    def ask_stream(self, question: str, **asking: Unpack[Asking]) -> BlockingStreamedAnswer:
        return BlockingStreamedAnswer(self, self.aio.ask_stream(question, **asking))

    ask_stream.__doc__ = (AsyncGraph.ask_stream.__doc__ or "").replace(
        "async for piece in graph.ask_stream(q)", "for piece in graph.ask_stream(q)"
    )

    open = _blocking(AsyncGraph.open)
    ingest = _blocking(AsyncGraph.ingest)
    ingest_records = _blocking(AsyncGraph.ingest_records)
    ingest_text = _blocking(AsyncGraph.ingest_text)
    ingest_documents = _blocking(AsyncGraph.ingest_documents)
    documents = _blocking(AsyncGraph.documents)
    stats = _blocking(AsyncGraph.stats)
    scopes = _blocking(AsyncGraph.scopes)
    delete = _blocking(AsyncGraph.delete)
    backfill = _blocking(AsyncGraph.backfill)
    export = _blocking(AsyncGraph.export)
    retrieve = _blocking(AsyncGraph.retrieve)
    context = _blocking(AsyncGraph.context)
    ask = _blocking(AsyncGraph.ask)
    personas = _blocking(AsyncGraph.personas)
    search = _blocking(AsyncGraph.search)

    @property
    def memories(self) -> BlockingMemories:
        return BlockingMemories(self, self.aio.memories)

    @property
    def explore(self) -> BlockingExplore:
        return BlockingExplore(self, self.aio.explore)

    @property
    def corrections(self) -> BlockingCorrections:
        return BlockingCorrections(self, self.aio.corrections)

    @property
    def access(self) -> BlockingAccess:
        return BlockingAccess(self, self.aio.access)

    embedder: _CoreAttribute[Embedder] = _CoreAttribute()
    extractor: _CoreAttribute[Extractor] = _CoreAttribute()
    operator_store: _CoreAttribute[Store] = _CoreAttribute()

    def graph_status(self) -> GraphStatus:
        return self.aio.graph_status()

    def persona_library(self) -> PersonaLibrary:
        return self.aio.persona_library()

    def seen_by(self, principal: Principal | None) -> Store:
        return self.aio.seen_by(principal)

    graph_status.__doc__ = AsyncGraph.graph_status.__doc__
    persona_library.__doc__ = AsyncGraph.persona_library.__doc__
    seen_by.__doc__ = AsyncGraph.seen_by.__doc__


for _name in ("memories", "explore", "corrections", "access"):  # their documentation
    _section = getattr(Graph, _name)
    setattr(Graph, _name, property(_section.fget, doc=getattr(AsyncGraph, _name).__doc__))


def open(
    location: str | Path = "loregraph.db",
    *,
    store: Store | None = None,
    **options: Unpack[EngineOptions],
) -> Graph:
    """Open (or create) a graph and return the blocking facade.

    ``location`` is an SQLite file path or a database URL; pass ``store=`` to use another
    backend object. The options (``settings``, ``embedder``, ``extractor``, ``llm``,
    ``usage``) are as for :class:`~loregraph.graph.AsyncGraph`.
    """
    graph = Graph(AsyncGraph(store or open_store(location), **options))
    graph.open()
    return graph


__all__ = [
    "BlockingAccess",
    "BlockingCorrections",
    "BlockingExplore",
    "BlockingMemories",
    "BlockingStreamedAnswer",
    "Graph",
    "open",
]

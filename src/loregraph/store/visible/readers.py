"""The documents a principal may read, per scope, cached until the scope changes.

A :class:`Readers` is bound to one principal (``None``: the store's operator, who reads
everything); the views of one store for different principals share one
:class:`ReadersCache`, so what one request found serves the next of the same principal.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loregraph.access import LOCAL, Principal, ScopeLink
from loregraph.store.visible.rules import readable_documents

if TYPE_CHECKING:
    from loregraph.store.base import Store

CACHED = 256
"""(principal, scope) pairs whose readable documents are kept."""
FRESH = 0.5
"""Seconds one task reuses the readable documents it found without asking the store
whether the scope changed (every write through this store forgets them at once)."""

Readable = frozenset[str] | None
"""The readable document ids of a scope; ``None``: every document (nothing to filter)."""


def viewing(principal: Principal | None) -> Principal | None:
    """The principal whose view applies (``None``: the store's operator, who sees all: no
    principal, or the local principal of a server without keys)."""
    return None if principal is None or principal == LOCAL else principal


class ReadersCache:
    """What the views of one store have found of readable documents, shared between them."""

    def __init__(self) -> None:
        self.recent: weakref.WeakKeyDictionary[
            asyncio.Task[Any], dict[tuple[Any, ...], tuple[float, Readable]]
        ] = weakref.WeakKeyDictionary()
        self.scope_of: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.found: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Readable]] = OrderedDict()


class Readers:
    """Readable documents of one principal in each scope of one store."""

    def __init__(
        self, store: Store, principal: Principal | None = None, cache: ReadersCache | None = None
    ) -> None:
        self._store = store
        self.principal = viewing(principal)
        self.cache = cache or ReadersCache()

    async def links(self) -> Sequence[ScopeLink]:
        """Every scope link the store holds."""
        return await self._store.scope_links()

    def everything(self) -> bool:
        """Whether the principal sees everything (the store's operator)."""
        return self.principal is None

    async def readable(self, scope: str) -> Readable:
        """The principal's readable documents of ``scope`` (``None``: all of them)."""
        principal = self.principal
        if principal is None:
            return None
        key = (principal.name, tuple(sorted(principal.roles.items())), scope)
        task = asyncio.current_task()
        recent = self.cache.recent.setdefault(task, {}) if task is not None else {}
        found = recent.get(key)
        if found is not None and time.monotonic() - found[0] < FRESH:
            return found[1]
        result = await self._readable(principal, key, scope)
        recent[key] = (time.monotonic(), result)
        return result

    def scope_of(self, document_id: str) -> str | None:
        """The scope of a document seen while finding readable documents (``None``: not
        seen yet)."""
        return self.cache.scope_of.get(document_id)

    def version(self, scope: str) -> int | None:
        """The scope's graph version when its readable documents were last found."""
        return self.cache.versions.get(scope)

    def forget(self) -> None:
        """Drop what tasks remember (after a write through the store)."""
        self.cache.recent = weakref.WeakKeyDictionary()

    async def _readable(self, principal: Principal, key: tuple[Any, ...], scope: str) -> Readable:
        links = await self.links()
        stamp = (await self._store.graph_version(scope), tuple(map(_link_key, links)))
        found = self.cache.found
        cached = found.get(key)
        if cached is not None and cached[0] == stamp:
            found.move_to_end(key)
            return cached[1]
        self.cache.versions[scope] = stamp[0]
        documents = await self._store.list_documents(scope)
        self.cache.scope_of.update((doc.id, scope) for doc in documents)
        ids = readable_documents(principal, scope, documents, links)
        result: Readable = None if len(ids) == len(documents) else ids
        found[key] = (stamp, result)
        if len(found) > CACHED:
            found.popitem(last=False)
        return result

    async def per_scope(self, scopes: Sequence[str]) -> dict[str, Readable]:
        """:meth:`readable` of each distinct scope."""
        return {scope: await self.readable(scope) for scope in dict.fromkeys(scopes)}


def _link_key(link: ScopeLink) -> tuple[str, str, str, tuple[str, ...]]:
    return (link.scope, link.linked, link.share, tuple(link.documents))

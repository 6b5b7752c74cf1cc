"""The documents the acting principal may read, per scope, cached until the scope changes."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loregraph.access import LOCAL, Principal, ScopeLink, current_principal
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


def acting() -> Principal | None:
    """The principal whose view applies (``None``: the store's operator, who sees all: no
    principal, or the local principal of a server without keys)."""
    principal = current_principal()
    return None if principal is None or principal == LOCAL else principal


class Readers:
    """Readable documents of the acting principal in each scope of one store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._recent: weakref.WeakKeyDictionary[
            asyncio.Task[Any], dict[tuple[Any, ...], tuple[float, Readable]]
        ] = weakref.WeakKeyDictionary()
        self._scope_of: dict[str, str] = {}
        self._versions: dict[str, int] = {}
        self._cache: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Readable]] = OrderedDict()

    async def links(self) -> Sequence[ScopeLink]:
        """Every scope link the store holds."""
        return await self._store.scope_links()

    def everything(self) -> bool:
        """Whether the acting principal sees everything (no principal acts)."""
        return acting() is None

    async def readable(self, scope: str) -> Readable:
        """The acting principal's readable documents of ``scope`` (``None``: all of them)."""
        principal = acting()
        if principal is None:
            return None
        key = (principal.name, tuple(sorted(principal.roles.items())), scope)
        task = asyncio.current_task()
        recent = self._recent.setdefault(task, {}) if task is not None else {}
        found = recent.get(key)
        if found is not None and time.monotonic() - found[0] < FRESH:
            return found[1]
        result = await self._readable(principal, key, scope)
        recent[key] = (time.monotonic(), result)
        return result

    def scope_of(self, document_id: str) -> str | None:
        """The scope of a document seen while finding readable documents (``None``: not
        seen yet)."""
        return self._scope_of.get(document_id)

    def version(self, scope: str) -> int | None:
        """The scope's graph version when its readable documents were last found."""
        return self._versions.get(scope)

    def forget(self) -> None:
        """Drop what tasks remember (after a write through the store)."""
        self._recent = weakref.WeakKeyDictionary()

    async def _readable(self, principal: Principal, key: tuple[Any, ...], scope: str) -> Readable:
        links = await self.links()
        stamp = (await self._store.graph_version(scope), tuple(map(_link_key, links)))
        cached = self._cache.get(key)
        if cached is not None and cached[0] == stamp:
            self._cache.move_to_end(key)
            return cached[1]
        self._versions[scope] = stamp[0]
        documents = await self._store.list_documents(scope)
        self._scope_of.update((doc.id, scope) for doc in documents)
        ids = readable_documents(principal, scope, documents, links)
        result: Readable = None if len(ids) == len(documents) else ids
        self._cache[key] = (stamp, result)
        if len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return result

    async def per_scope(self, scopes: Sequence[str]) -> dict[str, Readable]:
        """:meth:`readable` of each distinct scope."""
        return {scope: await self.readable(scope) for scope in dict.fromkeys(scopes)}


def _link_key(link: ScopeLink) -> tuple[str, str, str, tuple[str, ...]]:
    return (link.scope, link.linked, link.share, tuple(link.documents))

"""The documents the acting principal may read, per scope, cached until the scope changes."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loregraph.access import LOCAL, Principal, ScopeLink, current_principal
from loregraph.store.visible.rules import readable_documents

if TYPE_CHECKING:
    from loregraph.store.base import Store

CACHED = 256
"""(principal, scope) pairs whose readable documents are kept."""

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
        links = await self.links()
        stamp = (await self._store.graph_version(scope), tuple(map(_link_key, links)))
        key = (principal.name, tuple(sorted(principal.roles.items())), scope)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == stamp:
            self._cache.move_to_end(key)
            return cached[1]
        documents = await self._store.list_documents(scope)
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

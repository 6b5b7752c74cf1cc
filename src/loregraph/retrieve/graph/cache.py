"""The graph layer's caches: neighbourhoods (expansions) for a few minutes, and the names
each conversation resolved.

Both are bounded, count their hits and misses, and are invalidated by writes: every entry
carries the scope's :meth:`Store.graph_version <loregraph.store.base.Store.graph_version>`
at the time it was made, and a lookup at another version is a miss (and drops the entry).

* :class:`NeighbourhoodCache`: what a k-hop expansion reached from a set of seed entities
  (the graph database's work, or the in-memory walk), kept ``ttl`` seconds (5 minutes by
  default), least recently used dropped beyond ``entries``. :class:`CachedExpander` puts it
  in front of any :class:`~loregraph.retrieve.graph.expander.Expander`.
* :class:`ConversationNames`: per conversation id, the entity each name key of its
  questions resolved to (or that none did). :class:`NamesStore` answers
  :meth:`Store.find_entities_by_key` from it, asking the store only for new keys, so a
  conversation's follow-up questions resolve the names it already used without a lookup.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from loregraph.models import Entity
from loregraph.retrieve.graph.expander import Expander, Expansion
from loregraph.store.base import Store

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
Clock = Callable[[], float]


@dataclass(slots=True)
class CacheStats:
    """Hits and misses of one cache, and how many entries it holds."""

    hits: int = 0
    misses: int = 0
    size: int = 0


class BoundedCache(Generic[K, V]):
    """A least-recently-used mapping of at most ``entries`` items, each living ``ttl``
    seconds (``None``: until pushed out) and valid for one graph version."""

    def __init__(self, entries: int, ttl: float | None = None, *, clock: Clock = time.monotonic):
        self.entries = entries
        self.ttl = ttl
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[K, tuple[int, float, V]] = OrderedDict()

    def get(self, key: K, version: int) -> tuple[bool, V | None]:
        """``(True, value)`` for a live entry made at ``version``, else ``(False, None)``."""
        item = self._items.get(key)
        if item is not None:
            made_at, stamp, value = item
            if made_at == version and (self.ttl is None or self.clock() - stamp < self.ttl):
                self._items.move_to_end(key)
                self.hits += 1
                return True, value
            del self._items[key]
        self.misses += 1
        return False, None

    def put(self, key: K, version: int, value: V) -> None:
        """Keep ``value`` for ``key`` at ``version`` (dropping the least recently used)."""
        if self.entries <= 0:
            return
        self._items[key] = (version, self.clock(), value)
        self._items.move_to_end(key)
        while len(self._items) > self.entries:
            self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry (the counts stay)."""
        self._items.clear()

    def stats(self) -> CacheStats:
        """The hit and miss counts and the current size."""
        return CacheStats(self.hits, self.misses, len(self._items))


ExpansionKey = tuple[str, str, tuple[str, ...], int, int, int]


class NeighbourhoodCache(BoundedCache[ExpansionKey, Expansion]):
    """Expansions by (viewer, scope, seeds, depth, per node, cap), five minutes by default.
    The viewer (who asks: see :func:`loregraph.retrieve.search.resilience.viewer`) is part of the
    key, since what a principal sees of the graph is its own."""


@dataclass(slots=True)
class CachedExpander:
    """An expander answering from the neighbourhood cache when the scope's graph has not
    changed since the same expansion was made."""

    inner: Expander
    cache: NeighbourhoodCache
    store: Store
    scope: str
    viewer: str = ""

    async def expand(
        self, seed_ids: Sequence[str], *, depth: int, per_node: int, max_entities: int
    ) -> Expansion:
        """The cached expansion, or the inner expander's (then cached)."""
        version = await self.store.graph_version(self.scope)
        key: ExpansionKey = (
            self.viewer,
            self.scope,
            tuple(seed_ids),
            depth,
            per_node,
            max_entities,
        )
        hit, cached = self.cache.get(key, version)
        if hit and cached is not None:
            return cached
        reached = await self.inner.expand(
            seed_ids, depth=depth, per_node=per_node, max_entities=max_entities
        )
        self.cache.put(key, version, reached)
        return reached


Names = dict[str, Entity | None]


class ConversationNames(BoundedCache[tuple[str, str, str], Names]):
    """Per (viewer, conversation, scope): each name key looked up and the entity it resolved
    to (``None``: none). At most ``entries`` conversations, ``per_conversation`` keys each."""

    def __init__(self, entries: int, per_conversation: int, *, clock: Clock = time.monotonic):
        super().__init__(entries, None, clock=clock)
        self.per_conversation = per_conversation
        self.name_hits = 0
        self.name_misses = 0

    def names(self, viewer: str, conversation: str, scope: str, version: int) -> Names:
        """The conversation's names at ``version`` (a fresh, kept table after a write)."""
        key = (viewer, conversation, scope)
        hit, names = self.get(key, version)
        if hit and names is not None:
            return names
        fresh: Names = {}
        self.put(key, version, fresh)
        return fresh

    def remember(self, names: Names, found: dict[str, Entity], keys: Sequence[str]) -> None:
        """Keep what a lookup of ``keys`` found (the oldest keys go beyond the bound)."""
        for key in keys:
            names[key] = found.get(key)
        while len(names) > self.per_conversation:
            del names[next(iter(names))]

    def stats(self) -> CacheStats:
        """Name keys answered from a conversation (hits) or looked up (misses)."""
        return CacheStats(self.name_hits, self.name_misses, len(self._items))


class NamesStore:
    """A store whose name look-ups (:meth:`Store.find_entities_by_key`) are answered from a
    conversation's names where known; every other call goes to the store itself."""

    def __init__(self, store: Store, names: Names, cache: ConversationNames) -> None:
        self._store = store
        self._names = names
        self._cache = cache

    @classmethod
    def wrap(cls, store: Store, names: Names, cache: ConversationNames) -> Store:
        """The store as the analyser sees it (the same contract, typed as a store)."""
        return cast(Store, cls(store, names, cache))

    async def find_entities_by_key(self, scope: str, keys: Sequence[str]) -> dict[str, Entity]:
        """Known keys from the conversation, the others from the store (then remembered)."""
        # the known ones are read first: remembering the others may evict them
        known = {k: self._names[k] for k in dict.fromkeys(keys) if k in self._names}
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        self._cache.name_hits += len(known)
        self._cache.name_misses += len(missing)
        found = await self._store.find_entities_by_key(scope, missing) if missing else {}
        if missing:
            self._cache.remember(self._names, found, missing)
        out: dict[str, Entity] = {}
        for key in keys:
            entity = known[key] if key in known else found.get(key)
            if entity is not None:
                out[key] = entity
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

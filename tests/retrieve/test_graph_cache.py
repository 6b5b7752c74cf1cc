"""The graph caches: neighbourhoods for five minutes, names per conversation; both bounded,
counted, and dropped by a write to the scope's graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from loregraph.access import Principal, Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import Entity
from loregraph.retrieve.graph.cache import BoundedCache, ConversationNames
from loregraph.retrieve.graph.expander import Expansion, IndexExpander
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.search.resilience import GraphGuard
from loregraph.settings import PRESETS, ResilienceSettings
from loregraph.store.base import Store

QUESTION = "How did Elena Varga reach Osray?"
NO_LIMITS = {"analysis_ms": 0, "traversal_ms": 0, "embedding_ms": 0, "pipeline_ms": 0}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class CountingStore:
    """The test store, counting the name keys looked up."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.keys: list[str] = []

    async def find_entities_by_key(self, scope: str, keys: Sequence[str]) -> dict[str, Entity]:
        self.keys.extend(keys)
        return await self.store.find_entities_by_key(scope, keys)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def make(store: Store, embedder: HashingEmbedder, clock: Clock) -> tuple[Retriever, GraphGuard]:
    guard = GraphGuard(ResilienceSettings(**NO_LIMITS), clock=clock)
    return Retriever(store, embedder, PRESETS["hybrid"], guard=guard), guard


@pytest.fixture()
def walks(monkeypatch: pytest.MonkeyPatch) -> list[Sequence[str]]:
    """The seeds of every walk of the in-memory graph index (a cached neighbourhood is not
    walked again)."""
    seen: list[Sequence[str]] = []
    walk = IndexExpander.expand

    async def counted(self: IndexExpander, seed_ids: Sequence[str], **options: int) -> Expansion:
        seen.append(seed_ids)
        return await walk(self, seed_ids, **options)

    monkeypatch.setattr(IndexExpander, "expand", counted)
    return seen


async def test_neighbourhoods_are_kept_five_minutes_and_dropped_by_a_write(
    store: Store, embedder: HashingEmbedder, walks: list[Sequence[str]]
) -> None:
    clock = Clock()
    ask, guard = make(store, embedder, clock)
    first = await ask.retrieve(QUESTION, "default")
    again = await ask.retrieve(QUESTION, "default")
    assert len(walks) == 1
    assert [e.entity.id for e in again.entities] == [e.entity.id for e in first.entities]
    stats = guard.status().neighbourhoods
    assert (stats.hits, stats.misses, stats.size) == (1, 1, 1)
    clock.now += 299.0
    await ask.retrieve(QUESTION, "default")
    assert len(walks) == 1
    clock.now += 2.0  # five minutes passed since it was made
    await ask.retrieve(QUESTION, "default")
    assert len(walks) == 2
    osray = Entity.make_id("default", "Osray")
    await store.update_entity(osray, entity_type="LOCATION")  # a write: a new graph version
    await ask.retrieve(QUESTION, "default")
    assert len(walks) == 3


async def test_a_conversation_resolves_its_names_once_until_the_graph_changes(
    store: Store, embedder: HashingEmbedder
) -> None:
    counting, clock = CountingStore(store), Clock()
    ask, guard = make(counting, embedder, clock)  # type: ignore[arg-type]
    first = await ask.retrieve(QUESTION, "default", conversation="c1")
    asked = len(counting.keys)
    assert asked and first.analysis.matched
    follow_up = await ask.retrieve("Who sailed with Elena Varga?", "default", conversation="c1")
    new_keys = counting.keys[asked:]
    assert "elena varga" not in new_keys  # known in this conversation
    assert follow_up.analysis.matched["Elena Varga"] == first.analysis.matched["Elena Varga"]
    names = guard.status().names
    assert names.hits >= 2 and names.misses >= len(set(counting.keys[:asked]))
    asks_names = {
        "c2": ("c2", None),  # another conversation
        "none": (None, None),  # no conversation: no cache
        "viewer": ("c1", Principal("someone", {"default": Role.READER})),  # another viewer
        "c1": ("c1", None),
    }
    looked_up: dict[str, bool] = {}
    for label, (conversation, principal) in asks_names.items():
        before = len(counting.keys)
        if principal is None:
            await ask.retrieve(QUESTION, "default", conversation=conversation)
        else:  # the same guard, another asker
            other = Retriever(
                counting, embedder, PRESETS["hybrid"], guard=guard, principal=principal
            )  # type: ignore[arg-type]
            await other.retrieve(QUESTION, "default", conversation=conversation)
        looked_up[label] = "elena varga" in counting.keys[before:]
    assert looked_up == {"c2": True, "none": True, "viewer": True, "c1": False}
    before = len(counting.keys)
    await store.update_entity(Entity.make_id("default", "Elena Varga"), name="Elena Marsh")
    before = len(counting.keys)
    await ask.retrieve(QUESTION, "default", conversation="c1")
    assert "elena varga" in counting.keys[before:]  # the write dropped the names known
    renamed = await ask.retrieve("Who sailed with Elena Marsh?", "default", conversation="c1")
    assert "Elena Marsh" in renamed.analysis.matched


def test_caches_are_bounded() -> None:
    clock = Clock()
    cache: BoundedCache[str, int] = BoundedCache(2, ttl=10.0, clock=clock)
    cache.put("a", 1, 1)
    cache.put("b", 1, 2)
    assert cache.get("a", 1) == (True, 1)  # a is now the most recently used
    cache.put("c", 1, 3)
    assert cache.get("b", 1) == (False, None)  # the least recently used went
    assert cache.get("a", 2) == (False, None)  # another graph version: a miss, dropped
    assert cache.get("a", 1) == (False, None)
    clock.now += 10.0
    assert cache.get("c", 1) == (False, None)  # expired
    assert cache.stats().hits == 1 and cache.stats().misses == 4 and cache.stats().size == 0
    names = ConversationNames(entries=2, per_conversation=3)
    table = names.names("", "c1", "default", 1)
    names.remember(table, {}, ["k1", "k2", "k3", "k4"])
    assert list(table) == ["k2", "k3", "k4"]
    names.names("", "c2", "default", 1)
    names.names("", "c3", "default", 1)
    assert names.stats().size == 2
    assert names.names("", "c1", "default", 1) == {}  # pushed out by the others


async def test_a_known_name_stays_in_the_answer_when_new_ones_push_it_out() -> None:
    from loregraph.retrieve.graph.cache import NamesStore

    ada = Entity(id="e1", name="Ada", type="person")
    bob = Entity(id="e2", name="Bob", type="person")

    class Keys:
        async def find_entities_by_key(self, scope: str, keys: Sequence[str]) -> dict[str, Any]:
            return {"bob": bob} if "bob" in keys else {}

    names = ConversationNames(entries=2, per_conversation=1)
    table = names.names("", "c1", "default", 1)
    table["ada"] = ada  # known from an earlier question
    store = NamesStore.wrap(Keys(), table, names)  # type: ignore[arg-type]
    found = await store.find_entities_by_key("default", ["ada", "bob"])
    assert found == {"ada": ada, "bob": bob}  # remembering bob evicted ada from the table
    assert names.name_hits == 1 and names.name_misses == 1

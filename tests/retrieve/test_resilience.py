"""The graph layer degrading: stage time limits, the graph circuit breaker, its fallback to
passages alone. Slow parts are test objects that wait on events no one sets (never sleeps
in the engine); the breaker's clock is a test clock, so nothing waits 30 seconds."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import StoreError
from loregraph.models import Relation
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.results.result import QueryAnalysis
from loregraph.retrieve.search.resilience import GraphGuard, bare_analysis, uses_graph
from loregraph.settings import PRESETS, ResilienceSettings, Settings
from loregraph.store.base import Store

QUESTION = "How did Elena Varga reach Osray?"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class GraphStore:
    """The test store whose graph reads during expansion (the relations among the entities
    reached) fail, hang or work on demand; every other call goes to the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.mode = "work"
        self.expansions = 0
        self.hang = asyncio.Event()  # never set: a hanging call waits until cancelled
        self.entered = asyncio.Event()  # set when an expansion starts

    async def relations_among(self, entity_ids: Sequence[str]) -> list[Relation]:
        self.expansions += 1
        self.entered.set()
        if self.mode == "fail":
            raise StoreError("PostgreSQL error: connection refused")
        if self.mode == "hang":
            await self.hang.wait()
        return await self.store.relations_among(entity_ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def limits(**changes: Any) -> ResilienceSettings:
    """No limits but those given (short, so a hanging stage is cut quickly), and no
    neighbourhood cache (each question asks the graph database again)."""
    base = {
        "analysis_ms": 0,
        "traversal_ms": 0,
        "embedding_ms": 0,
        "pipeline_ms": 0,
        "neighbourhood_entries": 0,
    }
    return ResilienceSettings(**{**base, **changes})


def retriever(store: Any, embedder: Any, guard: GraphGuard, **options: Any) -> Retriever:
    return Retriever(store, embedder, PRESETS["hybrid"], guard=guard, **options)


async def test_a_hanging_expansion_is_cut_and_the_question_answered(
    store: Store, embedder: HashingEmbedder
) -> None:
    graph = GraphStore(store)
    graph.mode = "hang"
    guard = GraphGuard(limits(traversal_ms=50))
    result = await retriever(graph, embedder, guard).retrieve(QUESTION, "default")
    assert result.passages and result.relevant
    assert "expand" in result.trace.timeouts
    assert result.debug["expand"]["skipped"] and result.debug["expand"]["reason"] == "timed out"
    assert result.debug["timeouts"]["expand"] == 50
    assert all(e.is_start for e in result.entities) and not result.relations
    assert guard.breaker.failures == 1 and guard.breaker.state == "closed"


async def test_the_breaker_opens_after_three_failures_then_half_opens(
    store: Store, embedder: HashingEmbedder
) -> None:
    graph = GraphStore(store)
    clock = Clock()
    guard = GraphGuard(limits(), clock=clock)
    ask = retriever(graph, embedder, guard)
    healthy = await ask.retrieve(QUESTION, "default")
    graph.mode = "fail"
    for n in range(3):
        assert guard.breaker.state == "closed"
        result = await ask.retrieve(QUESTION, "default")  # no error: the graph stage is left out
        assert result.passages and result.relevant
        assert "StoreError" in result.trace.errors["expand"]
        assert guard.breaker.failures == n + 1
    assert guard.breaker.state == "open" and graph.expansions == 4
    fallback = await ask.retrieve(QUESTION, "default")
    assert graph.expansions == 4  # the graph is not asked while the breaker is open
    assert fallback.debug["graph layer"]["skipped"]
    assert not fallback.entities and not fallback.relations and not fallback.start_entities
    assert fallback.passages and fallback.relevant
    assert {p.chunk_id for p in fallback.passages} <= {
        p.chunk_id for p in healthy.passages + healthy.reserve
    }
    clock.now += 29.0
    assert guard.breaker.state == "open"
    clock.now += 1.0
    assert guard.breaker.state == "half_open"
    await ask.retrieve(QUESTION, "default")  # the trial fails: open again at once
    assert graph.expansions == 5 and guard.breaker.state == "open"
    clock.now += 30.0
    graph.mode = "work"
    trial = await ask.retrieve(QUESTION, "default")
    assert guard.breaker.state == "closed" and graph.expansions == 6
    assert trial.relations and "graph layer" not in trial.debug


async def test_a_cancelled_trial_lets_the_next_question_try(
    store: Store, embedder: HashingEmbedder
) -> None:
    graph = GraphStore(store)
    clock = Clock()
    guard = GraphGuard(limits(), clock=clock)
    for _ in range(3):
        guard.breaker.record_failure("down")
    clock.now += 30.0
    assert guard.breaker.state == "half_open"
    graph.mode = "hang"
    ask = retriever(graph, embedder, guard)
    trial = asyncio.create_task(ask.retrieve(QUESTION, "default"))
    await graph.entered.wait()
    trial.cancel()  # e.g. the client went away
    with pytest.raises(asyncio.CancelledError):
        await trial
    graph.mode = "work"
    result = await ask.retrieve(QUESTION, "default")  # the next question is the trial
    assert "graph layer" not in result.debug and result.relations
    assert guard.breaker.state == "closed"


async def test_without_a_guard_a_graph_failure_is_raised(
    store: Store, embedder: HashingEmbedder
) -> None:
    graph = GraphStore(store)
    graph.mode = "fail"
    with pytest.raises(StoreError):
        await Retriever(graph, embedder, PRESETS["hybrid"]).retrieve(QUESTION, "default")  # type: ignore[arg-type]


class SlowEmbedder:
    """An embedder whose first call is slow (a model loading) and whose later calls hang
    once ``hang`` is set (until ``release``)."""

    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner = inner
        self.dim = inner.dim
        self.calls = 0
        self.loading = threading.Event()
        self.hang = False
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 1:
            self.loading.wait(0.3)  # a slow first call, far above the limit
        elif self.hang:
            self.release.wait(10)
        return self.inner.embed(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_the_embedder_warm_up_is_not_a_time_out_and_a_hanging_embedding_is(
    store: Store, embedder: HashingEmbedder
) -> None:
    slow = SlowEmbedder(embedder)
    guard = GraphGuard(limits(embedding_ms=50))
    ask = retriever(store, slow, guard)
    first = await ask.retrieve(QUESTION, "default")
    assert not first.trace.timeouts and first.debug["embed"]["count"] == 1
    assert slow.calls == 2  # the warm-up, then the question, timed
    slow.hang = True
    try:
        cut = await ask.retrieve(QUESTION, "default")
    finally:
        slow.release.set()
    assert cut.trace.timeouts == {"embed": 50}
    assert cut.debug["embed"]["count"] == 0  # no vector: no vector search
    assert "vector" not in cut.debug["passages"]["lists"]
    assert cut.passages and cut.relevant  # the words still find them
    assert guard.breaker.failures == 0  # a slow embedder is not the graph database


async def test_a_hanging_analysis_leaves_the_question_words(
    store: Store, embedder: HashingEmbedder
) -> None:
    hang = asyncio.Event()

    async def analyzer(question: str, store: Store, scope: str, **_: Any) -> QueryAnalysis:
        await hang.wait()
        raise AssertionError("not reached")

    guard = GraphGuard(limits(analysis_ms=50))
    result = await retriever(store, embedder, guard, analyzer=analyzer).retrieve(
        QUESTION, "default"
    )
    assert result.trace.timeouts == {"analyze": 50}
    assert result.analysis == bare_analysis(QUESTION)
    assert not result.analysis.matched and "osray" in result.analysis.keywords
    assert result.passages and result.relevant


async def test_the_whole_retrieval_limit_returns_the_passages_found(
    store: Store, embedder: HashingEmbedder
) -> None:
    graph = GraphStore(store)
    graph.mode = "hang"  # the expansion has no limit of its own here
    guard = GraphGuard(limits(pipeline_ms=300))
    result = await retriever(graph, embedder, guard).retrieve(QUESTION, "default")
    assert "total" in result.trace.timeouts
    assert result.passages and result.relevant
    assert {tuple(p.found_by) for p in result.passages} <= {
        ("bm25",),
        ("vector",),
        ("bm25", "vector"),
        ("vector", "bm25"),
    }
    assert not result.entities and not result.relations
    assert guard.breaker.state == "closed" and guard.breaker.failures == 0


async def test_the_whole_retrieval_limit_with_nothing_found_yet_is_an_empty_answer(
    store: Store, embedder: HashingEmbedder
) -> None:
    hang = asyncio.Event()

    class SlowSearch(GraphStore):
        async def search_chunks_text(self, *args: Any, **kwargs: Any) -> list[Any]:
            await hang.wait()
            return []

    guard = GraphGuard(limits(pipeline_ms=300))
    result = await retriever(SlowSearch(store), embedder, guard).retrieve(QUESTION, "default")
    assert "total" in result.trace.timeouts
    assert not result.passages and not result.relevant


def test_presets_without_graph_stages_do_not_touch_the_breaker() -> None:
    assert not uses_graph(PRESETS["passages"])
    assert not uses_graph(PRESETS["hybrid"].without_graph())
    assert all(uses_graph(PRESETS[name]) for name in ("local", "global", "hybrid", "ppr"))


def test_time_limits_and_breaker_are_read_from_the_environment() -> None:
    assert Settings.from_env({}).resilience == ResilienceSettings()
    defaults = ResilienceSettings()
    assert (defaults.analysis_ms, defaults.traversal_ms, defaults.embedding_ms) == (500, 300, 500)
    assert (defaults.pipeline_ms, defaults.breaker_failures, defaults.breaker_reset_s) == (
        2000,
        3,
        30.0,
    )
    env = {
        "LOREGRAPH_TRAVERSAL_TIMEOUT_MS": "150",
        "LOREGRAPH_PIPELINE_TIMEOUT_MS": "0",
        "LOREGRAPH_GRAPH_BREAKER_FAILURES": "5",
        "LOREGRAPH_GRAPH_BREAKER_RESET": "10",
        "LOREGRAPH_NEIGHBOURHOOD_TTL": "60",
    }
    settings = Settings.from_env(env).resilience
    assert settings.traversal_ms == 150 and settings.seconds("traversal_ms") == 0.15
    assert settings.seconds("pipeline_ms") is None  # 0: no limit
    assert settings.breaker_failures == 5 and settings.breaker_reset_s == 10.0
    assert settings.neighbourhood_ttl_s == 60.0

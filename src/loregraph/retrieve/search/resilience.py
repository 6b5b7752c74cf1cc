"""How retrieval degrades when the graph layer is slow or down: stage time limits, a circuit
breaker around the graph database, and the graph caches.

One :class:`GraphGuard` lives as long as its engine; each question gets a
:class:`GuardedRun` from :meth:`GraphGuard.begin`.

* **Time limits** (:class:`~loregraph.settings.ResilienceSettings`): the question's analysis
  (500 ms), its embedding (500 ms), the graph expansion (300 ms) and the whole retrieval
  (2,000 ms). A stage cut short contributes nothing and the others go on: an analysis
  falls back to the question's own words (no entity matches), an embedding to none (no
  vector search), an expansion to the seeds alone. At the whole-retrieval limit, the
  passages the text and vector searches found so far are returned (none when they had not
  finished), never an error. The trace records each stage cut short
  (:attr:`~loregraph.retrieve.results.trace.RetrievalTrace.timeouts`).
* **Warm-up**: an embedder's first use in a process loads its model (seconds, offline
  MiniLM); :meth:`GraphGuard.warm` runs it once, before any limit starts, so the first
  question is timed like the others and never loses its vector search to the load.
* **Circuit breaker** (:class:`~loregraph.breaker.CircuitBreaker`, 3 failures →
  open, 30 s → half-open): a question whose graph calls (the graph index, name look-ups,
  the expansion) failed or timed out counts one failure; one whose graph calls all
  succeeded closes it. While it is open, questions run with the graph layer off
  (:meth:`RetrievalSettings.without_graph`): passages found by their words and meaning,
  with no error shown; half-open, one question tries the graph again.
* **Caches** (:mod:`loregraph.retrieve.graph.cache`): expansions for five minutes, and the names
  each conversation resolved, both invalidated by the scope's graph version.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from loregraph.access import Principal
from loregraph.breaker import CircuitBreaker, CircuitOpenError
from loregraph.embed.base import Embedder
from loregraph.retrieve.graph.cache import (
    CachedExpander,
    CacheStats,
    ConversationNames,
    NamesStore,
    NeighbourhoodCache,
)
from loregraph.retrieve.graph.expand import seeds_only
from loregraph.retrieve.graph.expander import Expander
from loregraph.retrieve.question.analyze import (
    capitalised_phrases,
    classify_intent,
    quoted_strings,
)
from loregraph.retrieve.results.result import QueryAnalysis
from loregraph.retrieve.results.trace import RetrievalTrace
from loregraph.retrieve.search.stages import Expanded, Found
from loregraph.settings import ResilienceSettings, RetrievalSettings
from loregraph.store.base import Store
from loregraph.text.words import content_words

log = logging.getLogger("loregraph.retrieve")
T = TypeVar("T")
F = TypeVar("F")
Clock = Callable[[], float]


def uses_graph(cfg: RetrievalSettings) -> bool:
    """Whether any stage of ``cfg`` reads the graph (entities, expansion, mentions, pages)."""
    finders = cfg.use_exact or cfg.use_fuzzy or cfg.use_bm25_entities or cfg.use_vector_entities
    return finders or cfg.expansion != "none" or cfg.passages_by_mentions or cfg.entity_pages


def seeds_alone(analysis: QueryAnalysis, found: Found) -> Expanded:
    """What an expansion cut short leaves: the seeds, no relations."""
    matched = set(analysis.matched.values()) | set(found.lists.fuzzy)
    entities = seeds_only(found.seeds, matched_ids=matched, vector_ids=set(found.lists.vector))
    return Expanded(entities, [])


def viewer(principal: Principal | None) -> str:
    """Who is asking, as a cache key: the principal's name and roles (``""`` for the
    store's own user). Cached graph views are kept per viewer."""
    if principal is None:
        return ""
    roles = ",".join(f"{scope}={int(role)}" for scope, role in sorted(principal.roles.items()))
    return f"{principal.name}|{roles}"


def bare_analysis(question: str) -> QueryAnalysis:
    """The question's own words and capitalised phrases, with no store look-up (what an
    analysis cut short leaves: nothing matched)."""
    candidates = list(dict.fromkeys([*quoted_strings(question), *capitalised_phrases(question)]))
    return QueryAnalysis(
        question=question,
        intent=classify_intent(question, candidates),
        candidates=candidates,
        keywords=content_words(question),
    )


@dataclass(frozen=True, slots=True)
class GraphStatus:
    """The breaker's state and the caches' counts, for metrics and debug reports."""

    circuit: str
    failures: int
    neighbourhoods: CacheStats
    names: CacheStats


class GraphGuard:
    """The engine's breaker, time limits, caches and warmed embedders (module docstring)."""

    def __init__(
        self, settings: ResilienceSettings | None = None, *, clock: Clock = time.monotonic
    ) -> None:
        self.settings = settings or ResilienceSettings()
        s = self.settings
        self.breaker = CircuitBreaker(
            s.breaker_failures, s.breaker_reset_s, clock=clock, name="graph database"
        )
        self.neighbourhoods = NeighbourhoodCache(
            s.neighbourhood_entries, s.neighbourhood_ttl_s, clock=clock
        )
        self.names = ConversationNames(s.conversations, s.conversation_names, clock=clock)
        self._warm: set[int] = set()  # ids of the embedders run (an engine keeps its own)

    def status(self) -> GraphStatus:
        """The circuit state (``closed``, ``open``, ``half_open``) and the cache counts."""
        return GraphStatus(
            self.breaker.state,
            self.breaker.failures,
            self.neighbourhoods.stats(),
            self.names.stats(),
        )

    async def warm(self, embedder: Embedder | None) -> None:
        """Run ``embedder`` once, unlimited, if this guard has not seen it run (loading its
        model is not a slow embedding)."""
        if embedder is None or id(embedder) in self._warm:
            return
        await asyncio.to_thread(embedder.embed, ["warm-up"])
        self._warm.add(id(embedder))


async def begin(
    guard: GraphGuard | None,
    cfg: RetrievalSettings,
    scope: str,
    conversation: str | None = None,
    embedder: Embedder | None = None,
    asker: str = "",
) -> GuardedRun:
    """A question's run: ``cfg``, or ``cfg`` without the graph while ``guard``'s breaker is
    open (recorded as the skipped stage ``graph layer``); unguarded without a guard. The
    embedder is warmed first when the question will use it (:meth:`GraphGuard.warm`);
    ``asker`` is who asks (:func:`viewer`), what the run's caches are kept by."""
    trace = RetrievalTrace()
    if guard is None:
        return GuardedRun(None, cfg, trace, scope)
    if cfg.passages_by_vector or cfg.use_vector_entities:
        await guard.warm(embedder)
    graph = uses_graph(cfg)
    if graph:
        try:
            guard.breaker.before_call()
        except CircuitOpenError:
            trace.skip("graph layer", "the graph circuit is open", circuit="open")
            return GuardedRun(guard, cfg.without_graph(), trace, scope, conversation, asker)
    return GuardedRun(guard, cfg, trace, scope, conversation, asker, graph)


@dataclass(slots=True)
class GuardedRun:
    """One question under a guard: its settings, time limits and graph outcome.

    ``guard`` ``None`` runs every stage unlimited, with no breaker or caches (a bare
    :class:`~loregraph.retrieve.pipeline.Retriever`).
    """

    guard: GraphGuard | None
    cfg: RetrievalSettings
    trace: RetrievalTrace
    scope: str
    conversation: str | None = None
    asker: str = ""
    graph: bool = False
    failure: str = ""
    analysed: QueryAnalysis | None = None
    found: Found | None = None

    def _limit(self, name: str) -> float | None:
        return self.guard.settings.seconds(name) if self.guard is not None else None

    async def limited(
        self, stage: str, limit: str, work: Awaitable[T], fallback: Callable[[], F]
    ) -> tuple[T | F, bool]:
        """``work``'s result, or ``fallback()`` when it takes longer than ``limit``;
        the second value says whether it was cut short (recorded in the trace)."""
        seconds = self._limit(limit)
        if seconds is None:
            return await work, False
        try:
            return await asyncio.wait_for(work, seconds), False
        except TimeoutError:
            self.trace.timed_out(stage, seconds * 1000)
            log.warning("retrieval stage %s timed out after %.0f ms", stage, seconds * 1000)
            return fallback(), True

    async def graph_call(
        self, stage: str, work: Awaitable[T], fallback: Callable[[], F], limit: str = ""
    ) -> T | F:
        """A graph stage: on failure or time-out it contributes ``fallback()`` and counts
        towards the breaker (without a guard: ``work``, unlimited, errors raised)."""
        if self.guard is None:
            return await work
        result: T | F
        try:
            if not limit:
                return await work
            result, cut = await self.limited(stage, limit, work, fallback)
        except Exception as exc:  # a graph database error degrades the graph stage only
            log.warning("retrieval graph stage %s failed: %s", stage, exc)
            self.trace.errors[stage] = f"{type(exc).__name__}: {exc}"
            self.trace.skip(stage, "failed")
            self.failure = self.failure or f"{stage}: {exc}"
            return fallback()
        if cut:
            self.trace.skip(stage, "timed out")
            self.failure = self.failure or f"{stage}: timed out"
        return result

    async def analysis(
        self, question: str, analyse: Callable[[Store], Awaitable[QueryAnalysis]], store: Store
    ) -> QueryAnalysis:
        """The analysis (name look-ups through the conversation's names), or the question's
        bare words when it fails or is cut short."""

        async def run() -> QueryAnalysis:
            return await analyse(await self._names_store(store))

        def bare() -> QueryAnalysis:
            return bare_analysis(question)

        if self.guard is None:
            self.analysed = await run()
        elif not self.graph:
            self.analysed = (await self.limited("analyze", "analysis_ms", run(), bare))[0]
        else:
            self.analysed = await self.graph_call("analyze", run(), bare, "analysis_ms")
        return self.analysed

    async def _names_store(self, store: Store) -> Store:
        if self.guard is None or self.conversation is None:
            return store
        cache, scope = self.guard.names, self.scope
        version = await store.graph_version(scope)
        names = cache.names(self.asker, self.conversation, scope, version)
        return NamesStore.wrap(store, names, cache)

    def expander(self, expander: Expander | None, store: Store, scope: str) -> Expander | None:
        """``expander`` behind the neighbourhood cache (none without a guard)."""
        if expander is None or self.guard is None:
            return expander
        return CachedExpander(expander, self.guard.neighbourhoods, store, scope, self.asker)

    def end(self, cancelled: bool = False) -> None:
        """Tell the breaker how the question's graph calls went."""
        if self.guard is None or not self.graph:
            return
        breaker = self.guard.breaker
        if cancelled:
            breaker.release()
        elif self.failure:
            breaker.record_failure(self.failure)
            if breaker.state == "open":
                log.warning("graph circuit open: questions answered without the graph")
        else:
            breaker.record_success()

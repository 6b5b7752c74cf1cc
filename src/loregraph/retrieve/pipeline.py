"""The retrieval orchestrator: analyse → seed → expand → gather passages → fuse → rank.

Each stage is a function (:mod:`loregraph.retrieve.search.stages` for the seeds and the expansion,
:mod:`loregraph.retrieve.search.gather` for passages, documents and relevance) that records what it
did into the query's :class:`~loregraph.retrieve.results.trace.RetrievalTrace`, returned on the
result. Independent work runs concurrently: the question is embedded once (in a worker
thread) while it is analysed and the scope's in-memory graph index is fetched; the seed
finders and the text/vector passage searches then run together.

The k-hop expansion runs where the store says it should (:mod:`loregraph.retrieve.graph.expander`):
in its graph database when it has one, in the in-memory index otherwise.

Given a :class:`~loregraph.retrieve.search.resilience.GraphGuard`, stages run under their time
limits, the graph calls behind its circuit breaker and caches, and the whole retrieval under
its limit (:mod:`loregraph.retrieve.search.resilience`, :mod:`loregraph.retrieve.search.deadline`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

import numpy as np

from loregraph.access import Principal
from loregraph.embed.base import Embedder
from loregraph.errors import EmptyStoreError, InputError, NotAllowedError
from loregraph.models import DocKind, Vector
from loregraph.retrieve.graph.expander import expander_for
from loregraph.retrieve.graph.graphindex import SHARED_CACHE, GraphCache, GraphIndex
from loregraph.retrieve.personas.lens import PersonaLens
from loregraph.retrieve.question.analyze import SpacyPipeline, analyze_query, check_question
from loregraph.retrieve.question.relevance import MIN_COVERAGE
from loregraph.retrieve.results.result import QueryAnalysis, RetrievalResult
from loregraph.retrieve.results.terms import Focus
from loregraph.retrieve.results.trace import Stopwatch
from loregraph.retrieve.search import gather, stages
from loregraph.retrieve.search.deadline import within_limit
from loregraph.retrieve.search.kinds import entities_of_kind, relations_of_kind
from loregraph.retrieve.search.resilience import GraphGuard, GuardedRun, begin, seeds_alone, viewer
from loregraph.retrieve.temporal.timeline import at_time
from loregraph.settings import PRESETS, RetrievalSettings
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint


class Analyzer(Protocol):
    """Turns a question into a :class:`QueryAnalysis` (offline rules, or an LLM)."""

    async def __call__(
        self, question: str, store: Store, scope: str, *, nlp: SpacyPipeline | None = None
    ) -> QueryAnalysis: ...


@dataclass(slots=True)
class Prepared:
    """What the first stage produced: the analysis, the question's vector, the graph index."""

    analysis: QueryAnalysis
    vector: Vector | None
    index: GraphIndex | None


T = TypeVar("T")


async def _none() -> None:
    return None


async def _timed(work: Awaitable[T]) -> tuple[T, float]:
    """``work``'s result and the milliseconds it took (run beside other stages)."""
    watch = Stopwatch()
    result = await work
    return result, watch.ms()


class Retriever:
    """Graph-augmented retrieval over one store.

    ``embedder`` may be ``None`` (no vector search). ``nlp`` is an optional, already loaded
    spaCy pipeline whose named entities add question mentions; without one, none is used
    (query analysis never loads or looks up a model). ``graph_cache`` defaults to a
    process-wide cache of in-memory graph indexes. ``analyzer`` replaces the offline query
    analysis (e.g. with an LLM analyzer that falls back to it). ``min_coverage`` is the
    relevance threshold (:mod:`loregraph.retrieve.question.relevance`; 0 treats every non-empty
    result as relevant). ``guard`` (the engine's) sets time limits, the graph circuit
    breaker and the graph caches; without one every stage runs unlimited.
    ``lens`` asks through a persona, with conversation turns
    (:mod:`loregraph.retrieve.personas.lens`).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: RetrievalSettings | None = None,
        *,
        nlp: SpacyPipeline | None = None,
        graph_cache: GraphCache | None = None,
        analyzer: Analyzer | None = None,
        min_coverage: float = MIN_COVERAGE,
        guard: GraphGuard | None = None,
        lens: PersonaLens | None = None,
        principal: Principal | None = None,
    ) -> None:
        self.guard = guard
        self.principal = principal
        """Who asks (``None``: the store's operator): named in errors, and what the
        guard's caches are kept by; ``store`` is the store as it sees it."""
        self.store = store
        self.min_coverage = min_coverage
        self.analyzer: Analyzer = analyzer or analyze_query
        self.lens = lens
        if lens is not None:
            self.analyzer = lens.analyzer(self.analyzer)
        self.embedder = embedder
        self.settings = settings or PRESETS["hybrid"]
        self.nlp = nlp
        self.graph_cache = graph_cache or SHARED_CACHE
        if lens is not None:  # the persona's walk reads the retriever's graph index
            lens.graph_cache = self.graph_cache

    async def _embed(self, question: str, run: GuardedRun) -> Vector | None:
        if self.embedder is None:
            return None
        work = asyncio.to_thread(self.embedder.embed, [question])
        matrix, _ = await run.limited("embed", "embedding_ms", work, lambda: None)
        if matrix is None:
            return None
        vector = np.asarray(matrix[0], dtype=np.float32)
        return vector if float(np.linalg.norm(vector)) > 0 else None

    async def _graph(self, scope: str) -> tuple[GraphIndex, bool, float]:
        watch = Stopwatch()
        index, rebuilt = await self.graph_cache.get(self.store, scope)
        return index, rebuilt, watch.ms()

    def _wants_index(self, cfg: RetrievalSettings) -> bool:
        """Whether a stage reads the in-memory graph index."""
        walks = cfg.expansion in ("ppr", "bfs")
        return walks or cfg.passages_by_mentions or cfg.entity_pages

    async def _prepare(self, question: str, scope: str, run: GuardedRun) -> Prepared:
        """Analyse the question, embed it and fetch the graph index, concurrently (each
        stage's time is its own)."""
        cfg, trace = run.cfg, run.trace
        wants_vector = cfg.use_vector_entities or cfg.passages_by_vector
        wants_index = self._wants_index(cfg)

        def analyse(store: Store) -> Awaitable[QueryAnalysis]:
            return self.analyzer(question, store, scope, nlp=self.nlp)

        (analysis, analyse_ms), (vector, embed_ms), graph = await asyncio.gather(
            _timed(run.analysis(question, analyse, self.store)),
            _timed(self._embed(question, run) if wants_vector else _none()),
            run.graph_call("graph", self._graph(scope), lambda: None) if wants_index else _none(),
        )
        trace.record(
            "analyze",
            analyse_ms,
            len(analysis.candidates),
            intent=analysis.intent,
            matched=len(analysis.matched),
            spacy=analysis.used_spacy,
        )
        if wants_vector:
            trace.record("embed", embed_ms, int(vector is not None))
        else:
            trace.skip("embed", "no vector stage")
        if graph is None:
            if not wants_index:
                trace.skip("graph", "no graph stage in this preset")
            return Prepared(analysis, vector, None)
        index, rebuilt, graph_ms = graph
        trace.record("graph", graph_ms, len(index.entity_index), rebuilt=rebuilt)
        return Prepared(analysis, vector, index)

    async def _check(self, question: str, scope: str) -> None:
        if not question.strip():
            raise InputError("the question is empty; ask something about the documents")
        check_question(question)
        if not await self.store.list_documents(scope, limit=1):
            acting = self.principal
            if acting is not None and acting.role_in(scope) is None:
                raise NotAllowedError(
                    f"principal {acting.name!r} has no role in scope {scope!r} (nor a link "
                    "to it from a scope it has one in): an administrator of the scope can "
                    f"give one (loregraph grant {acting.name} reader --scope {scope})"
                )
            raise EmptyStoreError(
                f"scope {scope!r} holds no documents; ingest some first "
                "(e.g. `loregraph ingest PATH`)"
            )

    async def retrieve(
        self,
        question: str,
        scope: str,
        *,
        settings: RetrievalSettings | None = None,
        kind: DocKind | None = None,
        as_of: datetime | None = None,
        conversation: str | None = None,
        known_at: datetime | None = None,
    ) -> RetrievalResult:
        """Retrieve entities, relations and passages for ``question`` from ``scope`` (from
        memories only or documents only, when ``kind`` says which), as things stand now
        or, with ``as_of``, as they stood then, and with ``known_at`` as the store knew them
        then (:mod:`loregraph.timepoint`, :mod:`.timeline`). ``conversation`` names
        the conversation the question belongs to (the names it resolved are remembered).

        Raises :class:`~loregraph.errors.EmptyStoreError` when the scope has no documents
        (:class:`~loregraph.errors.NotAllowedError` when the principal acting sees none for
        want of a role there) and :class:`~loregraph.errors.InputError` when the question is blank.
        """
        total = Stopwatch()
        await self._check(question, scope)
        cfg = settings or self.settings
        asker = viewer(self.principal)
        run = await begin(self.guard, cfg, scope, conversation, self.embedder, asker)
        point = TimePoint(as_of, known_at)
        work = self._retrieve(question, run, total, kind, point)
        return await within_limit(run, work, self.store, question, self.min_coverage, point)

    async def _retrieve(
        self,
        question: str,
        run: GuardedRun,
        total: Stopwatch,
        kind: DocKind | None,
        point: TimePoint,
    ) -> RetrievalResult:
        cfg, trace, scope = run.cfg, run.trace, run.scope
        ready = await self._prepare(question, scope, run)
        analysis, store = ready.analysis, self.store
        found = run.found = await stages.search(
            store, scope, cfg, analysis, ready.vector, trace, kind
        )
        expander = run.expander(expander_for(ready.index), store, scope)
        expanded = await run.graph_call(
            "expand",
            stages.expand(store, cfg, analysis, found, ready.index, expander, trace),
            lambda: seeds_alone(analysis, found),
            "traversal_ms",
        )
        if kind is not None:
            expanded.relations = await relations_of_kind(
                store, ready.index, kind, expanded.relations
            )
            expanded.entities = entities_of_kind(expanded.entities, expanded.relations)
        got = await gather.gather(
            store, cfg, analysis, ready.index, found, expanded, trace, scope=scope, kind=kind
        )
        if self.lens is not None:  # a failing graph walk leaves the passages as gathered
            gathered = got
            lensed = self.lens.apply(
                store, scope, cfg, ready.vector, ready.index, found, got, trace, kind, run.graph
            )
            got = await run.graph_call("persona", lensed, lambda: gathered)
        watch = Stopwatch()
        seen = await at_time(
            store,
            got.ranked,
            got.documents,
            expanded.entities,
            expanded.relations,
            found.seeds,
            point,
            show_ended=cfg.show_ended,
        )
        got = gather.Gathered(seen.ranked, seen.ranked[: cfg.max_passages], seen.documents)
        expanded.entities, expanded.relations = seen.entities, seen.relations
        trace.record("time", watch.ms(), len(seen.ranked), history=seen.history, later=seen.later)
        judged = seen.seen if seen.seen is not None else got.ranked
        relevance = gather.judge_relevance(analysis, found, judged, self.min_coverage, trace)
        reserve = got.ranked[len(got.passages) :]
        passages = got.passages
        trace.record("total", total.ms(), len(passages), preset=cfg.name)
        gather.record_findings(trace, found.seeds, expanded, got)
        return RetrievalResult(
            question=question,
            scope=scope,
            preset=cfg.name,
            analysis=analysis,
            start_entities=found.seeds,
            entities=expanded.entities,
            relations=expanded.relations,
            passages=passages,
            documents=got.documents,
            token_budget=cfg.token_budget,
            trace=trace,
            relevant=relevance.relevant,
            reserve=reserve,
            changes=seen.changes,
            focus=Focus.of(found.terms, found.counts, question),
            persona=self.lens.report if self.lens is not None else None,
        )

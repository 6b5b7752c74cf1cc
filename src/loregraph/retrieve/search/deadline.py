"""The whole-retrieval time limit (2,000 ms by default): what a question has gathered when
its time is up.

The retrieval runs for nine tenths of the limit; if it has not finished by then it is
cancelled, and the last tenth builds the result from what the text and vector searches
had found (their chunk rankings, fused as usual, with their documents and the relevance
check), with no entities or relations. When the searches had not finished either, the
result is empty and not relevant. Either way the caller gets a result, never an error, and
the trace records ``total`` among its
:attr:`~loregraph.retrieve.results.trace.RetrievalTrace.timeouts`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from loregraph.retrieve.results.result import Passage, RankedDocument, RetrievalResult
from loregraph.retrieve.results.terms import Focus
from loregraph.retrieve.results.trace import Stopwatch
from loregraph.retrieve.search.fuse import Fused
from loregraph.retrieve.search.gather import DOCUMENT_PASSAGES, judge_relevance
from loregraph.retrieve.search.passages import fuse_passages, load_passages, rank_documents
from loregraph.retrieve.search.resilience import GuardedRun, bare_analysis
from loregraph.retrieve.temporal.timeline import at_time
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint

log = logging.getLogger("loregraph.retrieve")

FINISH_SHARE = 0.1
"""The share of the whole-retrieval limit kept for building the result when time is up."""


async def within_limit(
    run: GuardedRun,
    work: Coroutine[Any, Any, RetrievalResult],
    store: Store,
    question: str,
    min_coverage: float,
    point: TimePoint | None = None,
) -> RetrievalResult:
    """``work``'s result, or what it had gathered (:func:`gathered_so_far`) when it overruns
    the run's whole-retrieval limit; the breaker hears how the question's graph calls went.
    """
    limit = run.guard.settings.seconds("pipeline_ms") if run.guard is not None else None
    if limit is None:
        try:
            result = await work
        except BaseException:
            run.end(cancelled=True)
            raise
        run.end()
        return result
    try:
        result = await asyncio.wait_for(work, limit * (1 - FINISH_SHARE))
    except TimeoutError:
        run.trace.timed_out("total", limit * 1000)
        log.warning("retrieval cut at %.0f ms: returning what was gathered", limit * 1000)
        run.end(cancelled=not run.failure)
        seconds = limit * FINISH_SHARE
        return await gathered_so_far(store, run, question, seconds, min_coverage, point)
    except BaseException:
        run.end(cancelled=True)
        raise
    run.end()
    return result


async def gathered_so_far(
    store: Store,
    run: GuardedRun,
    question: str,
    seconds: float | None,
    min_coverage: float,
    point: TimePoint | None = None,
) -> RetrievalResult:
    """The result of what the text and vector searches found before time was up (see the
    module docstring); ``seconds`` bounds the loading of their passages."""
    watch = Stopwatch()
    cfg, trace, found = run.cfg, run.trace, run.found
    analysis = run.analysed or bare_analysis(question)
    ranked: list[Passage] = []
    documents: list[RankedDocument] = []
    if found is not None and found.chunk_rankings:
        limit = max(cfg.max_passages, DOCUMENT_PASSAGES)
        fused = fuse_passages(found.chunk_rankings, cfg.rrf_k, limit)
        try:
            loading = _load(store, fused, cfg.rrf_k, point)
            ranked, documents = await asyncio.wait_for(loading, seconds)
        except TimeoutError:
            log.warning("retrieval: the passages found could not be loaded in time")
    relevant = False
    if found is not None and ranked:
        relevant = judge_relevance(analysis, found, ranked, min_coverage, trace).relevant
    trace.record("total", watch.ms(), min(len(ranked), cfg.max_passages), preset=cfg.name)
    return RetrievalResult(
        question=question,
        scope=run.scope,
        preset=cfg.name,
        analysis=analysis,
        passages=ranked[: cfg.max_passages],
        documents=documents,
        token_budget=cfg.token_budget,
        trace=trace,
        relevant=relevant,
        reserve=ranked[cfg.max_passages :],
        focus=Focus.of(found.terms, found.counts, question) if found else Focus(),
    )


async def _load(
    store: Store, fused: list[Fused], rrf_k: int, point: TimePoint | None
) -> tuple[list[Passage], list[RankedDocument]]:
    """The fused passages and their documents, as seen at ``point`` (default: now)."""
    ranked = await load_passages(store, fused)
    documents = rank_documents(ranked, rrf_k)
    seen = await at_time(store, ranked, documents, [], [], [], point)
    return seen.ranked, seen.documents

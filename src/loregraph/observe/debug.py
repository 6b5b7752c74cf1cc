"""Why a question got the sources it got: the debug report of one retrieval.

:func:`debug_report` reads a :class:`~loregraph.retrieve.results.result.RetrievalResult` and its
per-query trace (:mod:`loregraph.retrieve.results.trace`) into plain JSON: the question's intent
and what analysis found in it, each passage, entity and relation with its score and how it
was found (the stage that produced it and the rankings or finders that proposed it), each
stage's timing and figures, the stages cut short by their time limit, the LLM circuit
breaker's state and the graph layer's (its circuit breaker, whether this question fell back
to passages alone, the caches). It is what the HTTP API's ``debug=true`` returns to
administrators; from Python::

    result = await graph.retrieve("Where did Dracula live?")
    report = debug_report(
        result, circuit=circuit_state(graph.llm), graph=graph.graph_status()
    )
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loregraph.retrieve.results.result import RetrievalResult
from loregraph.retrieve.results.trace import Finding
from loregraph.retrieve.search.resilience import GraphStatus

if TYPE_CHECKING:
    from loregraph.llm.client import LLMClient


def circuit_state(llm: LLMClient | None) -> str | None:
    """The circuit breaker's state of ``llm`` (``closed``, ``open`` or ``half_open``;
    ``None`` without a language model)."""
    return llm.resilience.breaker.state if llm is not None else None


def debug_report(
    result: RetrievalResult, *, circuit: str | None = None, graph: GraphStatus | None = None
) -> dict[str, Any]:
    """The retrieval's intent, sources, stage timings and the circuit states, as JSON.

    ``sources`` holds ``passages``, ``entities`` and ``relations`` in their ranked order,
    each with its ``score``, the ``stage`` that produced it and ``found_by``: the rankings
    that proposed it (passages: ``mentions``, ``bm25``, ``vector``, ``ppr``, ...; entities:
    ``start``, ``graph``, ``vector``, ``ppr``, and for a start entity (one the question is
    about, where the graph walk starts) its finders in ``start_found_by``:
    ``exact``, ``fuzzy``, ``bm25``, ``vector``; relations: the expansion that reached
    them, ``bfs`` or ``ppr``). ``stages`` is :attr:`RetrievalResult.debug` (milliseconds,
    counts, each stage's figures, searches that failed under ``errors``). ``timed_out``
    lists the stages cut short by their time limit (``total``: the whole retrieval, which
    then returned what it had gathered). ``graph`` holds the graph layer's circuit
    state (``None`` when not given), whether this question ran without the graph because
    it was open (``fallback``), and the graph caches' hits and misses.
    """
    analysis = result.analysis
    return {
        "intent": analysis.intent,
        "preset": result.preset,
        "relevant": result.relevant,
        "analysis": {
            "candidates": list(analysis.candidates),
            "matched": dict(analysis.matched),
            "keywords": list(analysis.keywords),
            "used_spacy": analysis.used_spacy,
        },
        "sources": {
            "passages": _passages(result),
            "entities": _entities(result),
            "relations": _relations(result),
        },
        "stages": result.debug,
        "timed_out": list(result.trace.timeouts),
        "circuit": circuit,
        "graph": _graph(result, graph),
    }


def _graph(result: RetrievalResult, status: GraphStatus | None) -> dict[str, Any]:
    """The graph layer's state as this question saw it."""
    out: dict[str, Any] = {
        "circuit": status.circuit if status is not None else None,
        "fallback": result.trace.stage("graph layer") is not None,
    }
    if status is not None:
        out["failures"] = status.failures
        out["caches"] = {
            name: {"hits": stats.hits, "misses": stats.misses, "entries": stats.size}
            for name, stats in (("neighbourhoods", status.neighbourhoods), ("names", status.names))
        }
    return out


def _how(findings: dict[str, Finding], key: str, stage: str, found_by: list[str]) -> dict[str, Any]:
    """The stage and rankings that found ``key``: the trace's finding, else the result's
    own record of it."""
    finding = findings.get(key)
    if finding is None:
        return {"stage": stage, "found_by": list(found_by)}
    return {"stage": finding.stage, "found_by": list(finding.found_by)}


def _passages(result: RetrievalResult) -> list[dict[str, Any]]:
    found = result.trace.findings_of("passage")
    return [
        {
            "rank": rank,
            "chunk_id": p.chunk_id,
            "document_id": p.document_id,
            "document_title": p.document_title,
            "section": p.section,
            "seq": p.seq,
            "score": round(p.score, 6),
            **_how(found, p.chunk_id, "passages", p.found_by),
        }
        for rank, p in enumerate(result.passages, 1)
    ]


def _entities(result: RetrievalResult) -> list[dict[str, Any]]:
    found = result.trace.findings_of("entity")
    seeds = result.trace.findings_of("start")
    out: list[dict[str, Any]] = []
    for rank, ranked in enumerate(result.entities, 1):
        entity = ranked.entity
        item: dict[str, Any] = {
            "rank": rank,
            "id": entity.id,
            "name": entity.name,
            "type": entity.type,
            "score": round(ranked.score, 6),
            "hop": ranked.hop,
            "start": ranked.is_start,
            **_how(found, entity.id, "expand", ranked.found_by),
        }
        seed = seeds.get(entity.id)
        if seed is not None:
            item["start_found_by"] = list(seed.found_by)
        out.append(item)
    return out


def _relations(result: RetrievalResult) -> list[dict[str, Any]]:
    found = result.trace.findings_of("relation")
    return [
        {
            "rank": rank,
            "id": r.relation.id,
            "source": r.source_name,
            "type": r.relation.type,
            "target": r.target_name,
            "score": round(r.score, 6),
            **_how(found, r.relation.id, "expand", []),
        }
        for rank, r in enumerate(result.relations, 1)
    ]


__all__ = ["circuit_state", "debug_report"]

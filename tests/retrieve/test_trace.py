"""The per-query trace: stages in order, what found each result, its ``debug`` view."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import Scored
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.question.analyze import SpacyPipeline, analyze_query
from loregraph.retrieve.results.result import QueryAnalysis
from loregraph.retrieve.results.trace import RetrievalTrace, guarded
from loregraph.settings import PRESETS
from loregraph.store.base import Store

QUESTION = "How did Elena Varga reach Osray?"


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_every_result_has_one_finding(
    store: Any, embedder: HashingEmbedder, preset: str
) -> None:
    result = await Retriever(store, embedder, PRESETS[preset]).retrieve(QUESTION, "default")
    trace = result.trace
    seeds = trace.findings_of("start")
    assert {i: f.found_by for i, f in seeds.items()} == {
        s.entity.id: tuple(s.found_by) for s in result.start_entities
    }
    entities = trace.findings_of("entity")
    assert {i: f.found_by for i, f in entities.items()} == {
        e.entity.id: tuple(e.found_by) for e in result.entities
    }
    assert set(trace.findings_of("relation")) == {r.relation.id for r in result.relations}
    passages = trace.findings_of("passage")
    assert {i: f.found_by for i, f in passages.items()} == {
        p.chunk_id: tuple(p.found_by) for p in result.passages
    }
    documents = trace.findings_of("document")
    assert list(documents) == [d.document_id for d in result.documents]
    rankings = set(result.debug["passages"]["lists"])
    assert all(f.found_by and set(f.found_by) <= rankings for f in documents.values())
    assert {f.stage for f in trace.findings} <= {s.name for s in trace.stages} | {"documents"}


async def test_debug_is_the_trace_in_pipeline_order(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder, PRESETS["ppr"]).retrieve(QUESTION, "default")
    names = [s.name for s in result.trace.stages]
    assert names == list(result.debug)
    expand = result.trace.stage("expand")
    assert expand is not None and expand.details["mode"] == "ppr"
    assert result.debug["expand"] == {"ms": expand.ms, "count": expand.count, **expand.details}
    relations = result.trace.findings_of("relation").values()
    assert all(f.found_by == ("ppr",) for f in relations)


async def test_bfs_expansion_says_how_far_it_went(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(QUESTION, "default")
    expand = result.debug["expand"]
    assert expand["mode"] == "bfs" and expand["depth"] == PRESETS["hybrid"].max_graph_depth
    assert expand["reached"] >= len(result.start_entities) > 0


def test_skipped_stage_and_errors_before_total() -> None:
    trace = RetrievalTrace()
    trace.record("start", 1.5, 2, ran=["exact"])
    trace.skip("expand", "no seeds", 2, 0.5, relations=0)
    trace.errors["chunks.bm25"] = "StoreError: bad query"
    trace.record("total", 3.0, 0, preset="hybrid")
    debug = trace.debug()
    assert list(debug) == ["start", "expand", "errors", "total"]
    assert debug["expand"] == {
        "ms": 0.5,
        "count": 2,
        "skipped": True,
        "reason": "no seeds",
        "relations": 0,
    }
    assert debug["errors"] == {
        "ms": 0.0,
        "count": 1,
        "skipped": True,
        "chunks.bm25": "StoreError: bad query",
    }
    trace.record("start", 2.0, 3)  # a stage recorded again replaces its record
    assert [s.name for s in trace.stages] == ["expand", "total", "start"]


async def test_guarded_search_records_its_failure() -> None:
    async def failing() -> list[Scored]:
        raise RuntimeError("index unavailable")

    trace = RetrievalTrace()
    assert await guarded(failing(), "entities.bm25", trace.errors) == []
    assert trace.errors == {"entities.bm25": "RuntimeError: index unavailable"}


async def test_context_fit_is_recorded_apart_from_debug(
    store: Any, embedder: HashingEmbedder
) -> None:
    result = await Retriever(store, embedder).retrieve(QUESTION, "default")
    before = result.debug
    assert result.trace.context is None
    assemble(result, "markdown", budget=200)
    fit = result.trace.context
    assert fit is not None and fit.name == "budget" and fit.details["budget"] == 200
    assert fit.count <= len(result.passages)
    assert result.debug == before


class _SlowEmbedder(HashingEmbedder):
    """Embeds as the hashing embedder does, half a second later."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        time.sleep(0.5)
        return super().embed(texts)


async def _slow_analysis(
    question: str, store: Store, scope: str, *, nlp: SpacyPipeline | None = None
) -> QueryAnalysis:
    await asyncio.sleep(0.5)
    return await analyze_query(question, store, scope, nlp=nlp)


async def test_analyze_and_embed_each_report_their_own_time(store: Any) -> None:
    """The two stages run side by side; each one's time is its own, not the pair's."""
    slow_embed = Retriever(store, _SlowEmbedder(), PRESETS["hybrid"])
    debug = (await slow_embed.retrieve(QUESTION, "default")).debug
    assert debug["embed"]["ms"] >= 500  # its own half second
    assert debug["analyze"]["ms"] < debug["embed"]["ms"]  # not the pair's time
    slow_analysis = Retriever(store, HashingEmbedder(), PRESETS["hybrid"], analyzer=_slow_analysis)
    debug = (await slow_analysis.retrieve(QUESTION, "default")).debug
    assert debug["analyze"]["ms"] >= 500
    assert debug["embed"]["ms"] < debug["analyze"]["ms"]

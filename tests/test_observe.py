"""What loregraph reports about its work: Prometheus metrics and OpenTelemetry spans from
real retrievals and ingests."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.report import IngestReport
from loregraph.llm.usage import StageUsage
from loregraph.observe import Observers
from loregraph.observe.metrics import Metrics
from loregraph.observe.spans import Spans
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.store.sqlite import SqliteStore

TEXT = "Ada Moreno works for Globex in Lisbon. Globex builds the Harbor ledger."


@pytest.fixture
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    graph = AsyncGraph(SqliteStore(str(tmp_path / "g.db")), embedder=HashingEmbedder(dim=64))
    await graph.open()
    await graph.ingest_text(TEXT, title="Harbor")
    yield graph
    await graph.close()


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


async def test_metrics_count_retrievals_stages_and_results(graph: AsyncGraph) -> None:
    metrics = Metrics()
    result = await graph.retrieve("Who does Ada Moreno work for?")
    metrics.retrieved(result)
    metrics.retrieved(result)
    seen = samples(metrics)
    relevant = str(result.relevant).lower()
    key = ("loregraph_retrievals_total", (("preset", result.preset), ("relevant", relevant)))
    assert seen[key] == 2
    total = ("loregraph_stage_seconds_count", (("pipeline", "retrieve"), ("stage", "total")))
    assert seen[total] == 2
    ran = [s.name for s in result.trace.stages if not s.skipped]
    for stage in ran:
        assert seen[("loregraph_stage_seconds_count", (("pipeline", "retrieve"), ("stage", stage)))]
    passages = {k: v for k, v in seen.items() if k[0] == "loregraph_results_total"}
    assert any(dict(labels)["kind"] == "passage" for _, labels in passages)
    assert sum(passages.values()) >= 2 * len(result.passages)


def test_metrics_count_ingested_documents_and_llm_usage() -> None:
    usage = {"extract.entities": StageUsage(calls=3, cached=1, prompt_tokens=120)}
    state = ["closed"]
    metrics = Metrics(usage=lambda: usage, breaker=lambda: state[0])
    report = IngestReport(ingested=2, skipped=1, seconds={"extract": 0.5, "write": 0.1})
    now = time.time_ns()
    metrics.ingested(report, now - 2_000_000_000, now)
    seen = samples(metrics)
    assert seen[("loregraph_ingest_documents_total", (("outcome", "ingested"),))] == 2
    assert seen[("loregraph_ingest_documents_total", (("outcome", "skipped"),))] == 1
    ingest_total = ("loregraph_stage_seconds_sum", (("pipeline", "ingest"), ("stage", "total")))
    assert seen[ingest_total] == pytest.approx(2.0)
    assert seen[("loregraph_llm_calls_total", (("stage", "extract.entities"),))] == 3
    assert seen[("loregraph_llm_prompt_tokens_total", (("stage", "extract.entities"),))] == 120
    assert seen[("loregraph_llm_circuit_state", (("state", "closed"),))] == 1
    state[0] = "open"
    seen = samples(metrics)
    assert seen[("loregraph_llm_circuit_state", (("state", "open"),))] == 1
    assert seen[("loregraph_llm_circuit_state", (("state", "closed"),))] == 0


async def test_spans_draw_the_retrieval_and_its_stages(graph: AsyncGraph) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    spans = Spans(provider.get_tracer("test"))
    result = await graph.retrieve("Who does Ada Moreno work for?")
    spans.retrieved(result)
    finished = {s.name: s for s in exporter.get_finished_spans()}
    root = finished["loregraph.retrieve"]
    assert root.attributes is not None and root.attributes["loregraph.preset"] == result.preset
    children = [s for s in finished.values() if s is not root]
    ran = {s.name for s in result.trace.stages if not s.skipped} - {"total"}
    assert {s.name for s in children} == {f"loregraph.retrieve.{n}" for n in ran}
    for child in children:
        assert child.parent is not None and child.parent.span_id == root.context.span_id
        assert root.start_time <= child.start_time <= child.end_time <= root.end_time + 1_000_000
    skipped = [s for s in result.trace.stages if s.skipped]
    assert len(root.events) >= len(skipped)


def test_spans_of_an_ingest_and_observers_that_fail() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    class Broken:
        def retrieved(self, result: RetrievalResult) -> None:
            raise RuntimeError("broken observer")

        def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
            raise RuntimeError("broken observer")

    observers = Observers([Broken(), Spans(provider.get_tracer("test"))])
    now = time.time_ns()
    observers.ingested(IngestReport(ingested=1, seconds={"chunk": 0.25}), now - 10**9, now)
    [span] = exporter.get_finished_spans()
    assert span.name == "loregraph.ingest"
    assert span.attributes is not None
    assert span.attributes["loregraph.stage.chunk.seconds"] == 0.25
    assert span.attributes["loregraph.documents.ingested"] == 1
    assert span.end_time is not None and span.start_time is not None
    assert span.end_time - span.start_time == 10**9

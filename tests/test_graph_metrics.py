"""The graph layer's state where operators look: ``/metrics`` (Prometheus) and the debug
report of a question."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.observe.debug import debug_report
from loregraph.observe.metrics import Metrics
from loregraph.store.sqlite import SqliteStore

TEXT = "Tomas Brandt kept the lighthouse at Osray. Elena Varga sailed the Meridian to Osray."


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = metrics.exposition()[0].decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_metrics_and_debug_show_the_graph_circuit_and_caches(tmp_path: Path) -> None:
    graph = AsyncGraph(SqliteStore(tmp_path / "m.db"), embedder=HashingEmbedder(dim=64))
    metrics = Metrics(graph=graph.graph_status)
    graph.observers.observers.append(metrics)
    await graph.open()
    try:
        await graph.ingest_text(TEXT, title="Osray")
        await graph.retrieve("Who kept the lighthouse at Osray?")
        result = await graph.retrieve("Who kept the lighthouse at Osray?")
        seen = samples(metrics)
        assert seen[("loregraph_graph_circuit_state", (("state", "closed"),))] == 1.0
        assert seen[("loregraph_graph_circuit_state", (("state", "open"),))] == 0.0
        assert seen[("loregraph_graph_circuit_failures", ())] == 0.0
        hits = ("loregraph_graph_cache_hits_total", (("cache", "neighbourhoods"),))
        assert seen[hits] == 1.0  # the second question's expansion was kept
        report = debug_report(result, graph=graph.graph_status())
        assert report["timed_out"] == []
        assert report["graph"]["circuit"] == "closed" and not report["graph"]["fallback"]
        assert report["graph"]["caches"]["neighbourhoods"]["hits"] == 1
        for _ in range(3):
            graph.parts.guard.breaker.record_failure("down")
        assert samples(metrics)[("loregraph_graph_circuit_state", (("state", "open"),))] == 1.0
        fallback = await graph.retrieve("Who kept the lighthouse at Osray?")
        assert fallback.passages and not fallback.entities
        report = debug_report(fallback, graph=graph.graph_status())
        assert report["graph"]["fallback"] and report["graph"]["circuit"] == "open"
        fallback.trace.timed_out("expand", 300)
        metrics.retrieved(fallback)
        timeouts = ("loregraph_retrieval_timeouts_total", (("stage", "expand"),))
        assert samples(metrics)[timeouts] == 1.0
    finally:
        await graph.close()

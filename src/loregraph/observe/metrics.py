"""Prometheus metrics of one engine, from what its observers hear (``prometheus-client``).

Each :class:`Metrics` has its own registry (two engines in one process do not mix their
counts). Exposed: stage latency histograms for retrieval (``pipeline="retrieve"``, each
stage that ran, and ``total``) and for ingest (``pipeline="ingest"``, each stage's seconds
in one ingest); retrievals by preset and whether anything relevant was found; results by
kind and by the ranking that found them; searches that failed; stages cut short by their
time limit; documents ingested, replaced, skipped and failed; and, read when scraped, the
LLM calls, cached replies, retries, failures and tokens by stage, the LLM circuit breaker's
state, the graph database's circuit breaker state and the graph caches' hits and misses
(:mod:`loregraph.retrieve.search.resilience`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from loregraph.ingest.report import IngestReport
from loregraph.llm.usage import COUNTERS, StageUsage
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.retrieve.search.resilience import GraphStatus

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
"""Latency buckets, seconds: from a cached lookup to a long ingest."""
BREAKER_STATES = ("closed", "half_open", "open")

UsageSource = Callable[[], Mapping[str, StageUsage]]
BreakerSource = Callable[[], str | None]
GraphSource = Callable[[], GraphStatus]


class Metrics:
    """An observer keeping Prometheus metrics; :meth:`exposition` is what ``/metrics``
    serves.

    ``usage`` returns the LLM usage by stage, ``breaker`` the LLM circuit breaker's state
    (``None``: no LLM) and ``graph`` the graph layer's breaker and caches, all read when the
    metrics are scraped.
    """

    def __init__(
        self,
        *,
        usage: UsageSource | None = None,
        breaker: BreakerSource | None = None,
        graph: GraphSource | None = None,
    ) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry()
        self.stage_seconds = Histogram(
            "loregraph_stage_seconds",
            "Time spent in each stage of retrieval and ingest.",
            ["pipeline", "stage"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.retrievals = Counter(
            "loregraph_retrievals",
            "Retrievals (ask, context, search) by preset and whether anything was relevant.",
            ["preset", "relevant"],
            registry=self.registry,
        )
        self.results = Counter(
            "loregraph_results",
            "Results returned, by kind and by the ranking or finder that proposed them.",
            ["kind", "source"],
            registry=self.registry,
        )
        self.search_errors = Counter(
            "loregraph_search_errors",
            "Searches that failed and were left out of a retrieval.",
            ["search"],
            registry=self.registry,
        )
        self.timeouts = Counter(
            "loregraph_retrieval_timeouts",
            "Retrieval stages cut short by their time limit (total: the whole retrieval).",
            ["stage"],
            registry=self.registry,
        )
        self.documents = Counter(
            "loregraph_ingest_documents",
            "Documents and memories by what ingesting them did.",
            ["outcome"],
            registry=self.registry,
        )
        if usage is not None or breaker is not None:
            self.registry.register(_LLMCollector(usage, breaker))
        if graph is not None:
            self.registry.register(_GraphCollector(graph))

    def retrieved(self, result: RetrievalResult) -> None:
        """Count a retrieval, its stages' times and its results."""
        for stage in result.trace.stages:
            if not stage.skipped:
                self.stage_seconds.labels("retrieve", stage.name).observe(stage.ms / 1000)
        self.retrievals.labels(result.preset, str(result.relevant).lower()).inc()
        for finding in result.trace.findings:
            for source in finding.found_by or (finding.stage,):
                self.results.labels(finding.kind, source).inc()
        for search in result.trace.errors:
            self.search_errors.labels(search).inc()
        for stage_name in result.trace.timeouts:
            self.timeouts.labels(stage_name).inc()

    def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
        """Count an ingest's documents and its stages' times."""
        for stage, seconds in report.seconds.items():
            self.stage_seconds.labels("ingest", stage).observe(seconds)
        self.stage_seconds.labels("ingest", "total").observe((ended_ns - started_ns) / 1e9)
        outcomes = {
            "ingested": report.ingested,
            "replaced": report.replaced,
            "skipped": report.skipped,
            "failed": len(report.failed),
        }
        for outcome, count in outcomes.items():
            if count:
                self.documents.labels(outcome).inc(count)

    def exposition(self) -> tuple[bytes, str]:
        """The metrics in the Prometheus text format, and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _LLMCollector:
    """LLM usage and circuit state, read from the engine when scraped."""

    def __init__(self, usage: UsageSource | None, breaker: BreakerSource | None) -> None:
        self.usage = usage
        self.breaker = breaker

    def describe(self) -> list[Any]:
        return []  # collected on demand: the registry must not call collect() at register

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        if self.usage is not None:
            families = {
                name: CounterMetricFamily(
                    f"loregraph_llm_{name}",
                    f"LLM {name.replace('_', ' ')} by stage.",
                    labels=["stage"],
                )
                for name in COUNTERS
            }
            for stage, usage in self.usage().items():
                for name, family in families.items():
                    family.add_metric([stage], float(getattr(usage, name)))
            yield from families.values()
        if self.breaker is not None:
            state = self.breaker()
            gauge = GaugeMetricFamily(
                "loregraph_llm_circuit_state",
                "The LLM circuit breaker: 1 for its current state (none when no LLM).",
                labels=["state"],
            )
            if state is not None:
                for name in BREAKER_STATES:
                    gauge.add_metric([name], 1.0 if name == state else 0.0)
            yield gauge


class _GraphCollector:
    """The graph database's circuit breaker and the graph caches, read when scraped."""

    def __init__(self, status: GraphSource) -> None:
        self.status = status

    def describe(self) -> list[Any]:
        return []  # collected on demand

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        status = self.status()
        state = GaugeMetricFamily(
            "loregraph_graph_circuit_state",
            "The graph database's circuit breaker: 1 for its current state (open: questions "
            "are answered from passages found by their words and meaning only).",
            labels=["state"],
        )
        for name in BREAKER_STATES:
            state.add_metric([name], 1.0 if name == status.circuit else 0.0)
        yield state
        failures = GaugeMetricFamily(
            "loregraph_graph_circuit_failures",
            "Questions in a row whose graph calls failed or timed out.",
            value=float(status.failures),
        )
        yield failures
        hits = CounterMetricFamily(
            "loregraph_graph_cache_hits", "Graph cache hits, by cache.", labels=["cache"]
        )
        misses = CounterMetricFamily(
            "loregraph_graph_cache_misses", "Graph cache misses, by cache.", labels=["cache"]
        )
        entries = GaugeMetricFamily(
            "loregraph_graph_cache_entries", "Entries held, by cache.", labels=["cache"]
        )
        for name, stats in (("neighbourhoods", status.neighbourhoods), ("names", status.names)):
            hits.add_metric([name], float(stats.hits))
            misses.add_metric([name], float(stats.misses))
            entries.add_metric([name], float(stats.size))
        yield from (hits, misses, entries)

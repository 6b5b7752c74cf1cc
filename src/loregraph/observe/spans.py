"""OpenTelemetry spans from what the engine's observers hear (``opentelemetry-api``).

A retrieval becomes a ``loregraph.retrieve`` span (the question's length, preset, scope,
counts and whether anything was relevant) with one child span per stage that ran, drawn
from the stage's recorded end and duration; a stage that did not run is an event with its
reason. An ingest becomes one ``loregraph.ingest`` span with its counts and each stage's
seconds. Spans go to the tracer provider the application configured (the SDK's exporter
of its choice); without the ``otel`` extra nothing here is imported.
"""

from __future__ import annotations

from typing import Any

from loregraph.ingest.report import IngestReport
from loregraph.retrieve.results.result import RetrievalResult

TRACER = "loregraph"


class Spans:
    """An observer writing spans with ``tracer`` (default: the global provider's)."""

    def __init__(self, tracer: Any | None = None) -> None:
        if tracer is None:
            from opentelemetry import trace

            tracer = trace.get_tracer(TRACER)
        self.tracer = tracer

    def retrieved(self, result: RetrievalResult) -> None:
        """One span for the retrieval, a child for each stage that ran."""
        stages = result.trace.stages
        if not stages:
            return
        total = result.trace.stage("total")
        start = min(s.started_ns for s in stages)
        end = total.ended_ns if total is not None else max(s.ended_ns for s in stages)
        root = self.tracer.start_span(
            "loregraph.retrieve",
            start_time=start,
            attributes={
                "loregraph.preset": result.preset,
                "loregraph.scope": result.scope,
                "loregraph.question.length": len(result.question),
                "loregraph.relevant": result.relevant,
                "loregraph.passages": len(result.passages),
                "loregraph.entities": len(result.entities),
                "loregraph.relations": len(result.relations),
            },
        )
        from opentelemetry import trace

        parent = trace.set_span_in_context(root)
        for stage in stages:
            if stage.name == "total":
                continue
            if stage.skipped:
                root.add_event(
                    f"skipped {stage.name}", {"reason": stage.reason}, timestamp=stage.ended_ns
                )
                continue
            child = self.tracer.start_span(
                f"loregraph.retrieve.{stage.name}",
                context=parent,
                start_time=stage.started_ns,
                attributes={"loregraph.count": stage.count, **_scalars(stage.details)},
            )
            child.end(end_time=stage.ended_ns)
        for search, error in result.trace.errors.items():
            root.add_event(f"search failed: {search}", {"error": error})
        root.end(end_time=end)

    def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
        """One span for the ingest, with its counts and each stage's seconds."""
        attributes: dict[str, Any] = {
            "loregraph.documents.ingested": report.ingested,
            "loregraph.documents.replaced": report.replaced,
            "loregraph.documents.skipped": report.skipped,
            "loregraph.documents.failed": len(report.failed),
            "loregraph.chunks": report.chunks,
            "loregraph.relations": report.relations,
        }
        for stage, seconds in report.seconds.items():
            attributes[f"loregraph.stage.{stage}.seconds"] = round(seconds, 6)
        span = self.tracer.start_span(
            "loregraph.ingest", start_time=started_ns, attributes=attributes
        )
        for failure in report.failed[:20]:
            span.add_event("document failed", {"detail": str(failure)[:500]})
        span.end(end_time=ended_ns)


def _scalars(details: dict[str, Any]) -> dict[str, Any]:
    """The stage figures a span attribute can hold (scalars), prefixed ``loregraph.``."""
    return {
        f"loregraph.{key}": value
        for key, value in details.items()
        if isinstance(value, str | bool | int | float)
    }

"""The per-query trace: what each retrieval stage did, how long it took, what found what.

Every stage of :mod:`loregraph.retrieve.pipeline` records one :class:`StageRecord` (name,
milliseconds, count, whether it was skipped and why, and the stage's own figures), and
every result (seed, entity, relation, passage, document) one :class:`Finding` naming the
stage that produced it and the rankings that proposed it. The trace travels with the
:class:`~loregraph.retrieve.results.result.RetrievalResult`; its ``debug`` view (a plain dict, the
shape the JSON outputs carry) and anything that reports on a query (debug metadata,
spans, metrics) read it and nothing else.

Searches that may fail without failing the retrieval are awaited through :func:`guarded`,
which records the failure in the trace's ``errors``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.models import Scored

log = logging.getLogger("loregraph.retrieve")

ResultKind = Literal["start", "entity", "relation", "passage", "document"]


class Stopwatch:
    """Milliseconds since creation (monotonic clock)."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def ms(self) -> float:
        """Elapsed milliseconds, rounded to 0.01."""
        return round((time.perf_counter() - self._start) * 1000.0, 2)


@dataclass(slots=True)
class StageRecord:
    """One stage of one query: its duration, how many items it produced, its figures.

    ``details`` holds the stage's own figures (e.g. ``mode`` and ``reached`` for the
    expansion, ``ran`` and ``lists`` for the passage rankings), as plain JSON values.
    ``ended_ns`` is when it was recorded (wall clock, nanoseconds since the epoch: a
    stage is recorded as it ends), so that a span can be drawn for it.
    """

    name: str
    ms: float = 0.0
    count: int = 0
    skipped: bool = False
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    ended_ns: int = field(default_factory=time.time_ns)

    @property
    def started_ns(self) -> int:
        """When the stage started (its end less its duration)."""
        return self.ended_ns - int(self.ms * 1_000_000)

    def as_dict(self) -> dict[str, Any]:
        """The stage as one entry of the ``debug`` view."""
        out: dict[str, Any] = {"ms": self.ms, "count": self.count}
        if self.skipped:
            out["skipped"] = True
            out["reason"] = self.reason
        out.update(self.details)
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """Which stage produced a result and which rankings (or finders) proposed it."""

    kind: ResultKind
    id: str
    stage: str
    found_by: tuple[str, ...]


@dataclass(slots=True)
class RetrievalTrace:
    """Everything one retrieval reports about itself (see the module docstring).

    ``stages`` are in pipeline order; ``errors`` maps a search that failed (and was left
    out) to its error; ``timeouts`` maps a stage cut short by its time limit to that limit
    in milliseconds (:mod:`loregraph.retrieve.search.resilience`); ``findings`` say what found
    each result; ``context`` is the last token-budget fit made from the result (see
    :func:`loregraph.retrieve.context.assemble.assemble`), kept out of ``debug`` because
    formatting comes after retrieval.
    """

    stages: list[StageRecord] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    context: StageRecord | None = None

    def record(self, name: str, ms: float, count: int, **details: Any) -> StageRecord:
        """Record a stage that ran."""
        return self._add(StageRecord(name, ms, count, details=details))

    def skip(
        self, name: str, reason: str, count: int = 0, ms: float = 0.0, **details: Any
    ) -> StageRecord:
        """Record a stage that did not run (or fell back to doing little), and why."""
        return self._add(StageRecord(name, ms, count, True, reason, details))

    def _add(self, stage: StageRecord) -> StageRecord:
        self.stages = [s for s in self.stages if s.name != stage.name]
        self.stages.append(stage)
        return stage

    def timed_out(self, name: str, limit_ms: float) -> None:
        """Record that stage ``name`` was cut short at ``limit_ms`` (it contributed nothing)."""
        self.timeouts[name] = round(limit_ms, 2)

    def stage(self, name: str) -> StageRecord | None:
        """The record of stage ``name``, if it was recorded."""
        return next((s for s in self.stages if s.name == name), None)

    def found(
        self, kind: ResultKind, stage: str, items: Iterable[tuple[str, Iterable[str]]]
    ) -> None:
        """Record that ``stage`` produced these ``(id, found_by)`` results."""
        self.findings.extend(Finding(kind, i, stage, tuple(by)) for i, by in items)

    def findings_of(self, kind: ResultKind) -> dict[str, Finding]:
        """The findings of one kind of result, by result id."""
        return {f.id: f for f in self.findings if f.kind == kind}

    def debug(self) -> dict[str, dict[str, Any]]:
        """The stages as a plain dict: stage name → ``{"ms", "count", ...figures}``.

        A stage that did not run has ``"skipped": True`` and a ``"reason"``; the searches
        that failed are listed under ``"errors"`` and the stages cut short by their time
        limit under ``"timeouts"`` (stage → limit in ms), just before ``"total"``.
        """
        out: dict[str, dict[str, Any]] = {}
        for stage in self.stages:
            if stage.name == "total":
                self._problems(out)
            out[stage.name] = stage.as_dict()
        self._problems(out)
        return out

    def _problems(self, out: dict[str, dict[str, Any]]) -> None:
        if self.errors and "errors" not in out:
            out["errors"] = self._errors()
        if self.timeouts and "timeouts" not in out:
            out["timeouts"] = {
                "ms": 0.0,
                "count": len(self.timeouts),
                "skipped": True,
                **self.timeouts,
            }

    def _errors(self) -> dict[str, Any]:
        return {"ms": 0.0, "count": len(self.errors), "skipped": True, **self.errors}


async def no_hits() -> list[Scored]:
    """The result of a search that does not run in this preset."""
    return []


async def guarded(
    search: Awaitable[list[Scored]], name: str, errors: dict[str, str]
) -> list[Scored]:
    """Await a ranked search; on failure log it, record it in ``errors`` and return ``[]``.

    One failing ranking (e.g. a full-text index rejecting odd input) must not break a
    retrieval that other rankings can still serve.
    """
    try:
        return await search
    except Exception as exc:  # any backend error degrades this one ranking
        log.warning("retrieval search %s failed: %s", name, exc)
        errors[name] = f"{type(exc).__name__}: {exc}"
        return []

"""Jobs: documents ingested (or extracted again by a backfill) in the background, their
progress kept as events.

A job's events (``start``, ``progress``, ``finish`` per stage, then ``done`` with the
report or ``failed`` with a problem) are kept in order, so that a client that subscribes
late sees them all. At most ``limit`` jobs run at once; one more is refused with 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from loregraph import (
    AsyncGraph,
    DocumentFailure,
    LoregraphError,
    Principal,
    Progress,
    SkippedInput,
    SourceDocument,
)
from loregraph.server.problems import Problem, problem_of

KEPT_JOBS = 1_000
"""Finished jobs remembered (the oldest are forgotten first)."""
PROGRESS_STEPS = 100
"""Progress events per stage at most (one per percent of its total)."""

JobState = Literal["running", "done", "failed"]
JobKind = Literal["ingest", "backfill"]


def _now() -> datetime:
    return datetime.now(UTC)


class JobReport(Protocol):
    """What a job's work returns: an ingest's or a backfill's report."""

    @property
    def ok(self) -> bool:
        """True when no document failed."""
        ...

    @property
    def failed(self) -> list[DocumentFailure]:
        """The documents that failed, with the reason."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON."""
        ...


Work = Callable[[AsyncGraph, Progress], Awaitable[JobReport]]
"""An ingest (or a backfill) to run as a job, given the job's progress sink."""


@dataclass(slots=True)
class Event:
    """One thing a job reports: its ``kind`` and JSON ``data``."""

    kind: str
    data: dict[str, Any]


@dataclass(slots=True)
class Job:
    """An ingest running or finished in the background."""

    id: str
    scope: str
    owner: str
    documents: int | None
    kind: JobKind = "ingest"
    status: JobState = "running"
    created_at: datetime = field(default_factory=_now)
    finished_at: datetime | None = None
    report: JobReport | None = None
    error: str | None = None
    events: list[Event] = field(default_factory=list)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        """Keep an event and wake the subscribers (on the event loop's thread)."""
        self.events.append(Event(kind, data))
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    def to_dict(self) -> dict[str, Any]:
        """The job as JSON (``events``: the path of its event stream)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "scope": self.scope,
            "status": self.status,
            "created_at": self.created_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "documents": self.documents,
            "report": self.report.to_dict() if self.report else None,
            "error": self.error,
            "events": f"/jobs/{self.id}/events",
        }

    async def follow(self) -> AsyncIterator[Event]:
        """Every event from the first, waiting for new ones until the job ends."""
        seen = 0
        while True:
            while seen < len(self.events):
                seen += 1
                yield self.events[seen - 1]
            if self.status != "running":
                return
            wake = self._wake
            if seen == len(self.events):
                await wake.wait()


class JobProgress:
    """The engine's progress sink for a job: stage events, at most one per percent.

    The ingest pipeline reports from the event loop's thread (its worker threads do not
    report), so events are kept as they come.
    """

    def __init__(self, job: Job) -> None:
        self.job = job
        self.done: dict[str, int] = {}
        self.total: dict[str, int | None] = {}
        self.shown: dict[str, int] = {}

    def start(self, stage: str, total: int | None) -> None:
        """A stage begins."""
        self.done[stage], self.total[stage], self.shown[stage] = 0, total, -1
        self.job.emit("start", {"stage": stage, "total": total})

    def advance(self, stage: str, amount: int = 1) -> None:
        """``amount`` more units of ``stage`` are done."""
        done = self.done[stage] = self.done.get(stage, 0) + amount
        total = self.total.get(stage)
        step = done * PROGRESS_STEPS // total if total else done
        if step != self.shown.get(stage):
            self.shown[stage] = step
            self.job.emit("progress", {"stage": stage, "done": done, "total": total})

    def finish(self, stage: str) -> None:
        """A stage is over."""
        self.job.emit("finish", {"stage": stage, "done": self.done.get(stage, 0)})


def too_many(limit: int) -> Problem:
    """429 when ``limit`` jobs already run."""
    return Problem(
        429,
        "too-many-jobs",
        "Too many ingest jobs",
        f"{limit} ingest job(s) are running; try again when one has finished",
        headers={"Retry-After": "5"},
    )


class Jobs:
    """The server's ingest jobs."""

    def __init__(self, graph: AsyncGraph, limit: int) -> None:
        self.graph = graph
        self.limit = limit
        self.jobs: dict[str, Job] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def running(self) -> int:
        """Jobs not yet finished."""
        return sum(1 for job in self.jobs.values() if job.status == "running")

    def start(
        self,
        principal: Principal,
        scope: str,
        documents: Sequence[SourceDocument],
        skipped: Sequence[SkippedInput] = (),
    ) -> Job:
        """Start ingesting ``documents`` into ``scope``; 429 when ``limit`` jobs run. The
        inputs ``skipped`` while reading them are reported: a ``skipped`` event each, and
        in the report's ``skipped_inputs``."""

        async def work(graph: AsyncGraph, progress: Progress) -> JobReport:
            report = await graph.ingest_documents(documents, scope=scope, progress=progress)
            report.skipped_inputs = [*skipped, *report.skipped_inputs]
            return report

        job = self.start_work(principal, scope, work, len(documents))
        for passed_over in skipped:
            job.emit("skipped", {"where": passed_over.where, "why": passed_over.why})
        return job

    def start_work(
        self,
        principal: Principal,
        scope: str,
        work: Work,
        documents: int | None,
        kind: JobKind = "ingest",
    ) -> Job:
        """Start ``work`` (an ingest into ``scope``, or a backfill of it, reporting to the
        progress it is given) as a job of ``documents`` documents (``None``: not known
        before reading)."""
        if self.running() >= self.limit:
            raise too_many(self.limit)
        job = Job(secrets.token_hex(8), scope, principal.name, documents, kind)
        self.jobs[job.id] = job
        self._forget_old()
        task = asyncio.get_running_loop().create_task(self._run(job, principal, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _run(self, job: Job, principal: Principal, work: Work) -> None:
        try:
            report = await work(self.graph.acting_as(principal), JobProgress(job))
        except Exception as exc:  # the job reports it; the server goes on
            problem = (
                problem_of(exc)
                if isinstance(exc, LoregraphError)
                else Problem(
                    500, "internal-error", f"{job.kind.title()} failed", type(exc).__name__
                )
            )
            job.status, job.error, job.finished_at = "failed", problem.detail, _now()
            job.emit("failed", problem.body())
            return
        job.report, job.finished_at = report, _now()
        job.status = "done" if report.ok else "failed"
        if not report.ok:
            job.error = "; ".join(f"{f.source}: {f.error}" for f in report.failed)
        job.emit("done", {"job": job.id, "report": report.to_dict()})

    def _forget_old(self) -> None:
        finished = [j for j in self.jobs.values() if j.status != "running"]
        for job in finished[: max(0, len(self.jobs) - KEPT_JOBS)]:
            del self.jobs[job.id]

    async def aclose(self) -> None:
        """Cancel the jobs still running and wait for them."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

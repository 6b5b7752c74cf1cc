"""Progress for the CLI: rich bars when stderr is a terminal, plain lines otherwise.

With an LLM, :meth:`RichProgress.watch` adds one line per LLM stage showing its calls,
cache hits, retries, repairs and tokens as they happen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:
    from loregraph import StageUsage, UsageTracker

LABELS = {"documents": "documents", "embed": "embedding chunks", "extract": "extracting"}


class RichProgress:
    """A :class:`loregraph.ingest.progress.Progress` sink drawing rich bars on stderr."""

    def __init__(self, console: Console) -> None:
        self._bars = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
            console=console,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}
        self._llm_tasks: dict[str, TaskID] = {}
        self._lock = threading.Lock()
        self._usage: UsageTracker | None = None

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._usage is not None:
            self._usage.unsubscribe(self._on_usage)
            self._usage = None
        for task in self._llm_tasks.values():
            self._bars.update(task, total=self._bars.tasks[task].completed)
        self._bars.stop()

    def watch(self, usage: UsageTracker) -> None:
        """Show the LLM calls and tokens of every stage live (until the display stops)."""
        self._usage = usage
        usage.subscribe(self._on_usage)

    def _on_usage(self, stage: str, counts: StageUsage) -> None:
        parts = [f"{counts.cached} cached"]
        for value, label in (
            (counts.retries, "retried"),
            (counts.repairs, "repaired"),
            (counts.corrections, "corrected"),
            (counts.failures, "failed"),
        ):
            if value:
                parts.append(f"{value} {label}")
        parts.append(f"{counts.tokens:,} tokens")
        detail = ", ".join(parts)
        done = counts.calls + counts.cached
        with self._lock:
            task = self._llm_tasks.get(stage)
            if task is None:
                self._llm_tasks[stage] = self._bars.add_task(
                    f"LLM {stage}", total=None, completed=done, detail=detail
                )
                return
        self._bars.update(task, completed=done, detail=detail)

    def start(self, stage: str, total: int | None) -> None:
        """Show (or reset) the bar of a stage."""
        label = LABELS.get(stage, stage)
        task = self._tasks.get(stage)
        if task is None:
            self._tasks[stage] = self._bars.add_task(label, total=total, detail="")
        else:
            self._bars.reset(task, total=total, description=label)

    def advance(self, stage: str, amount: int = 1) -> None:
        """Move a stage's bar on."""
        task = self._tasks.get(stage)
        if task is not None:
            self._bars.advance(task, amount)

    def finish(self, stage: str) -> None:
        """Mark a stage complete."""
        task = self._tasks.get(stage)
        if task is not None:
            total = self._bars.tasks[task].total
            completed = self._bars.tasks[task].completed
            self._bars.update(task, total=total if total is not None else completed)


PLAIN_INTERVAL = 5.0
"""Seconds between two plain progress lines (at most)."""


class PlainProgress:
    """Progress as plain lines on a stream (stderr under ``make``, in a pipe or in CI logs).

    A line is written at most every ``interval`` seconds while work goes on, and once when
    the documents are done: what is being done, the documents finished, the chunks embedded,
    the rate and, where the total is known, the time left. ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._interval = interval
        self._clock = clock
        self._started = clock()
        self._last = self._started
        self._done: dict[str, int] = {}
        self._totals: dict[str, int | None] = {}
        self._stage_started: dict[str, float] = {}
        self._active: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def __enter__(self) -> PlainProgress:
        """Start the heartbeat: a line every ``interval`` even while one step runs long."""
        self._beat = threading.Thread(target=self._heartbeat, name="progress", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=1.0)

    def _heartbeat(self) -> None:
        while not self._stop.wait(self._interval / 2):
            with self._lock:
                self._maybe_write()

    def start(self, stage: str, total: int | None) -> None:
        """A stage begins (its count restarts)."""
        with self._lock:
            self._done[stage] = 0
            self._totals[stage] = total
            self._stage_started[stage] = self._clock()
            self._active = stage
            self._maybe_write()

    def advance(self, stage: str, amount: int = 1) -> None:
        """``amount`` more units of a stage are done."""
        with self._lock:
            self._done[stage] = self._done.get(stage, 0) + amount
            self._maybe_write()

    def finish(self, stage: str) -> None:
        """A stage is over (the report that follows says how it ended)."""
        with self._lock:
            if self._active == stage:
                self._active = "documents" if stage != "documents" else None

    def _maybe_write(self) -> None:
        if self._clock() - self._last >= self._interval:
            self._write()

    def _write(self) -> None:
        now = self._clock()
        self._last = now
        parts = [f"[{_clock_text(now - self._started)}]"]
        parts.append(f"{self._done.get('documents', 0)} documents done")
        stage = self._active
        if stage is not None and stage != "documents":
            done, total = self._done.get(stage, 0), self._totals.get(stage)
            label = LABELS.get(stage, stage)
            elapsed = max(now - self._stage_started.get(stage, now), 1e-9)
            rate = done / elapsed
            text = f"{label} {done}/{total}" if total else f"{label} {done}"
            if done:
                text += f" ({rate:.1f}/s"
                if total and rate > 0:
                    text += f", ~{_clock_text((total - done) / rate)} left"
                text += ")"
            parts.append(text)
        self._stream.write("ingest " + " · ".join(parts) + "\n")
        self._stream.flush()


def _clock_text(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"

"""Progress bars for the terminal (rich), used by the CLI when stderr is a terminal.

With an LLM, :meth:`RichProgress.watch` adds one line per LLM stage showing its calls,
cache hits, retries, repairs and tokens as they happen.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING

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
    from loregraph.llm.usage import StageUsage, UsageTracker

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

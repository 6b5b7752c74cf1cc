"""Progress bars for the terminal (rich), used by the CLI when stderr is a terminal."""

from __future__ import annotations

from types import TracebackType

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
            console=console,
            transient=False,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> RichProgress:
        self._bars.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._bars.stop()

    def start(self, stage: str, total: int | None) -> None:
        """Show (or reset) the bar of a stage."""
        label = LABELS.get(stage, stage)
        task = self._tasks.get(stage)
        if task is None:
            self._tasks[stage] = self._bars.add_task(label, total=total)
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

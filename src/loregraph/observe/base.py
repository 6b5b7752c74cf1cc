"""The observer protocol and a fan-out to several observers."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from loregraph.ingest.report import IngestReport
from loregraph.retrieve.results.result import RetrievalResult

log = logging.getLogger("loregraph.observe")
R = TypeVar("R", bound=IngestReport)


@runtime_checkable
class Observer(Protocol):
    """Hears about the engine's work; must be quick and never raise into the engine."""

    def retrieved(self, result: RetrievalResult) -> None:
        """A retrieval finished (for ``ask``, ``context``, ``search`` or ``retrieve``)."""

    def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
        """An ingest (or a ``remember``) finished; wall-clock nanoseconds since the epoch."""


class Observers:
    """Several observers as one; an observer that raises is logged and the others go on."""

    def __init__(self, observers: Sequence[Observer] = ()) -> None:
        self.observers = list(observers)

    def __bool__(self) -> bool:
        return bool(self.observers)

    def retrieved(self, result: RetrievalResult) -> None:
        """Tell every observer about a retrieval."""
        for observer in self.observers:
            try:
                observer.retrieved(result)
            except Exception:  # an observer must not break the query it observes
                log.exception("observer %r failed on a retrieval", observer)

    def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
        """Tell every observer about an ingest."""
        for observer in self.observers:
            try:
                observer.ingested(report, started_ns, ended_ns)
            except Exception:  # an observer must not break the ingest it observes
                log.exception("observer %r failed on an ingest", observer)


async def observed(observers: Observers, ingest: Awaitable[R]) -> R:
    """Await an ingest and tell the observers about its report (when there are any)."""
    if not observers:
        return await ingest
    started = time.time_ns()
    report = await ingest
    observers.ingested(report, started, time.time_ns())
    return report

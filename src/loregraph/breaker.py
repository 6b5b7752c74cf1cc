"""A circuit breaker: after a run of failures, stop calling a service for a while.

Closed, every call goes through; ``failure_threshold`` consecutive failures (default 3)
open it, and while open no call is attempted; ``reset_after`` seconds later (default 30) it
is half-open: one trial call goes through, whose success closes it and whose failure opens
it again. The clock is injected, so tests never wait. The LLM client
(:mod:`loregraph.llm.resilience`) and retrieval's graph layer
(:mod:`loregraph.retrieve.search.resilience`) each keep one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Literal

from loregraph.errors import LoregraphError

Clock = Callable[[], float]
BreakerState = Literal["closed", "open", "half_open"]


class CircuitOpenError(LoregraphError):
    """A circuit breaker is open: recent calls kept failing, so none is attempted."""


class CircuitBreaker:
    """A circuit breaker: closed → open after N consecutive failures → half-open after a
    cool-down → closed on one success (or open again on failure).

    ``name`` says what it guards in its message; while it is open, :meth:`before_call`
    raises the class's ``error`` (:class:`CircuitOpenError`; the LLM's breaker raises its
    own).
    """

    error: ClassVar[type[Exception]] = CircuitOpenError

    def __init__(
        self,
        failure_threshold: int = 3,
        reset_after: float = 30.0,
        *,
        clock: Clock = time.monotonic,
        name: str = "LLM",
    ) -> None:
        self.name = name
        self.failure_threshold = failure_threshold
        self.reset_after = reset_after
        self.clock = clock
        self.failures = 0
        self.opened_at: float | None = None
        self.last_error = ""
        self._trial = False

    @property
    def state(self) -> BreakerState:
        """``closed``, ``open`` or ``half_open`` (cool-down over, trial allowed)."""
        if self.opened_at is None:
            return "closed"
        if self.clock() - self.opened_at >= self.reset_after:
            return "half_open"
        return "open"

    def before_call(self) -> None:
        """Raise the class's ``error`` unless a call may be attempted now (half-open: the
        first caller is the trial; the others wait for its outcome)."""
        state = self.state
        if state == "closed":
            return
        if state == "half_open" and not self._trial:
            self._trial = True
            return
        wait = max(0.0, self.reset_after - (self.clock() - (self.opened_at or 0.0)))
        raise self.error(
            f"the {self.name} circuit breaker is open after {self.failures} consecutive failures "
            f"(last: {self.last_error or 'unknown'}); next attempt in {wait:.0f} s"
        )

    def record_success(self) -> None:
        """A call succeeded: close the breaker."""
        self.failures = 0
        self.opened_at = None
        self._trial = False

    def release(self) -> None:
        """A call let through ended with no outcome (it was cancelled): while half-open,
        the next call may be the trial instead."""
        self._trial = False

    def record_failure(self, error: str = "") -> None:
        """A call failed: count it; open (or re-open) the breaker at the threshold."""
        self.failures += 1
        self.last_error = error or self.last_error
        if self._trial or self.failures >= self.failure_threshold:
            self.opened_at = self.clock()
        self._trial = False

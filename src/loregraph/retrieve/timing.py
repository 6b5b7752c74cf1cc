"""Stage timing for the ``debug`` metadata, and searches that degrade instead of failing."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from loregraph.models import Scored

log = logging.getLogger("loregraph.retrieve")

T = TypeVar("T")


class Stopwatch:
    """Milliseconds since creation (monotonic clock)."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def ms(self) -> float:
        """Elapsed milliseconds, rounded to 0.01."""
        return round((time.perf_counter() - self._start) * 1000.0, 2)


async def guarded(
    search: Awaitable[list[Scored]], name: str, errors: dict[str, str]
) -> list[Scored]:
    """Await a ranked search; on failure log it, record it in ``errors`` and return ``[]``.

    One failing ranking (e.g. a full-text index rejecting odd input) must not break a
    retrieval that other rankings can still serve (seed 004's search resilience).
    """
    try:
        return await search
    except Exception as exc:  # any backend error degrades this one ranking
        log.warning("retrieval search %s failed: %s", name, exc)
        errors[name] = f"{type(exc).__name__}: {exc}"
        return []


def stage(ms: float, count: int, **extra: Any) -> dict[str, Any]:
    """A debug record for one stage."""
    return {"ms": ms, "count": count, **extra}


def skipped(reason: str) -> dict[str, Any]:
    """A debug record for a stage that did not run."""
    return {"ms": 0.0, "count": 0, "skipped": True, "reason": reason}

"""Dates on the command line: ISO 8601 dates and times, read as timezone-aware times.

``2026-01-15`` is the start of that day in UTC (or its end, for an option that closes a
range such as ``--until``); ``2026-01-15T09:30`` is UTC; ``2026-01-15T09:30+02:00`` keeps
its offset. An option also takes a phrase such as "yesterday", "last week" or "March 3,
2025" (read relative to now, :func:`loregraph.text.dates.read_time`). Anything else is
refused with a message naming the value; a memory's ``--at`` is only reported
(:func:`memory_time`): the memory keeps the time it is remembered at.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

import click

from loregraph.models import aware
from loregraph.text.dates import read_time

FORMATS_HINT = "use an ISO 8601 date or time such as 2026-01-15 or 2026-01-15T09:30"


def parse_time(text: str, *, end_of_day: bool = False) -> datetime:
    """``text`` as a timezone-aware time (see the module docstring).

    Raises :class:`ValueError` with a message naming ``text`` when it is no ISO date or time.
    """
    value = text.strip()
    try:
        if len(value) == 10:  # a date alone: YYYY-MM-DD
            day = date.fromisoformat(value)
            return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"cannot read {text!r} as a date: {FORMATS_HINT}") from None
    return aware(moment)


def any_time(text: str, *, end_of_day: bool = False) -> datetime:
    """``text`` as an ISO date or time (:func:`parse_time`) or a phrase such as "last week"
    (:func:`~loregraph.text.dates.read_time`); :class:`ValueError` naming it otherwise."""
    try:
        return parse_time(text, end_of_day=end_of_day)
    except ValueError:
        found = read_time(text)
        if found is None:
            raise
        return found


def memory_time(text: str | None, where: str = "") -> datetime | None:
    """When a memory happened, from its ``--at`` (or a record's ``at``): ``None`` (now) for
    no value, and for one that is no date after saying so on stderr (the memory is kept)."""
    if text is None:
        return None
    try:
        return any_time(text)
    except ValueError as exc:
        click.echo(
            f"warning: {where}{exc}; the memory keeps the time it is remembered at", err=True
        )
        return None


class TimeParam(click.ParamType[datetime, Any]):
    """A click parameter holding an ISO 8601 date or time (see :func:`parse_time`)."""

    name = "date"

    def __init__(self, *, end_of_day: bool = False) -> None:
        self.end_of_day = end_of_day

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            return any_time(str(value), end_of_day=self.end_of_day)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)

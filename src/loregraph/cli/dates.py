"""Dates on the command line, read as every face reads them
(:func:`loregraph.text.dates.user_time`): ISO 8601 dates and times, or a phrase such as
"yesterday", "last week" or "March 3, 2025". ``2026-01-15`` is the start of that day in UTC
(or its end, for an option that closes a range such as ``--until``). Anything else is
refused with a message naming the value; a memory's ``--at`` is only reported
(:func:`memory_time`): the memory keeps the time it is remembered at.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from loregraph import user_time


def memory_time(text: str | None, where: str = "") -> datetime | None:
    """When a memory happened, from its ``--at`` (or a record's ``at``): ``None`` (now) for
    no value, and for one that is no date after saying so on stderr (the memory is kept)."""
    if text is None:
        return None
    try:
        return user_time(text)
    except ValueError as exc:
        click.echo(
            f"warning: {where}{exc}; the memory keeps the time it is remembered at", err=True
        )
        return None


class TimeParam(click.ParamType[datetime, Any]):
    """A click parameter holding a date or time (see
    :func:`~loregraph.text.dates.user_time`)."""

    name = "date"

    def __init__(self, *, end_of_day: bool = False) -> None:
        self.end_of_day = end_of_day

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            return user_time(str(value), end_of_day=self.end_of_day)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)

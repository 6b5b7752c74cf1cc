"""Dates written in text: "in March 2025", "on 5 May", "last week", "3 days ago".

:func:`date_in` finds the first date a sentence gives, read relative to a base time (a
memory's time: "last week" in a memory of 10 February 2026 is 3 February 2026); when a
date leaves out the day or the year, the first day of the month and the latest year not
after the base time are taken. Candidate phrases are found by a pattern first (month names
need a day or a year beside them, so "May I …" is no date) and only those are handed to
``dateparser``; a sentence without one costs a regular-expression search.

:func:`user_time` reads a time a user gives (the CLI's options, the HTTP API's fields, the
MCP tools' arguments): ISO 8601, else a phrase such as "yesterday", "last month" or
"March 3, 2025" relative to now; anything else is a :class:`ValueError` naming the value and
the accepted forms (:data:`FORMATS_HINT`). :func:`read_time` is the same, ``None`` when it
is no date.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, date, datetime, time
from functools import lru_cache
from typing import Any

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_UNIT = r"(?:days?|weeks?|months?|years?)"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_CANDIDATES = re.compile(
    r"\b(?:"
    rf"{_DAY}\s+{_MONTH}(?:,?\s+\d{{4}})?"  # 5 May, 5 May 2025
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+\d{{4}})?(?!\d)"  # May 5, May 5, 2025
    rf"|{_MONTH}\s+\d{{4}}"  # March 2025
    r"|\d{4}-\d{2}-\d{2}"  # 2025-03-05
    rf"|(?:last|next|this)\s+(?:{_UNIT}|{_WEEKDAY})"  # last week, next Monday
    rf"|(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+{_UNIT}\s+ago"
    r"|yesterday|today"
    r"|(?:in|since|during)\s+\d{4}"  # in 2019
    r")\b",
    re.IGNORECASE,
)
_AGO_WORDS = {
    "a": "1", "an": "1", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
_LEADING = re.compile(r"^(?:in|since|during)\s+", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"^{_MONTH}\s+\d{{4}}$", re.IGNORECASE)


def _parser_settings(base: datetime) -> dict[str, Any]:
    return {
        "RELATIVE_BASE": base.astimezone(UTC).replace(tzinfo=None),
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "TIMEZONE": "UTC",
    }


@lru_cache(maxsize=4096)
def _parse(phrase: str, base: datetime) -> datetime | None:
    if phrase.isdigit() and len(phrase) == 4:
        return datetime(int(phrase), 1, 1, tzinfo=UTC)  # a year alone: its first day
    import dateparser  # imported on first use: it takes a moment to load

    found = dateparser.parse(phrase, languages=["en"], settings=_parser_settings(base))
    return None if found is None else found.replace(tzinfo=UTC)


def _phrase(match: str) -> str:
    words = _LEADING.sub("", match.strip()).split()
    if len(words) == 3 and words[-1].lower() == "ago":
        words[0] = _AGO_WORDS.get(words[0].lower(), words[0])
    phrase = " ".join(words)
    return f"1 {phrase}" if _MONTH_YEAR.match(phrase) else phrase  # a month: its first day


def date_in(sentence: str, base: datetime) -> datetime | None:
    """The first date ``sentence`` gives, read relative to ``base`` (see the module notes);
    a date alone is the start of that day, UTC."""
    for match in _CANDIDATES.finditer(sentence):
        found = _parse(_phrase(match.group(0)), base)
        if found is not None:
            return datetime.combine(found.date(), time.min, tzinfo=UTC)
    return None


FORMATS_HINT = (
    "use an ISO 8601 date or time such as 2026-01-15 or 2026-01-15T09:30 (UTC unless an "
    "offset is given), or a phrase such as 'yesterday', 'last month' or 'March 3, 2025'"
)
"""The forms a time given by a user may take, for the messages refusing one."""
MAX_PHRASE_CHARS = 100
"""The longest phrase read as a time (a longer text is no date)."""


def iso_time(text: str, *, end_of_day: bool = False) -> datetime:
    """``text`` as an ISO 8601 date or time: ``2026-01-15`` is the start of that day in
    UTC (its end with ``end_of_day``, for a value closing a range such as ``until``),
    ``2026-01-15T09:30`` is UTC, ``2026-01-15T09:30+02:00`` keeps its offset.

    Raises :class:`ValueError` naming ``text`` for anything else."""
    value = text.strip()
    try:
        if len(value) == 10:  # a date alone: YYYY-MM-DD
            day = date.fromisoformat(value)
            return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"cannot read {text!r} as a date: {FORMATS_HINT}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def user_time(text: str, *, end_of_day: bool = False, now: datetime | None = None) -> datetime:
    """A time a user gave (an option, a request field, a tool argument): ISO 8601
    (:func:`iso_time`), else a phrase such as "yesterday", "last month" or "March 3, 2025"
    read relative to ``now``. Every face reads times by this.

    Raises :class:`ValueError` naming ``text`` and the accepted forms for anything else."""
    try:
        return iso_time(text, end_of_day=end_of_day)
    except ValueError:
        phrase = text.strip()
        found = None
        if phrase and len(phrase) <= MAX_PHRASE_CHARS and _plain(phrase):
            try:
                found = _parse(phrase, now or datetime.now(UTC))
            except (ValueError, OverflowError):  # the date library gives up on it
                found = None
        if found is None:
            raise
        return found


def _plain(phrase: str) -> bool:
    """Whether a phrase holds only what a written date may: letters, digits, spaces and
    punctuation (the date library reads a day into "9®…", so symbols and control
    characters make the phrase no date)."""
    return not any(unicodedata.category(ch)[0] in "SC" and ch != "+" for ch in phrase)


def read_time(text: str, now: datetime | None = None) -> datetime | None:
    """:func:`user_time` (the start of a day given alone), or ``None`` when ``text`` is no
    date."""
    try:
        return user_time(text, now=now)
    except ValueError:
        return None

"""Dates read from text, relative to a memory's time, and times a user writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from loregraph.text.dates import date_in, iso_time, read_time, user_time

BASE = datetime(2026, 2, 10, 15, 30, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Alice moved to Berlin in March 2025.", day(2025, 3, 1)),
        ("Last week the API server switched to Hono.", day(2026, 2, 3)),
        ("Two days ago Bob joined Acme.", day(2026, 2, 8)),
        ("Jonathan Harker met the Count on 5 May.", day(2025, 5, 5)),
        ("On May 5, 2024 Bob joined Acme.", day(2024, 5, 5)),
        ("Bob joined Acme on 2024-05-05.", day(2024, 5, 5)),
        ("He has lived in Paris since 2019.", day(2019, 1, 1)),
        ("Yesterday Carol left Acme.", day(2026, 2, 9)),
        ("The API server depends on Express.", None),
        ("May I go now?", None),
        ("She works for Acme.", None),
    ],
)
def test_the_first_date_a_sentence_gives(sentence: str, expected: datetime | None) -> None:
    assert date_in(sentence, BASE) == expected


def test_a_time_a_user_writes() -> None:
    assert read_time("2026-01-15") == day(2026, 1, 15)
    assert read_time("2026-01-15T09:30") == datetime(2026, 1, 15, 9, 30, tzinfo=UTC)
    assert read_time("March 3, 2025", BASE) == day(2025, 3, 3)
    found = read_time("yesterday", BASE)
    assert found is not None and found.date() == day(2026, 2, 9).date()
    assert read_time("yesterdayish", BASE) is None
    assert read_time("2026-13-40") is None
    assert read_time("  ") is None


def test_iso_time_reads_iso_dates_and_times() -> None:
    assert iso_time("2026-01-15").isoformat() == "2026-01-15T00:00:00+00:00"
    assert iso_time("2026-01-15", end_of_day=True).isoformat().startswith("2026-01-15T23:59:59")
    assert iso_time("2026-01-15T09:30").isoformat() == "2026-01-15T09:30:00+00:00"
    assert iso_time("2026-01-15T09:30+02:00").isoformat() == "2026-01-15T09:30:00+02:00"
    assert iso_time("2026-01-15T09:30:00Z").isoformat() == "2026-01-15T09:30:00+00:00"
    for bad in ("", "15/01/2026", "tomorrow", "2026-02-30"):
        with pytest.raises(ValueError, match="cannot read"):
            iso_time(bad)


def test_user_time_reads_what_every_face_takes_and_names_the_forms_otherwise() -> None:
    assert user_time("2026-01-15", end_of_day=True).isoformat().startswith("2026-01-15T23:59:59")
    assert user_time("last month", now=BASE).date() == datetime(2026, 1, 10).date()
    assert user_time("yesterday", now=BASE).date() == datetime(2026, 2, 9).date()
    with pytest.raises(ValueError, match="cannot read 'whenever' as a date") as refused:
        user_time("whenever")
    assert "ISO 8601" in str(refused.value) and "last month" in str(refused.value)


def test_a_phrase_with_symbols_or_control_characters_is_no_date() -> None:
    for text in ("9®+\x99'ã ", "3 ★ days ago", "yesterday\x00"):
        with pytest.raises(ValueError, match="cannot read"):
            user_time(text)

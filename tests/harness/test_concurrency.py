"""4 writer and 8 reader processes on one store at once (bounded here; ``make bench`` runs
them for 60 s): no errors, no entity twice, every written document present."""

from __future__ import annotations

from pathlib import Path

import pytest

from .concurrency import ConcurrencyReport, run_concurrency

pytestmark = pytest.mark.slow


def _assert_clean(report: ConcurrencyReport) -> None:
    text = str(report.as_dict())
    assert report.errors == 0, text
    assert report.documents_written > 0 and report.read_ops > 0, text
    assert report.documents_missing == 0, text
    assert report.duplicate_entities == 0, text
    assert report.duplicate_documents == 0, text
    assert report.duplicate_chunks == 0, text
    assert report.duplicate_relations == 0, text


def test_writers_and_readers_share_one_sqlite_file(tmp_path: Path) -> None:
    report = run_concurrency("sqlite", str(tmp_path / "shared.db"), tmp_path, seconds=8)
    _assert_clean(report)


def test_writers_and_readers_share_one_postgresql_schema(
    tmp_path: Path, harness_pg_url: str
) -> None:
    location = f"{harness_pg_url}&schema=concurrency_test"
    report = run_concurrency("postgres", location, tmp_path, seconds=6)
    _assert_clean(report)

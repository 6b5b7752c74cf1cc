"""Ingests killed with SIGKILL at random points and run again lose nothing, duplicate nothing
and end with the export of an uninterrupted run (bounded here; ``make bench`` kills more)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .corpora import write_corpus
from .crash import CrashReport, CrashScenario
from .stores import PostgresBackend, SqliteBackend

pytestmark = pytest.mark.slow


def _assert_nothing_lost(report: CrashReport) -> None:
    text = str(report.as_dict())
    assert report.kills == report.kills_wanted, text
    assert report.documents_lost == 0, text
    assert report.partial_documents == 0, text
    assert report.documents_duplicated == 0, text
    assert report.chunks_duplicated == 0, text
    assert report.entities_duplicated == 0, text
    assert report.relations_duplicated == 0, text
    assert report.export_mismatches == 0, text
    assert report.failed_runs == 0, text
    assert report.exports_compared >= 1, text
    assert report.problems == [], text


def test_sqlite_records_survive_twenty_kills(tmp_path: Path) -> None:
    """72 records (two ingest batches) into SQLite, killed 20 times."""
    corpus = write_corpus("records", tmp_path, 72)
    scenario = CrashScenario(
        SqliteBackend(tmp_path / "db"), corpus, "records", tmp_path, kills=20, seed=9
    )
    report = scenario.run()
    _assert_nothing_lost(report)
    # the kills landed both before and after documents were committed
    assert min(report.committed_at_kill) == 0
    assert max(report.committed_at_kill) > 0


def test_postgres_folder_survives_kills(tmp_path: Path, harness_pg_url: str) -> None:
    """A folder of 8 text files into PostgreSQL, killed 6 times."""
    corpus = write_corpus("folder", tmp_path, 8)
    scenario = CrashScenario(
        PostgresBackend(harness_pg_url, prefix="crash"),
        corpus,
        "folder",
        tmp_path,
        kills=6,
        seed=9,
    )
    report = scenario.run()
    _assert_nothing_lost(report)

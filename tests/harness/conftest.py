"""Harness fixtures: a PostgreSQL server of its own, and the fuzz-example tally.

``LOREGRAPH_HARNESS_PROFILE`` picks the hypothesis profile of the fuzz tests (``ci`` by
default, ``bench`` for the benchmark's larger counts); ``LOREGRAPH_HARNESS_TALLY`` names a
JSON file that receives the number of generated inputs each fuzz target ran.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .fuzzing import PROFILE, TALLY

PG_BASE = Path(tempfile.gettempdir()) / "loregraph-harness-pg"
"""The harness's own server directory (the store tests run theirs under another one)."""


@pytest.fixture(scope="session")
def harness_pg_url() -> Iterator[str]:
    """The URL of a PostgreSQL server started for the harness (stopped at the end)."""
    pytest.importorskip("psycopg")
    from store.pg_server import start_server

    server = start_server(PG_BASE)
    try:
        yield server.url
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many generated inputs the fuzz targets ran (and save them if asked)."""
    if not TALLY:
        return
    total = sum(TALLY.values())
    parts = ", ".join(f"{name} {count:,}" for name, count in sorted(TALLY.items()))
    terminalreporter.write_line(
        f"harness fuzz ({PROFILE} profile): {total:,} generated inputs ({parts})"
    )
    target = os.environ.get("LOREGRAPH_HARNESS_TALLY")
    if target:
        Path(target).write_text(json.dumps(dict(sorted(TALLY.items())), indent=1), "utf-8")

"""A command killed (SIGKILL) while it works on a JSON memory file leaves a whole file: the
one it found, or one it wrote, holding whole documents only; the next command finishes."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from loregraph.cli.app import main

pytestmark = pytest.mark.slow

COMMAND = [sys.executable, "-c", "from loregraph.cli.app import main; main()"]


def documents(path: Path) -> list[str]:
    """The ids of the documents in a memory file (which must be valid JSON)."""
    return sorted(chunk_counts(path))


def chunk_counts(path: Path) -> dict[str, int]:
    """How many chunks each document of a memory file has."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {document["id"]: len(document["chunks"]) for document in data["documents"]}


def ingest(db: Path, corpus: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*COMMAND, "--db", str(db), "ingest", str(corpus), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def remembered(db: Path) -> None:
    result = CliRunner().invoke(main, ["--db", str(db), "remember", "Ada Lovelace wrote notes."])
    assert result.exit_code == 0, result.output


def test_a_killed_ingest_leaves_a_whole_file(tmp_path: Path, records_file: Path) -> None:
    reference = tmp_path / "reference.json"
    remembered(reference)
    memory = documents(reference)
    started = time.monotonic()
    assert ingest(reference, records_file).wait(timeout=300) == 0
    seconds = time.monotonic() - started
    records = set(documents(reference)) - set(memory)
    chunks = chunk_counts(reference)

    rng = random.Random(7)
    kills = 0
    for attempt in range(4):
        db = tmp_path / f"ctx-{attempt}.json"
        remembered(db)
        before = documents(db)
        complete = sorted({*before, *records})
        worker = ingest(db, records_file)
        time.sleep(rng.uniform(0.2, 0.9) * seconds)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        kills += worker.returncode == -signal.SIGKILL
        found = chunk_counts(db)  # valid JSON
        assert set(before) <= set(found) <= set(complete)
        assert all(found[d] == chunks[d] for d in found if d in records)  # whole documents
        assert ingest(db, records_file).wait(timeout=300) == 0
        assert documents(db) == complete
    assert kills >= 2
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

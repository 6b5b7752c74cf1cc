"""A command killed (SIGKILL) while it works on a JSON memory file leaves the file it found,
byte for byte, or the whole file it wrote; the next command finishes the work."""

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
    data = json.loads(path.read_text(encoding="utf-8"))
    return sorted(document["id"] for document in data["documents"])


def ingest(db: Path, corpus: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*COMMAND, "--db", str(db), "ingest", str(corpus), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def remembered(db: Path) -> None:
    result = CliRunner().invoke(main, ["--db", str(db), "remember", "Ada Lovelace wrote notes."])
    assert result.exit_code == 0, result.output


def test_a_killed_ingest_leaves_the_previous_file(tmp_path: Path, records_file: Path) -> None:
    reference = tmp_path / "reference.json"
    remembered(reference)
    memory = documents(reference)
    started = time.monotonic()
    assert ingest(reference, records_file).wait(timeout=300) == 0
    seconds = time.monotonic() - started
    records = set(documents(reference)) - set(memory)

    db = tmp_path / "ctx.json"
    remembered(db)
    before = db.read_bytes()
    complete = sorted({*documents(db), *records})
    rng = random.Random(7)
    kills = 0
    for _ in range(4):
        worker = ingest(db, records_file)
        time.sleep(rng.uniform(0.4, 1.0) * seconds)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        kills += worker.returncode == -signal.SIGKILL
        if db.read_bytes() != before:  # it wrote the file before the kill: the whole new one
            assert documents(db) == complete
            break
    assert kills
    assert ingest(db, records_file).wait(timeout=300) == 0
    assert documents(db) == complete
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

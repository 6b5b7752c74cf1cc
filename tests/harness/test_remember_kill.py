"""A ``remember`` killed with SIGKILL at a random point leaves the store exactly as it was, or
holds the whole memory (the export of an uninterrupted run); never a part of it. Through the
real command line, each command in its own process, with the default offline models."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from .crash import _env, cli, export

pytestmark = pytest.mark.slow

FIRST = "Mina Murray wrote to Lucy Westenra from Whitby about Jonathan Harker."
NEW = (
    "Jonathan Harker travelled from Munich to Bistritz by train, then by coach to the Borgo "
    "Pass, where a calèche sent by Count Dracula met him. At the castle the Count spoke of "
    "his house in London, Carfax, near Purfleet, which Harker had bought for him through "
    "Peter Hawkins of Exeter. Mina Murray, to whom Harker was engaged, stayed with Lucy "
    "Westenra at Whitby that summer, while Dr. John Seward kept his asylum beside Carfax.\n\n"
)
"""A memory of several chunks, so that a part of it would show."""
KILLS = 5


def _run(location: str, *args: str) -> str:
    done = subprocess.run(
        cli(location, *args), capture_output=True, text=True, env=_env(), check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _state(location: str, out: Path) -> dict[str, Any]:
    """The store's export and counts, with what differs between two runs of one command
    replaced: a memory's id and source are random (its content hash names it here), and
    evidence keeps its sentence, not its chunk's id (chunks are counted instead)."""
    data = export(location, out)
    text = json.dumps(data, sort_keys=True)
    for document in data["documents"]:
        named = "doc:" + str(document["content_hash"])[:16]
        text = text.replace(str(document["id"]), named).replace(str(document["source"]), named)
    data = json.loads(text)
    data["documents"].sort(key=lambda d: str(d["id"]))
    for relation in data["relations"]:
        for evidence in relation["evidence"]:
            evidence.pop("chunk_id", None)
    counts = json.loads(_run(location, "stats", "--json"))
    return {"export": data, "counts": counts}


def _remember_args() -> tuple[str, ...]:
    return ("remember", NEW * 6, "--at", "2026-02-01", "--tag", "journey")


def test_a_killed_remember_leaves_the_store_as_before_or_whole(tmp_path: Path) -> None:
    reference = str(tmp_path / "reference.db")
    _run(reference, "remember", FIRST, "--at", "2026-01-01")
    before = _state(reference, tmp_path / "before.json")
    started = time.monotonic()
    _run(reference, *_remember_args())
    seconds = time.monotonic() - started
    after = _state(reference, tmp_path / "after.json")
    assert after != before

    store = str(tmp_path / "killed.db")
    _run(store, "remember", FIRST, "--at", "2026-01-01")
    assert _state(store, tmp_path / "start.json") == before
    rng = random.Random(11)
    outcomes: list[str] = []
    for kill in range(KILLS):
        process = subprocess.Popen(
            cli(store, *_remember_args()),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_env(),
        )
        # from after start-up (imports, models) to the end of an uninterrupted run
        time.sleep(rng.uniform(0.4 * seconds, 1.05 * seconds))
        finished = process.poll() is not None
        process.send_signal(signal.SIGKILL)
        process.wait()
        state = _state(store, tmp_path / f"kill{kill}.json")
        if state == before:
            outcomes.append("before" if not finished else "finished-before?")
            continue
        assert state == after, f"kill {kill}: the store holds a part of the memory"
        outcomes.append("whole")
        memories = json.loads(_run(store, "memories", "--json"))
        new = [m["id"] for m in memories if str(m.get("text", "")).startswith(NEW[:40])]
        assert len(new) == 1, memories
        _run(store, "forget", new[0])
        assert _state(store, tmp_path / f"forgot{kill}.json") == before
    assert "finished-before?" not in outcomes, outcomes
    assert "before" in outcomes, outcomes  # some kills landed before the write

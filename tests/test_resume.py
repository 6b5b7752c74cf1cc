"""An ingest killed mid-way and run again ends with the same graph as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest


def make_corpus(excerpt: Path, target: Path, parts: int = 40) -> None:
    paragraphs = [p.strip() for p in excerpt.read_text(encoding="utf-8").split("\n\n")]
    paragraphs = [" ".join(p.split()) for p in paragraphs if len(p) > 200]
    size = max(1, len(paragraphs) // parts)
    with target.open("w", encoding="utf-8") as out:
        for i in range(parts):
            text = " ".join(paragraphs[i * size : (i + 1) * size])
            if text:
                out.write(json.dumps({"id": f"part-{i}", "title": f"Part {i}", "text": text}))
                out.write("\n")


def cli(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "loregraph.cli", "--db", str(db), *args]


def graph_of(db: Path, tmp: Path) -> dict[str, Any]:
    out = tmp / f"{db.stem}.json"
    subprocess.run(cli(db, "export", str(out)), check=True, capture_output=True)
    data = json.loads(out.read_text(encoding="utf-8"))
    entities = sorted(
        (e["id"], e["name"], e["type"], tuple(sorted(e["aliases"])), e["mention_count"])
        for e in data["entities"]
    )
    relations = sorted(
        (
            r["id"],
            r["source"],
            r["type"],
            r["target"],
            r["weight"],
            tuple(sorted(ev["chunk_id"] for ev in r["evidence"])),
        )
        for r in data["relations"]
    )
    documents = sorted((d["id"], d["content_hash"]) for d in data["documents"])
    return {"entities": entities, "relations": relations, "documents": documents}


def documents_done(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_killed_ingest_resumes_to_the_same_graph(tmp_path: Path, excerpt_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    make_corpus(excerpt_path, corpus)
    total = sum(1 for _ in corpus.open(encoding="utf-8"))

    reference = tmp_path / "reference.db"
    subprocess.run(cli(reference, "ingest", str(corpus)), check=True, capture_output=True)

    killed = tmp_path / "killed.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        cli(killed, "ingest", str(corpus)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if documents_done(killed) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "ingest finished before it could be interrupted"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = documents_done(killed)
    assert 0 < done < total

    resumed = subprocess.run(
        cli(killed, "ingest", str(corpus), "--json"), check=True, capture_output=True, text=True
    )
    report = json.loads(resumed.stdout)
    assert report["skipped"] == done
    assert report["ingested"] == total - done

    assert graph_of(killed, tmp_path) == graph_of(reference, tmp_path)

"""Driver of the peers benchmark: ``python -m bench.peers.run --quick|--full`` (main venv).

For each corpus: record loregraph's offline extractions (cached by corpus and extractor-code
hash), then run loregraph (main venv) and each peer (``.venv-peers``) one after the other,
each in its own subprocess (:mod:`bench.peers.peer_main`), with the same recorded
extractions and the same embedding. Each subprocess reports its own peak RSS (``VmHWM``
while loading, during the ingest, with the queries); the driver measures its wall time,
enforces a time limit, keeps its log, and writes
``bench/results/peers.<mode>.json`` with each system's figures, its status (``ok``, or why
it did not finish: not installed, failed with the error, timed out) and the peer/loregraph
ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import (
    ROOT,
    TMP_DIR,
    command_line,
    log,
)
from bench.peers.corpus import save_corpus, slim_path
from bench.peers.datasets import CORPORA
from bench.peers.embedding import NAME as EMBEDDING_NAME
from bench.peers.record import record_extractions
from bench.peers.report import ratios, summary_lines

PEERS_PYTHON = ROOT / ".venv-peers" / "bin" / "python"
SYSTEMS = (
    "loregraph",
    "loregraph-peer-chunks",
    "lightrag",
    "nano-graphrag",
    "lightrag-kept",
    "nano-graphrag-kept",
)
PEER_CHUNKS = "-peer-chunks"
PEER_CHUNKING = "tokens:1200:100"
"""``loregraph-peer-chunks``: loregraph cutting documents as the peers do (1,200-token
chunks, 100 overlap), with extractions recorded on those chunks: the same number of chunks
to embed and store as the peers."""
"""``-kept``: the peer is sent only the entities loregraph's own selection keeps."""
KEPT = "-kept"
TIMEOUT = {"quick": 300, "full": 3600}
"""Seconds a system may take on one corpus; quick mode also skips the ``-kept`` variants."""
LOG_TAIL = 40


def _versions() -> dict[str, str | None]:
    if not PEERS_PYTHON.exists():
        return {}
    code = (
        "import importlib.metadata as m, json;"
        "print(json.dumps({p: m.version(p) for p in "
        "('lightrag-hku', 'nano-graphrag', 'tiktoken', 'networkx', 'numpy')}))"
    )
    try:
        done = subprocess.run(
            [str(PEERS_PYTHON), "-c", code], capture_output=True, text=True, timeout=60
        )
        versions: dict[str, str | None] = json.loads(done.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}
    return versions


def run_system(
    system: str, corpus_file: Path, extractions: Path, workdir: Path, timeout: float
) -> dict[str, Any]:
    """Run one system's subprocess; its result with wall time, peak RSS and status."""
    python = Path(sys.executable) if system.startswith("loregraph") else PEERS_PYTHON
    if not python.exists():
        return {
            "status": "not_installed",
            "reason": f"{python} not found: run `bash bench/peers/setup_env.sh` first",
        }
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    out = workdir / "result.json"
    log_path = workdir.parent / f"{system}.log"
    cmd = [
        str(python), "-m", "bench.peers.peer_main",
        "--system", system.removesuffix(KEPT).removesuffix(PEER_CHUNKS),
        "--corpus", str(corpus_file), "--extractions", str(extractions),
        "--workdir", str(workdir), "--out", str(out),
    ]  # fmt: skip
    if system.endswith(KEPT):
        cmd.append("--kept-only")
    if system.endswith(PEER_CHUNKS):
        cmd += ["--chunking", PEER_CHUNKING]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    started = time.perf_counter()
    with log_path.open("w", encoding="utf-8") as log_file:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log_file, stderr=log_file)
        status, timed_out = _wait(proc, timeout)
    wall = time.perf_counter() - started
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    result["process"] = {
        "command": " ".join(cmd[1:]).replace(str(ROOT) + "/", ""),
        "python": str(python).replace(str(ROOT) + "/", ""),
        "wall_seconds": round(wall, 2),
        "exit_status": status,
        "log": str(log_path.relative_to(ROOT)),
    }
    if timed_out:
        result["stopped_during"] = result.get("status", "ingesting")
        result["status"] = "timeout"
        result["reason"] = f"stopped after the time limit of {timeout:.0f} s"
        result["progress_at_stop"] = doc_status_counts(workdir)
    elif status != 0 or result.get("status") != "ok":
        result["status"] = "failed"
        result["reason"] = _tail(log_path)
    return result


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int, bool]:
    try:
        return proc.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(), True


def doc_status_counts(workdir: Path) -> dict[str, int] | None:
    """Documents by status in a peer's own status file (LightRAG keeps one), or None."""
    for path in sorted(workdir.rglob("kv_store_doc_status.json")):
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        counts: dict[str, int] = {}
        for record in records.values():
            key = str(record.get("status")) if isinstance(record, dict) else "unknown"
            counts[key] = counts.get(key, 0) + 1
        return counts
    return None


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "no log"
    return "\n".join(lines[-LOG_TAIL:])


def run_corpus(name: str, mode: str, systems: list[str], timeout: float) -> dict[str, Any]:
    """Record the extractions of one corpus and run every system on it."""
    corpus = CORPORA[name](mode)
    base = TMP_DIR / "peers"
    corpus_file = base / f"corpus.{name}.{corpus.digest()}.json"
    save_corpus(corpus, corpus_file)
    extractions, meta = record_extractions(corpus)
    section: dict[str, Any] = {
        "data": corpus.description,
        "documents": len(corpus.docs),
        "characters": corpus.characters(),
        "questions": len(corpus.questions),
        "recorded_extraction": meta,
        "systems": {},
    }
    for system in systems:
        log(f"peers: {name}: running {system}")
        if system.endswith(PEER_CHUNKS):
            files, _ = record_extractions(corpus, chunking=PEER_CHUNKING)
        else:
            files = extractions if system == "loregraph" else slim_path(extractions)
        workdir = base / "work" / mode / name / system
        result = run_system(system, corpus_file, files, workdir, timeout)
        section["systems"][system] = result
        log(f"peers: {name}: {system}: {result.get('status')} {result.get('reason', '')[-300:]}")
    section["ratios"] = ratios(section["systems"])
    return section


def run(options: Any) -> dict[str, Any]:
    """The peers section of ``python -m bench.run`` (quick or full, every corpus and system):
    returns ``{"figures", "config"}``; :mod:`bench.run` saves it as ``peers.<mode>.json``."""
    mode = "quick" if options.quick else "full"
    systems = [s for s in SYSTEMS if not (options.quick and s.endswith(KEPT))]
    return measure(mode, list(CORPORA), systems, TIMEOUT[mode])


def measure(mode: str, corpora: list[str], systems: list[str], timeout: float) -> dict[str, Any]:
    """Run ``systems`` on ``corpora``; returns ``{"figures", "config"}``."""
    figures = {
        "peer_versions": _versions(),
        "corpora": {name: run_corpus(name, mode, systems, timeout) for name in corpora},
    }
    for line in summary_lines(figures):
        log(line)
    return {"figures": figures, "config": _config(timeout)}


def _config(timeout: float) -> dict[str, Any]:
    return {
        "extraction": "loregraph OfflineExtractor (spaCy), recorded once per corpus and "
        "replayed: ReplayExtractor for loregraph, a fake in-process LLM answering in each "
        "peer's own format for the peers (entities whose name or surface form occurs in "
        "the peer's chunk; relations whose two ends are kept and whose evidence sentence "
        "is in the chunk)",
        "embedding": f"{EMBEDDING_NAME} (bench/peers/embedding.py) for every system",
        "loregraph": "default Settings, SQLite store, AsyncGraph.ingest_documents (tokenizer "
        "loaded before the clock, as the peers load theirs at construction); queries "
        "AsyncGraph.context with presets local and hybrid",
        "lightrag": "defaults (1200/100-token chunks, gleaning 1, LLM cache on, JSON KV + "
        "NanoVectorDB + NetworkX); queries only_need_context=True, modes local/hybrid/mix",
        "nano-graphrag": "defaults (1200/100-token chunks, gleaning 1, Leiden + community "
        "reports, JSON KV + NanoVectorDB + NetworkX); queries local, only_need_context",
        "-kept": "the same peer sent only the recorded entities that loregraph's own node "
        "selection keeps (and the relations between them): every system then builds a "
        "graph from the same entities; without -kept a peer gets every candidate",
        "timeout_seconds": timeout,
        "ingest_seconds_framework": "peer ingest seconds minus the seconds spent inside "
        "the fake LLM (rendering the recorded rows)",
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: one section run of :mod:`bench.run`, with corpora, systems and a
    time limit of your choice."""
    from bench.common import RunOptions
    from bench.run import run_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="subsets (the default)")
    size.add_argument("--full", action="store_true", help="whole corpora")
    parser.add_argument("--corpora", default=",".join(CORPORA), help="comma-separated")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated")
    parser.add_argument("--timeout", type=float, help="seconds per system run")
    args = parser.parse_args(argv)
    mode = "full" if args.full else "quick"
    corpora = [c for c in args.corpora.split(",") if c]
    systems = [s for s in args.systems.split(",") if s]
    timeout = args.timeout or TIMEOUT[mode]
    return run_section(
        "peers",
        RunOptions(quick=mode == "quick"),
        command_line(),
        None,
        runner=lambda _: measure(mode, corpora, systems, timeout),
    )


if __name__ == "__main__":
    sys.exit(main())

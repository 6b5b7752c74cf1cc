"""The robustness harness at benchmark scale: kills, fuzzing and concurrent processes.

The scenarios are the test harness's own (``tests/harness/``, also run with smaller counts
by ``make test``); this section runs them with larger counts and records the figures:

* **crash**: an ingest through the CLI (``python -m loregraph.cli ingest``, default offline
  models) SIGKILLed at random points (seeded; the seed is recorded), each kill followed by a
  re-run, on SQLite and PostgreSQL, for a JSON Lines corpus (several ingest batches) and a
  folder of text files: documents lost, duplicated or partly stored, and whether every
  finished run's export equals an uninterrupted run's;
* **fuzz**: the hypothesis fuzz targets (readers, record parsing, chunker, query analysis,
  text-search query builders, refused ingests) under the ``bench`` profile in full mode (five
  times the ``ci`` profile's 11,000 examples, randomized) or the ``ci`` profile in quick mode;
  generated inputs per target and failures;
* **concurrency**: 4 writer and 8 reader processes on one SQLite file and on one PostgreSQL
  schema (60 s in full mode, 20 s in quick mode; default MiniLM embedder): documents and
  read operations per second, read latency, errors, missing documents, duplicate entities;
* **visibility**: the store contract's visibility property test (random principals, roles,
  scope links and reads, each compared with the graph the readable documents build alone) on
  every backend with 10,000 cases each in full mode (``make test`` runs 10,000 on SQLite and
  1,000 on the servers), 1,000 in quick mode.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, TMP_DIR, RunOptions, fmt_cell, log

TESTS = ROOT / "tests"
FUZZ_FILES = (
    "test_fuzz_readers.py",
    "test_fuzz_records.py",
    "test_fuzz_chunker.py",
    "test_fuzz_query.py",
    "test_fuzz_rejected.py",
)
CRASH = {
    "quick": {"kills": 8, "records": 72, "files": 8},
    "full": {"kills": 20, "records": 140, "files": 12},
}
CONCURRENCY_SECONDS = {"quick": 20.0, "full": 60.0}
VISIBILITY_CASES = {"quick": 1_000, "full": 10_000}
VISIBILITY_BACKENDS = ("sqlite", "postgres", "falkordb", "jsonfile")


def _harness() -> Any:
    """The test harness package (``tests/harness``), importable by the worker processes."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import harness.concurrency
    import harness.corpora
    import harness.crash
    import harness.stores

    return harness


def run(options: RunOptions) -> dict[str, Any]:
    """Run the three parts; a part that fails is recorded, not raised."""
    h = _harness()
    from store.pg_server import start_server

    mode = options.mode
    seed = random.SystemRandom().randrange(1, 1_000_000)
    work = TMP_DIR / f"harness-{mode}"
    figures: dict[str, Any] = {"seed": seed}
    server = start_server(TMP_DIR / "pg-harness")
    try:
        figures["crash"] = _crash(h, options, server.url, work / "crash", seed)
        figures["concurrency"] = _concurrency(h, options, server.url, work / "concurrency")
    finally:
        server.stop()
    figures["fuzz"] = _fuzz(options, work)
    figures["visibility"] = [_visibility(options, backend) for backend in VISIBILITY_BACKENDS]
    config = {
        "crash": CRASH[mode],
        "concurrency_seconds": CONCURRENCY_SECONDS[mode],
        "fuzz_profile": "bench" if mode == "full" else "ci",
        "visibility_cases": VISIBILITY_CASES[mode],
    }
    return {"figures": figures, "config": config}


def _crash(h: Any, options: RunOptions, url: str, work: Path, seed: int) -> list[dict[str, Any]]:
    sizes = CRASH[options.mode]
    out = []
    for n, (backend_name, corpus) in enumerate(
        (b, c) for b in ("sqlite", "postgres") for c in ("records", "folder")
    ):
        where = work / f"{backend_name}-{corpus}"
        where.mkdir(parents=True, exist_ok=True)
        size = sizes["records"] if corpus == "records" else sizes["files"]
        path = h.corpora.write_corpus(corpus, where, size)
        backend = (
            h.stores.SqliteBackend(where / "db")
            if backend_name == "sqlite"
            else h.stores.PostgresBackend(url, prefix=f"bench_{corpus}")
        )
        scenario = h.crash.CrashScenario(
            backend, path, corpus, where, kills=sizes["kills"], seed=seed + n
        )
        log(f"harness: crash {backend_name} {corpus}: {sizes['kills']} kills (seed {seed + n})")
        try:
            report = scenario.run().as_dict()
        except Exception as exc:  # recorded in the results
            report = {"backend": backend_name, "corpus": corpus, "error": f"{exc!r}"[:500]}
        log(f"harness: crash {backend_name} {corpus}: {json.dumps(report)[:400]}")
        out.append(report)
    return out


def _concurrency(h: Any, options: RunOptions, url: str, work: Path) -> list[dict[str, Any]]:
    seconds = CONCURRENCY_SECONDS[options.mode]
    out = []
    for backend in ("sqlite", "postgres"):
        where = work / backend
        location = (
            str(where / "shared.db") if backend == "sqlite" else f"{url}&schema=bench_concurrency"
        )
        if backend == "sqlite":
            h.stores.remove_sqlite(location)
        log(f"harness: concurrency {backend}: 4 writers + 8 readers for {seconds:.0f} s")
        try:
            report = h.concurrency.run_concurrency(
                backend, location, where, seconds=seconds, embedder="minilm"
            ).as_dict()
        except Exception as exc:  # recorded in the results
            report = {"backend": backend, "error": f"{exc!r}"[:500]}
        log(f"harness: concurrency {backend}: {json.dumps(report)[:400]}")
        out.append(report)
    return out


def _fuzz(options: RunOptions, work: Path) -> dict[str, Any]:
    profile = "bench" if options.mode == "full" else "ci"
    work.mkdir(parents=True, exist_ok=True)
    tally = work / "fuzz-tally.json"
    tally.unlink(missing_ok=True)
    env = os.environ | {"LOREGRAPH_HARNESS_PROFILE": profile, "LOREGRAPH_HARNESS_TALLY": str(tally)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [str(TESTS / "harness" / name) for name in FUZZ_FILES]
    log(f"harness: fuzz ({profile} profile)")
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    counts = json.loads(tally.read_text(encoding="utf-8")) if tally.exists() else {}
    summary = next(
        (line for line in reversed(done.stdout.splitlines()) if " in " in line), ""
    ).strip("= ")
    failures = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    log(f"harness: fuzz: {sum(counts.values()):,} inputs, {summary}")
    return {
        "profile": profile,
        "inputs": sum(counts.values()),
        "by_target": counts,
        "exit_code": done.returncode,
        "summary": summary,
        "failures": failures[:20],
        "seconds": round(seconds, 1),
    }


def _visibility(options: RunOptions, backend: str) -> dict[str, Any]:
    cases = VISIBILITY_CASES[options.mode]
    env = os.environ | {"LOREGRAPH_VISIBILITY_CASES": str(cases)}
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider"]
    command += [str(TESTS / "store" / f"test_{backend}.py"), "-k", "readable_documents_build"]
    log(f"harness: visibility {backend}: {cases:,} cases")
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    ran = [line for line in done.stdout.splitlines() if line.lstrip(".F").startswith("visibility:")]
    failures = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    log(f"harness: visibility {backend}: exit {done.returncode}; {' '.join(ran)[:300]}")
    return {
        "backend": backend,
        "cases": cases,
        "exit_code": done.returncode,
        "ran": [line.lstrip(".F") for line in ran],
        "failures": failures[:5],
        "seconds": round(time.perf_counter() - started, 1),
    }


# --------------------------------------------------------------------------- rendering
_fmt = fmt_cell


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join(_fmt(c) for c in cells) + " |"


def render_harness(result: dict[str, Any]) -> str:
    """Markdown tables for a saved ``harness.<mode>.json`` payload."""
    figures = result["figures"]
    lines = [
        f"_{result.get('mode', '?')} run, {result.get('timestamp', '?')}; command: "
        f"`{result.get('command', '?')}`; section wall time {_fmt(result.get('wall_seconds'))} "
        f"s; random seed {figures.get('seed')}._",
        "",
        "**Crash** (SIGKILL during `loregraph ingest`, then re-run):",
        "",
        "| backend | corpus | documents | kills | runs (finished) | kill window s | "
        "committed at a kill (min–max) | lost | duplicated (docs / chunks / entities / "
        "relations) | partly stored | exports equal to uninterrupted | wall s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in figures.get("crash", []):
        if "error" in c:
            lines.append(_row([c["backend"], c["corpus"], f"failed: {c['error'][:120]}"]))
            continue
        committed = c.get("committed_at_kill") or [0]
        window = c.get("window_seconds") or [0, 0]
        lines.append(
            _row(
                [
                    c["backend"],
                    c["corpus"],
                    c["documents"],
                    c["kills"],
                    f"{c['runs']} ({c['finished_runs']})",
                    f"{window[0]:.1f}–{window[1]:.1f}",
                    f"{min(committed)}–{max(committed)}",
                    c["documents_lost"],
                    f"{c['documents_duplicated']} / {c['chunks_duplicated']} / "
                    f"{c['entities_duplicated']} / {c['relations_duplicated']}",
                    c["partial_documents"],
                    f"{c['exports_compared'] - c['export_mismatches']} / {c['exports_compared']}",
                    c["wall_seconds"],
                ]
            )
        )
    fuzz = figures.get("fuzz", {})
    targets = ", ".join(f"{k} {v:,}" for k, v in fuzz.get("by_target", {}).items())
    lines += [
        "",
        f"**Fuzz** ({fuzz.get('profile', '?')} profile): **{_fmt(fuzz.get('inputs'))}** "
        f"generated inputs, {fuzz.get('summary', '?')} (exit code {fuzz.get('exit_code')}); "
        f"by target: {targets}.",
    ]
    if fuzz.get("failures"):
        lines.append("Failures: " + "; ".join(fuzz["failures"]))
    lines += [
        "",
        "**Concurrency** (4 writer + 8 reader processes on one store):",
        "",
        "| backend | embedder | seconds | documents written | documents / s | read ops | "
        "read ops / s | read p50 / p95 ms | errors | documents missing | duplicate entities "
        "(scope + name key) | entities |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in figures.get("concurrency", []):
        if "error" in c:
            lines.append(_row([c["backend"], f"failed: {c['error'][:120]}"]))
            continue
        lines.append(
            _row(
                [
                    c["backend"],
                    c["embedder"],
                    c["seconds"],
                    c["documents_written"],
                    c["documents_per_second"],
                    c["read_ops"],
                    c["read_ops_per_second"],
                    f"{_fmt(c['read_p50_ms'])} / {_fmt(c['read_p95_ms'])}",
                    c["errors"],
                    c["documents_missing"],
                    c["duplicate_entities"],
                    c["entities"],
                ]
            )
        )
    lines += ["", "**Visibility** (principals see the graph their readable documents build):", ""]
    lines += ["| backend | cases | passed | wall s |", "|---|---:|---|---:|"]
    for v in figures.get("visibility", []):
        passed = "yes" if v["exit_code"] == 0 else "; ".join(v["failures"]) or "no"
        lines.append(_row([v["backend"], v["cases"], passed, v["seconds"]]))
    return "\n".join(lines)

"""The HTTP API under load: 50 clients asking, searching and looking up entities while one
more client ingests documents, against ``loregraph serve`` on SQLite and on PostgreSQL.

For each backend a store is made from the Dracula excerpt (``tests/fixtures``), ingested
offline with the default engine (spaCy + MiniLM), with one writer key. Then
``loregraph serve`` runs as its own process on a free loopback port, exactly as a user
starts it (keys required), and this process runs the clients (``bench.load_clients``):

* **readers** (50): each in turn, at random, ``POST /ask/json`` (the offline answer),
  ``GET /search`` (documents or entities) or ``GET /entity`` (a name the store holds);
* **ingester** (1): ``POST /ingest`` of a short generated document, then ``GET /jobs/{id}``
  every 0.2 s until the job ends, and again, for the whole run.

Reported per endpoint: requests, throughput, p50/p95/p99 latency of the successful ones,
errors by kind (a transport error's class, else the status and problem name; "database is
locked" named wherever it appears), and the server's log lines that name an error.
A quick run lasts 15 s per backend, a full run 60 s. The machine's load average is
recorded at the start and the end: the clients share the server's cores.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from bench.backends import EXCERPT
from bench.common import ROOT, TMP_DIR, RunOptions, fmt_cell, log, percentile
from bench.load_clients import LOCKED, QUESTIONS, client, drive, summarise

SECONDS = {"quick": 15.0, "full": 60.0}
CLIENTS = 50
INGEST_DOCUMENTS = 40
ENDPOINTS = ("ask", "search", "entity", "ingest", "job")
LOG_ERRORS = ("Traceback", "ERROR", LOCKED)
"""What marks a line of the server's log as an error."""


def _documents(count: int) -> list[str]:
    """Short generated documents for the ingesting client (a few dated facts each)."""
    from bench.memory import facts

    made = facts(count * 3, seed=13)
    return [" ".join(f.text for f in made[i : i + 3]) for i in range(0, len(made), 3)]


async def _prepare(url: str) -> str:
    """Ingest the excerpt into the store at ``url``; a new writer key's secret."""
    import loregraph
    from loregraph.access import Role

    graph = await loregraph.open_async(url)
    try:
        await graph.ingest(EXCERPT)
        made = await graph.access.create_key("load", {graph.settings.scope: Role.WRITER})
        return made.secret
    finally:
        await graph.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_server(url: str, port: int, log_file: Path) -> subprocess.Popen[bytes]:
    """``loregraph serve`` on ``url`` at 127.0.0.1:``port``, its output into ``log_file``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "loregraph.cli", "--db", url, "serve", "--port", str(port)]
    command += ["--no-mcp", "--max-ingest-jobs", "2"]
    with log_file.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)


def _wait_until_up(base_url: str, server: subprocess.Popen[bytes], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"loregraph serve exited with {server.returncode}")
        try:
            if httpx.get(base_url + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"loregraph serve did not answer within {seconds:g} s")


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(30)


def _warm(base_url: str, key: str) -> None:
    """One request of each kind, so that models are loaded before the clock starts."""
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as http:
        http.post("/ask/json", json={"question": QUESTIONS[0]}).raise_for_status()
        http.get("/search", params={"q": "castle"}).raise_for_status()


async def _drive(base_url: str, key: str, seconds: float) -> tuple[Any, float]:
    async with client(base_url, key, CLIENTS) as http:
        return await drive(http, CLIENTS, seconds, _documents(INGEST_DOCUMENTS))


def _log_errors(log_file: Path) -> dict[str, Any]:
    lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    bad = [line for line in lines if any(mark in line for mark in LOG_ERRORS)]
    return {
        "lines": len(bad),
        "database_is_locked": sum(LOCKED in line for line in bad),
        "first": bad[:5],
    }


def measure(backend: str, url: str, seconds: float) -> dict[str, Any]:
    """One backend: prepare the store, serve it, run the clients; the figures."""
    log(f"load: {backend}: ingesting the excerpt")
    started = time.perf_counter()
    key = asyncio.run(_prepare(url))
    prepared = time.perf_counter() - started
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_file = TMP_DIR / f"load-{backend}.log"
    server = _start_server(url, port, log_file)
    try:
        _wait_until_up(base_url, server)
        _warm(base_url, key)
        load_before = os.getloadavg()
        log(f"load: {backend}: {CLIENTS} clients + 1 ingester for {seconds:g} s")
        tally, wall = asyncio.run(_drive(base_url, key, seconds))
        load_after = os.getloadavg()
    finally:
        _stop(server)
    endpoints = summarise(tally, wall)
    return {
        "prepare_seconds": round(prepared, 1),
        "wall_seconds": round(wall, 1),
        "endpoints": endpoints,
        "requests": sum(e["requests"] for e in endpoints.values()),
        "errors": sum(e["errors"] for e in endpoints.values()),
        "jobs": dict(tally.jobs),
        "job_seconds_p50": _median(tally.job_seconds),
        "server_log": _log_errors(log_file),
        "load_average": {"before": _rounded(load_before), "after": _rounded(load_after)},
    }


def _rounded(values: tuple[float, ...]) -> list[float]:
    return [round(x, 2) for x in values]


def _median(values: list[float]) -> float | None:
    return round(percentile(values, 50), 2) if values else None


def run(options: RunOptions) -> dict[str, Any]:
    """SQLite, then PostgreSQL; returns figures and configuration."""
    from bench.backends import postgres

    TMP_DIR.mkdir(parents=True, exist_ok=True)
    seconds = SECONDS[options.mode]
    sqlite_path = TMP_DIR / "load.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(sqlite_path) + suffix).unlink(missing_ok=True)
    figures = {"sqlite": measure("sqlite", str(sqlite_path), seconds)}
    with postgres() as pg:
        figures["postgres"] = measure("postgres", pg.url("load"), seconds)
    return {
        "figures": figures,
        "config": {
            "seconds": seconds,
            "clients": CLIENTS,
            "ingesters": 1,
            "store": "tests/fixtures/dracula_excerpt.txt ingested offline (spaCy + MiniLM)",
            "server": "loregraph serve (uvicorn, one process), keys required, "
            "--max-ingest-jobs 2, on 127.0.0.1; clients in another process (httpx)",
            "mix": "each reader picks ask (POST /ask/json), search (GET /search, documents "
            "or entities) or entity (GET /entity) at random; the ingester posts a "
            "3-sentence generated document and polls its job every 0.2 s",
        },
    }


def render_load(result: dict[str, Any]) -> str:
    """Markdown table for a saved ``load.<mode>.json`` payload."""
    config = result["config"]
    lines = [
        f"{config['clients']} clients + 1 ingester for {config['seconds']:g} s per backend "
        f"({result.get('mode', '?')} run, {result.get('timestamp', '?')[:10]}).",
        "",
        "| backend | endpoint | requests | req/s | p50 ms | p95 ms | p99 ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for backend, figures in result["figures"].items():
        for name in ENDPOINTS:
            row = figures["endpoints"].get(name)
            if row is None:
                continue
            kinds = ", ".join(f"{k}: {v}" for k, v in row["error_kinds"].items())
            errors = f"{row['errors']} ({kinds})" if kinds else "0"
            cells = [row["requests"], row["per_second"], row.get("p50_ms"), row.get("p95_ms")]
            cells += [row.get("p99_ms"), errors]
            lines.append(f"| {backend} | {name} | " + " | ".join(fmt_cell(c) for c in cells) + " |")
    lines.append("")
    for backend, figures in result["figures"].items():
        log_ = figures["server_log"]
        jobs = ", ".join(f"{k} {v}" for k, v in figures["jobs"].items()) or "none"
        lines.append(
            f"- {backend}: ingest jobs {jobs} (p50 {figures['job_seconds_p50']} s each); "
            f"server log error lines {log_['lines']}, 'database is locked' "
            f"{log_['database_is_locked']}; load average {figures['load_average']['before'][0]}"
            f" before, {figures['load_average']['after'][0]:.2f} after."
        )
    return "\n".join(lines) + "\n"

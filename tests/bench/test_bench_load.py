"""The load section's clients and table, against the HTTP API in-process (a short run)."""

from __future__ import annotations

from pathlib import Path

import httpx
from bench.load import render_load
from bench.load_clients import LOCKED, Outcome, Tally, _error_kind, drive, summarise

from loregraph import AsyncGraph
from loregraph.access import Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

TEXT = (
    "Jonathan Harker travelled to Transylvania to meet Count Dracula. "
    "Count Dracula lived in a castle in the Carpathian Mountains."
)


def test_outcomes_are_summed_up_per_endpoint_with_errors_by_kind() -> None:
    failed = Outcome("ask", 2.0, "503 store-unavailable")
    tally = Tally([Outcome("ask", 0.1), Outcome("ask", 0.3), failed])
    tally.outcomes.append(Outcome("search", 0.05, "ReadTimeout"))
    figures = summarise(tally, wall=2.0)
    assert figures["ask"]["requests"] == 3 and figures["ask"]["ok"] == 2
    assert figures["ask"]["p50_ms"] == 200.0 and figures["ask"]["per_second"] == 1.5
    assert figures["ask"]["error_kinds"] == {"503 store-unavailable": 1}
    assert figures["search"]["errors"] == 1 and "p50_ms" not in figures["search"]


def test_a_locked_database_is_named_whatever_the_status() -> None:
    locked = httpx.Response(500, json={"detail": f"sqlite3.OperationalError: {LOCKED}"})
    assert _error_kind(locked) == f"500 {LOCKED}"
    problem = httpx.Response(429, json={"type": "urn:loregraph:problem:too-many-jobs"})
    assert _error_kind(problem) == "429 too-many-jobs"
    assert _error_kind(httpx.Response(502, text="bad gateway")) == "502"


async def test_readers_and_the_ingester_run_against_the_api(tmp_path: Path) -> None:
    graph = AsyncGraph(SqliteStore(tmp_path / "load.db"), embedder=HashingEmbedder(dim=64))
    await graph.open()
    try:
        await graph.ingest_text(TEXT, title="Harker notes", source="notes")
        key = (await graph.access.create_key("load", {"default": Role.WRITER})).secret
        app = create_app(graph, ServerConfig())
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost", headers=headers, timeout=60
        ) as http:
            documents = ["Mina Harker wrote to Lucy Westenra.", "Arthur Holmwood rode home."]
            tally, wall = await drive(http, clients=3, seconds=1.0, documents=documents)
        figures = summarise(tally, wall)
    finally:
        await graph.close()
    assert {"ask", "search", "entity", "ingest", "job"} <= set(figures)
    assert sum(row["errors"] for row in figures.values()) == 0
    assert tally.jobs["done"] >= 1


def test_the_table_lists_each_backend_and_endpoint() -> None:
    row = {"requests": 10, "ok": 9, "per_second": 5.0, "errors": 1}
    row |= {"error_kinds": {"504 timeout": 1}, "p50_ms": 12.0, "p95_ms": 30.0, "p99_ms": 41.5}
    backend = {
        "endpoints": {"ask": row, "search": row | {"errors": 0, "error_kinds": {}}},
        "jobs": {"done": 3},
        "job_seconds_p50": 0.8,
        "server_log": {"lines": 0, "database_is_locked": 0, "first": []},
        "load_average": {"before": [1.5, 1.0, 0.5], "after": [2.25, 1.0, 0.5]},
    }
    result = {
        "mode": "quick",
        "timestamp": "2026-11-24T08:00:00+00:00",
        "config": {"clients": 50, "seconds": 15.0},
        "figures": {"sqlite": backend, "postgres": backend},
    }
    text = render_load(result)
    assert "| sqlite | ask | 10 | 5.0 | 12.0 | 30.0 | 41.5 | 1 (504 timeout: 1) |" in text
    assert "| postgres | search | 10 | 5.0 | 12.0 | 30.0 | 41.5 | 0 |" in text
    assert "15 s per backend (quick run" in text and "load average 1.5 before" in text

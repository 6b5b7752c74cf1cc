"""Acceptance: ``loregraph`` with an LLM against a fake server serving realistic (some
broken) replies — the ingest completes and reports what it repaired, retried and dropped, a
second run makes no calls, a killed ingest resumes without repeating a call, and ``ask``
streams a cited answer."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from loregraph.cli.app import main
from loregraph.cli.progress import RichProgress
from loregraph.llm.usage import UsageTracker

from .fake_server import Call, FakeLLMServer, Reply
from .recorded import ANSWER, QUESTION, BookResponder

EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"
STALL = "Van Helsing made a very careful examination"  # the third mega-batch


def environment(server: FakeLLMServer, **extra: str) -> dict[str, str]:
    """The user's environment without loregraph settings, plus an LLM on the fake server."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("LOREGRAPH_", "KG_", "OPENAI_"))
    }
    env.update(
        {
            "LOREGRAPH_LLM_PROVIDER": "openai",
            "LOREGRAPH_LLM_BASE_URL": server.url,
            "LOREGRAPH_LLM_API_KEY": "test-key",
            # embeddings through the same API (fast here; the local model is the default)
            "LOREGRAPH_LLM_EMBEDDING_MODEL": "fake-embed",
            "KG_MEGA_BATCH_CHARS": "20000",
            "PYTHONUNBUFFERED": "1",
            **extra,
        }
    )
    return env


def cli(db: Path, *args: str) -> list[str]:
    # the model comes from an option, the rest from the environment: both paths are used
    return [
        sys.executable,
        "-m",
        "loregraph.cli",
        "--db",
        str(db),
        "--llm-model",
        "fake-gpt",
        *args,
    ]


def run(db: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cli(db, *args), env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def cached_replies(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_ingest_with_an_llm_reports_repairs_and_a_second_run_makes_no_calls(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    responder = BookResponder(flaky="Left Munich at 8:35")
    server.responder = responder
    env = environment(server)
    db = tmp_path / "book.db"

    first = run(db, env, "ingest", str(EXCERPT))
    assert "1 ingested" in first.stdout
    # 3 + 1 retried entity calls, 3 + 1 corrective relation calls, 2 embedding requests
    assert (
        "LLM: 10 calls, 0 cached, 1 retried, 4 repaired, 1 corrected, 0 done offline, "
        "7 dropped, 0 failed" in first.stdout
    )
    assert "extract.entities: 4 calls, 0 cached, 1 retried, 3 repaired" in first.stdout
    assert "extract.relations: 4 calls, 0 cached, 1 repaired, 1 corrected" in first.stdout
    assert "2 relations unknown entity" in first.stdout
    assert not responder.unmatched
    assert len(server.chat_calls()) == 8

    # the same run again: the document is unchanged, nothing is asked
    server.reset_counts()
    second = run(db, env, "ingest", str(EXCERPT))
    assert "1 unchanged (skipped)" in second.stdout
    assert server.calls == []

    # a fresh store with the same response cache: the whole extraction is replayed for free
    cache = db.with_name(db.name + ".llm-cache.sqlite")
    fresh = tmp_path / "fresh.db"
    replay = run(
        fresh, environment(server, LOREGRAPH_LLM_CACHE_PATH=str(cache)), "ingest", "--json",
        str(EXCERPT),
    )  # fmt: skip
    report = json.loads(replay.stdout)
    assert report["ingested"] == 1
    chat = {name: stage for name, stage in report["llm"].items() if name != "embed"}
    assert sum(stage["calls"] for stage in chat.values()) == 0
    assert sum(stage["cached"] for stage in chat.values()) == 7
    assert report["llm"]["extract.relations"]["dropped"] == 4
    assert server.chat_calls() == []

    # ask streams the model's answer, then the sources it cited
    answered = run(db, env, "ask", QUESTION)
    assert answered.stdout.startswith(f"Q: {QUESTION}\n\n{ANSWER}")
    assert "Sources:\n[1] " in answered.stdout and "\n[2] " in answered.stdout
    assert responder.asked == ["query", "answer"]
    as_json = json.loads(run(db, env, "ask", "--json", QUESTION).stdout)
    assert as_json["llm"] is True and [c["index"] for c in as_json["citations"]] == [1, 2]
    assert responder.asked == ["query", "answer"]  # the second ask came from the cache

    # --llm-provider none overrides the environment: the offline, extractive answer
    server.reset_counts()
    offline = json.loads(run(db, env, "--llm-provider", "none", "ask", "--json", QUESTION).stdout)
    assert offline["llm"] is False and offline["citations"]
    assert server.chat_calls() == []


@pytest.mark.slow
def test_killed_llm_ingest_resumes_without_repeating_a_call(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    recorded = BookResponder()

    def stalling(call: Call) -> Reply:  # the last entity batch never answers
        if "entity extraction" in call.system and STALL in call.last_user:
            return Reply(delay=120)
        return recorded(call)

    server.responder = stalling
    env = environment(server)
    db = tmp_path / "killed.db"
    cache = db.with_name(db.name + ".llm-cache.sqlite")
    proc = subprocess.Popen(
        cli(db, "ingest", str(EXCERPT)), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while cached_replies(cache) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert cached_replies(cache) == 2
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    answered = {c.prompt_hash for c in server.chat_calls() if STALL not in c.last_user}
    assert len(answered) == 2

    server.responder = recorded
    server.reset_counts()
    resumed = run(db, env, "ingest", str(EXCERPT))
    assert "1 ingested" in resumed.stdout and "0 failed" in resumed.stdout
    assert "extract.entities: 1 calls, 2 cached" in resumed.stdout
    second = [c.prompt_hash for c in server.chat_calls()]
    assert len(second) == len(set(second)) == 5  # the stalled batch, then 3 + 1 relation calls
    assert not answered & set(second)  # nothing answered before the kill was asked again


def test_llm_options_are_checked() -> None:
    result = CliRunner().invoke(
        main, ["--llm-provider", "openai", "ask", "anything"], env={"LOREGRAPH_LLM_MODEL": ""}
    )  # checked before anything else, even the missing database
    assert result.exit_code != 0
    assert result.output.startswith("error:") and "model" in result.output


def test_progress_shows_llm_usage_per_stage() -> None:
    out = io.StringIO()
    usage = UsageTracker()
    with RichProgress(Console(file=out, force_terminal=True, width=160)) as bars:
        bars.watch(usage)
        bars.start("documents", 1)
        usage.count("extract.entities", calls=3, retries=1, prompt_tokens=1200)
        usage.count("extract.entities", cached=2, repairs=1, completion_tokens=34)
        bars.advance("documents")
    text = out.getvalue()
    assert "LLM extract.entities" in text
    assert "2 cached, 1 retried, 1 repaired, 1,234 tokens" in text
    usage.count("extract.entities", calls=1)  # no longer watched: nothing breaks

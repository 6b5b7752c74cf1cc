"""The fact-change benchmark's scoring: the answer rule, the aggregates, and the
invalidation it measures through the LLM contradiction check (against the fake server)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.fact_changes import answer_right, load_cases, measure, render_fact_changes, report
from tests.llm.fake_server import Call, FakeLLMServer, Reply

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.facts.contradict import LLMContradictionCheck
from loregraph.llm.client import LLMClient
from loregraph.llm.openai_client import OpenAIChat
from loregraph.store.sqlite import SqliteStore


def test_an_answer_is_right_with_the_current_value_before_any_stale_one() -> None:
    assert answer_right("It is 45 s now.", "45 s", "30 s")
    assert answer_right("45 s; until February it was 30 s.", "45 s", "30 s")
    assert not answer_right("30 s, later 45 s.", "45 s", "30 s")
    assert not answer_right("30 s.", "45 s", "30 s")
    assert answer_right("Sentry", "sentry", None)


def test_the_set_has_both_splits_and_every_memory_in_one_list() -> None:
    cases = load_cases()
    assert {c["split"] for c in cases} == {"dev", "held_out"}
    for case in cases:
        n = len(case["memories"])
        assert sorted(case["ended"] + case["current"]) == list(range(n))


def test_the_report_sums_per_split_and_family() -> None:
    rows = [
        {"family": "moved", "split": "dev", "tp": 1, "fp": 0, "fn": 0, "right": True},
        {"family": "addition", "split": "dev", "tp": 0, "fp": 1, "fn": 0, "right": False},
        {"family": "moved", "split": "held_out", "tp": 0, "fp": 0, "fn": 1, "right": True},
    ]
    out = report(rows)
    assert out["dev"]["all"] | {} == {
        "cases": 2,
        "tp": 1,
        "fp": 1,
        "fn": 0,
        "precision": 0.5,
        "recall": 1.0,
        "answers_right": 1,
        "answers_share": 0.5,
    }
    assert out["held_out"]["all"]["recall"] == 0.0
    assert out["dev"]["families"]["addition"]["precision"] == 0.0
    text = render_fact_changes({"commit": "abc1234", "figures": {"offline": out, "llm": out}})
    assert "| **all** | 50.0 | 100.0 | 1/2 | – | 0.0 | 1/1 |" in text


def _first_pair(call: Call) -> Reply:
    """The model's reply: the first new fact contradicts the first current one."""
    return Reply(content=json.dumps({"contradictions": [{"new": 1, "current": 1}]}))


CASES = [
    {
        "id": "t1",
        "family": "switched",
        "split": "dev",
        "memories": [
            {"text": "The API server uses Express.", "at": "2026-01-15"},
            {"text": "The API server uses Hono.", "at": "2026-02-10"},
        ],
        "ended": [0],
        "current": [1],
    },
    {
        "id": "t2",
        "family": "multi_valued",
        "split": "held_out",
        "memories": [
            {"text": "The API server uses Redis.", "at": "2026-01-15"},
            {"text": "The API server uses Valkey.", "at": "2026-02-10"},
        ],
        "ended": [],
        "current": [0, 1],
    },
]


async def test_the_model_s_ends_are_measured(tmp_path: Path) -> None:
    with FakeLLMServer(_first_pair) as fake:
        client = LLMClient(OpenAIChat("fake-gpt", base_url=fake.url, api_key="k"))
        graph = AsyncGraph(SqliteStore(tmp_path / "f.db"), embedder=HashingEmbedder(dim=64))
        check = LLMContradictionCheck(client)
        graph.parts.contradiction_check = lambda: check  # type: ignore[method-assign]
        try:
            out = await measure(graph, CASES, ask=False)
        finally:
            await graph.close()
            await client.aclose()
        assert len(fake.chat_calls()) == 2  # one check per second memory
    assert out["dev"]["all"]["tp"] == 1 and out["dev"]["all"]["recall"] == 1.0
    assert out["held_out"]["all"]["fp"] == 1  # the model ended a multi-valued fact
    assert "answers_right" not in out["dev"]["all"]

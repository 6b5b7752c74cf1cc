"""``debug=true`` on ask and context: how the question was answered, for administrators
only (403 for others), absent unless asked, as its own event in the streamed answer, and
the LLM circuit breaker's state as the model left it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from llm.fake_server import FakeLLMServer, Reply
from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.llm.client import LLMClient
from loregraph.llm.openai_client import OpenAIChat
from loregraph.llm.resilience import CircuitBreaker, Resilience, RetryPolicy
from loregraph.observe import circuit_state, debug_report
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

from .conftest import Client, Keys, events, problem

QUESTION = "Where did Count Dracula live?"
DEBUG = {"debug": "true"}


def check_report(report: dict[str, Any]) -> None:
    """A debug report as documented: intent, sources found, stage timings, circuit."""
    assert report["intent"] in ("factual", "relationship", "summary", "exploration")
    assert report["relevant"] is True and report["preset"]
    sources = report["sources"]
    first = sources["passages"][0]
    assert first["rank"] == 1 and first["document_title"] == "Harker notes"
    assert first["score"] > 0 and first["stage"] == "passages" and first["found_by"]
    assert {"bm25", "vector", "mentions"} & {r for p in sources["passages"] for r in p["found_by"]}
    starts = [e for e in sources["entities"] if e["start"]]
    assert starts and all(e["start_found_by"] and "start" in e["found_by"] for e in starts)
    assert any(e["name"] == "Count Dracula" for e in sources["entities"])
    for relation in sources["relations"]:
        assert relation["found_by"] and relation["source"] and relation["target"]
    stages = report["stages"]
    assert stages["total"]["ms"] >= 0 and "passages" in stages and "start" in stages
    assert report["circuit"] is None  # no language model configured


async def test_an_administrator_gets_the_debug_report(client: Client, keys: Keys) -> None:
    async with client(keys.admin) as http:
        plain = (await http.post("/ask/json", json={"question": QUESTION})).json()
        debugged = await http.post("/ask/json", params=DEBUG, json={"question": QUESTION})
        assert debugged.status_code == 200, debugged.text
        body = debugged.json()
        context = await http.post("/context", params=DEBUG, json={"question": QUESTION})
        plain_context = (await http.post("/context", json={"question": QUESTION})).json()
    assert "debug" not in plain and "debug" not in plain_context
    check_report(body.pop("debug"))
    assert body == plain
    cited = {c["chunk_id"] for c in plain["citations"]}
    found = {p["chunk_id"] for p in context.json()["debug"]["sources"]["passages"]}
    assert cited <= found
    check_report(context.json().pop("debug"))
    assert context.json()["context"] == plain_context["context"]


async def test_the_streamed_answer_sends_debug_as_its_own_event(client: Client, keys: Keys) -> None:
    async with client(keys.admin) as http:
        streamed = events((await http.post("/ask", params=DEBUG, json={"question": QUESTION})).text)
        plain = events((await http.post("/ask", json={"question": QUESTION})).text)
    kinds = [kind for kind, _ in streamed]
    assert kinds[-2:] == ["debug", "answer"] and kinds.count("debug") == 1
    check_report(streamed[-2][1])
    assert "debug" not in [kind for kind, _ in plain]


async def test_debug_is_refused_to_readers_and_writers(client: Client, keys: Keys) -> None:
    for key, name in ((keys.reader, "reader"), (keys.writer, "writer")):
        async with client(key) as http:
            for path in ("/ask", "/ask/json", "/context"):
                response = await http.post(path, params=DEBUG, json={"question": QUESTION})
                body = problem(response, 403, "forbidden")
                assert "debug=true is for administrators" in body["detail"]
                assert f"'{name}'" in body["detail"] and "'default'" in body["detail"]
            answered = await http.post("/ask/json", json={"question": QUESTION})
            assert answered.status_code == 200 and "debug" not in answered.json()
    async with client(keys.other) as http:  # an administrator of another scope only
        response = await http.post(
            "/context", params={**DEBUG, "scope": "elsewhere"}, json={"question": QUESTION}
        )
        assert response.status_code == 404  # nothing stored there: it may ask, sees nothing


async def test_the_local_operator_gets_debug_without_keys(client: Client) -> None:
    async with client(auth=False) as http:
        response = await http.post("/ask/json", params=DEBUG, json={"question": QUESTION})
    assert response.status_code == 200, response.text
    check_report(response.json()["debug"])


async def test_the_report_shows_the_circuit_opened_by_a_failing_model(
    graph: AsyncGraph, tmp_path: Path
) -> None:
    with FakeLLMServer(lambda call: Reply(status=500)) as server:
        model = OpenAIChat("fake-gpt", base_url=server.url, api_key="k")
        resilience = Resilience(
            timeout=10.0,
            retry=RetryPolicy(max_retries=0),
            breaker=CircuitBreaker(failure_threshold=1, reset_after=3600.0),
        )
        llm = LLMClient(model, resilience=resilience)
        embedder = HashingEmbedder(dim=64)
        with_model = AsyncGraph(SqliteStore(tmp_path / "served.db"), embedder=embedder, llm=llm)
        try:
            assert circuit_state(with_model.llm) == "closed"
            app = create_app(with_model, ServerConfig(auth=False))
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
                response = await http.post("/context", params=DEBUG, json={"question": QUESTION})
            assert response.status_code == 200, response.text
            assert server.chat_calls(), "the query analysis asked the model"
            assert response.json()["debug"]["circuit"] == "open"
        finally:
            await with_model.close()


async def test_the_python_api_gives_the_same_report(graph: AsyncGraph) -> None:
    result = await graph.retrieve(QUESTION)
    report = debug_report(result, circuit=circuit_state(graph.llm))
    check_report(report)
    assert [p["chunk_id"] for p in report["sources"]["passages"]] == [
        p.chunk_id for p in result.passages
    ]

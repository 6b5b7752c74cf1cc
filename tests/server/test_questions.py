"""Questions over HTTP: the streamed answer ends with its citations, the JSON answer is the
same, contexts in every format, search, and the limits on questions and time."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any, get_args

import pytest

from loregraph import AsyncGraph
from loregraph.answer.base import PieceStream
from loregraph.server import Limits, ServerConfig, create_app
from loregraph.server.requests import Preset
from loregraph.settings import MIN_BUDGET, PRESETS
from loregraph.streaming import StreamedAnswer

from .conftest import Client, Keys, events, problem
from .unchanged import snapshot

QUESTION = "Where did Count Dracula live?"


async def test_ask_streams_events_ending_in_the_answer_with_citations(
    client: Client, keys: Keys
) -> None:
    async with client(keys.reader) as http:
        response = await http.post("/ask", json={"question": QUESTION})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = events(response.text)
        whole = (await http.post("/ask/json", json={"question": QUESTION})).json()
    kinds = [kind for kind, _ in stream]
    assert kinds[0] == "status" and kinds[-1] == "answer"
    assert kinds.index("sources") < kinds.index("delta")
    sources = dict(stream)["sources"]
    assert sources["passages"][0]["document_title"] == "Harker notes"
    answer = stream[-1][1]
    assert answer["citations"] and answer["found"] is True
    assert answer["citations"][0]["document_title"] == "Harker notes"
    assert "Carpathian" in answer["answer"]
    assert "".join(data["text"] for kind, data in stream if kind == "delta") == answer["answer"]
    assert whole == answer


async def test_context_in_each_format_and_its_budget(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        for fmt, marker in (("markdown", "Carpathian"), ("xml", "<passage"), ("json", "{")):
            body = {"question": QUESTION, "format": fmt, "budget": 500}
            response = await http.post("/context", json=body)
            assert response.status_code == 200, response.text
            assert response.json()["format"] == fmt and marker in response.json()["context"]
        small = {"question": QUESTION, "budget": MIN_BUDGET - 1}
        problem(await http.post("/context", json=small), 422, "invalid-request")
        wrong = {"question": QUESTION, "format": "yaml"}
        problem(await http.post("/context", json=wrong), 422, "invalid-request")


async def test_search_ranks_documents_entities_and_relations(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        answer = (await http.get("/search", params={"q": "Dracula castle"})).json()
        assert answer["relevant"] is True and answer["relevance"] >= answer["threshold"]
        docs = answer["hits"]
        assert docs[0]["kind"] == "document" and docs[0]["title"] == "Harker notes"
        assert docs[0]["relevant"] is True and docs[0]["relevance"] > 0
        params = {"q": "Count Dracula castle", "kind": "entities", "limit": 2, "preset": "local"}
        found = (await http.get("/search", params=params)).json()["hits"]
        assert len(found) <= 2 and found[0]["title"] == "Count Dracula"
        nothing = (await http.get("/search", params={"q": "boiling point of nitrogen"})).json()
        assert nothing["relevant"] is False
        assert not any(hit["relevant"] for hit in nothing["hits"])
        problem(
            await http.get("/search", params={"q": "x", "preset": "nope"}), 422, "invalid-request"
        )
        problem(await http.get("/search"), 422, "invalid-request")


async def test_a_question_over_the_limit_is_refused(client: Client, keys: Keys) -> None:
    async with client(keys.reader, limits=Limits(max_question_chars=40)) as http:
        long = "Where did Count Dracula live, and who visited him there?"
        for response in (
            await http.post("/ask", json={"question": long}),
            await http.post("/ask/json", json={"question": long}),
            await http.post("/context", json={"question": long}),
            await http.get("/search", params={"q": long}),
        ):
            assert "40" in problem(response, 422, "too-long")["detail"]
        problem(await http.post("/ask/json", json={"question": ""}), 422, "invalid-request")


async def test_a_slow_answer_ends_with_a_timeout(
    client: Client, keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(30)

    monkeypatch.setattr(graph, "retrieve", slow)
    async with client(keys.reader, limits=Limits(request_timeout=0.2)) as http:
        problem(await http.post("/ask/json", json={"question": QUESTION}), 504, "timeout")
        stream = events((await http.post("/ask", json={"question": QUESTION})).text)
    assert [kind for kind, _ in stream] == ["status", "error"]
    assert stream[-1][1]["type"] == "urn:loregraph:problem:timeout"


def test_the_preset_names_are_the_engines() -> None:
    assert sorted(get_args(Preset)) == sorted(PRESETS)


class _Endless:
    """An answerer that writes for ever, and notes when its stream is closed."""

    def __init__(self) -> None:
        self.closed = False

    def stream(self, result: Any) -> PieceStream:
        async def pieces() -> AsyncGenerator[str, None]:
            try:
                while True:
                    yield "more "
                    await asyncio.sleep(0.01)
            finally:
                self.closed = True

        return PieceStream(pieces())


async def test_a_client_that_goes_away_stops_the_answer(
    graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    endless = _Endless()

    def ask_stream(question: str, **options: Any) -> StreamedAnswer:
        retrieve = graph.retrieve(question, scope=options.get("scope"))
        return StreamedAnswer(question, lambda: retrieve, endless)  # type: ignore[arg-type]

    monkeypatch.setattr(graph, "ask_stream", ask_stream)
    before = await snapshot(graph)
    app = create_app(graph, ServerConfig(auth=False))
    body = json.dumps({"question": QUESTION}).encode()
    gone, asked, sent = asyncio.Event(), [False], []

    async def receive() -> dict[str, Any]:
        if not asked[0]:
            asked[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if sum(b"event: delta" in m.get("body", b"") for m in sent) >= 3:
            gone.set()

    scope = {
        "type": "http", "http_version": "1.1", "method": "POST", "path": "/ask",
        "raw_path": b"/ask", "query_string": b"", "root_path": "", "scheme": "http",
        "headers": [(b"content-type", b"application/json"), (b"host", b"localhost")],
        "server": ("localhost", 80),
        "client": ("127.0.0.1", 1),
    }  # fmt: skip
    await asyncio.wait_for(app(scope, receive, send), 10)
    assert gone.is_set() and endless.closed
    assert await snapshot(graph) == before

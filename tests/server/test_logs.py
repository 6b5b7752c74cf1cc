"""Request ids and request logs: an id on every response and problem, one JSON line per
request, the id on the engine's own records while it serves the request, no key logged."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from loregraph import AsyncGraph
from loregraph.ingest.report import IngestReport
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.server import ServerConfig, create_app
from loregraph.server.logs import (
    CLIENT_LEFT,
    MAX_ID_CHARS,
    RequestLog,
    accept_id,
    choose_format,
    configure_logging,
)

from .conftest import Client, Keys, events, problem

Lines = Callable[[], list[dict[str, Any]]]
QUESTION = "Where did Count Dracula live?"


@pytest.fixture()
def log_text() -> Iterator[io.StringIO]:
    """Every log record of the test, as ``loregraph serve --log-format json`` writes them."""
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging("json", "info", stream)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.fixture()
def log_lines(log_text: io.StringIO) -> Lines:
    """The JSON objects logged so far."""
    return lambda: [json.loads(line) for line in log_text.getvalue().splitlines()]


def requests_logged(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["logger"] == "loregraph.http"]


class Failing:
    """An observer that fails: the engine logs the failure (and goes on)."""

    def retrieved(self, result: RetrievalResult) -> None:
        raise RuntimeError("observer down")

    def ingested(self, report: IngestReport, started_ns: int, ended_ns: int) -> None:
        raise RuntimeError("observer down")


def test_a_client_id_is_kept_only_when_sane() -> None:
    assert accept_id("abc-123_X.y:z") == "abc-123_X.y:z"
    for bad in (None, "", "a b", "x" * (MAX_ID_CHARS + 1), "id\nforged: line", "é"):
        made = accept_id(bad)
        assert made != bad and len(made) == 32 and int(made, 16) >= 0
    assert accept_id(None) != accept_id(None)
    assert choose_format("auto", io.StringIO()) == "json"
    assert choose_format("text") == "text"


async def test_every_response_and_problem_carries_the_request_id(
    client: Client, keys: Keys
) -> None:
    async with client(keys.reader) as http:
        first = await http.get("/stats")
        second = await http.get("/stats")
        assert first.headers["x-request-id"] != second.headers["x-request-id"]
        assert len(first.headers["x-request-id"]) == 32
        kept = await http.get("/health", headers={"X-Request-ID": "trace-7"})
        assert kept.headers["x-request-id"] == "trace-7"
        forged = await http.get("/health", headers={"X-Request-ID": "x" * 500})
        assert forged.headers["x-request-id"] != "x" * 500
        denied = await http.post("/memories", json={"text": "a"}, headers={"X-Request-ID": "r-1"})
        body = problem(denied, 403, "forbidden")
        assert body["request_id"] == "r-1" == denied.headers["x-request-id"]
    async with client() as http:
        missing = await http.get("/stats")
        body = problem(missing, 401, "unauthorized")
        assert body["request_id"] == missing.headers["x-request-id"]
        assert (await http.get("/nowhere")).json()["request_id"]


async def test_a_browser_of_an_allowed_origin_may_send_and_read_the_id(client: Client) -> None:
    origin = {"Origin": "https://app.example"}
    preflight = {
        **origin,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-request-id",
    }
    async with client(auth=False, allowed_origins=["https://app.example"]) as http:
        allowed = await http.options("/stats", headers=preflight)
        assert allowed.status_code == 200
        assert "x-request-id" in allowed.headers["access-control-allow-headers"].lower()
        response = await http.get("/stats", headers={**origin, "X-Request-ID": "web-1"})
    assert response.headers["x-request-id"] == "web-1"
    assert "x-request-id" in response.headers["access-control-expose-headers"].lower()


async def test_an_unexpected_error_is_answered_with_the_request_id(
    graph: AsyncGraph, log_lines: Lines, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(graph, "stats", broken)
    app = create_app(graph, ServerConfig(auth=False))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        response = await http.get("/stats", headers={"X-Request-ID": "boom-1"})
    body = problem(response, 500, "internal-error")
    assert body["request_id"] == "boom-1" == response.headers["x-request-id"]
    lines = log_lines()
    failure = next(line for line in lines if line["message"].startswith("unexpected error"))
    assert failure["request_id"] == "boom-1" and "disk on fire" in failure["exception"]
    (logged,) = requests_logged(lines)
    assert logged["status"] == 500 and logged["request_id"] == "boom-1"


async def test_one_json_line_per_request_without_keys_or_bodies(
    client: Client, keys: Keys, log_lines: Lines, log_text: io.StringIO
) -> None:
    async with client(keys.reader) as http:
        answered = await http.post("/ask/json", json={"question": QUESTION})
        assert answered.status_code == 200
        await http.get("/health", headers={"X-Request-ID": "probe"})
    asked, health = requests_logged(log_lines())
    assert asked["method"] == "POST" and asked["path"] == "/ask/json"
    assert asked["status"] == 200 and asked["principal"] == "reader"
    assert asked["request_id"] == answered.headers["x-request-id"]
    assert isinstance(asked["duration_ms"], float) and asked["duration_ms"] >= 0
    assert asked["level"] == "info" and asked["time"].endswith("+00:00")
    assert health["request_id"] == "probe" and "principal" not in health
    text = log_text.getvalue()
    assert keys.reader not in text and keys.reader[:12] not in text
    assert QUESTION not in text and "Carpathian" not in text


async def test_engine_records_carry_the_request_id_and_streams_log_when_they_end(
    client: Client, keys: Keys, graph: AsyncGraph, log_lines: Lines
) -> None:
    graph.observers.observers.append(Failing())
    async with client(keys.reader) as http:
        streamed = await http.post("/ask", json={"question": QUESTION})
        assert [kind for kind, _ in events(streamed.text)][-1] == "answer"
        plain = await http.post("/context", json={"question": QUESTION})
    lines = log_lines()
    engine = [line for line in lines if line["logger"] == "loregraph.observe"]
    ids = [line["request_id"] for line in engine]
    assert ids == [streamed.headers["x-request-id"], plain.headers["x-request-id"]]
    assert "observer down" in engine[0]["exception"]
    order = [(line["logger"], line["request_id"]) for line in lines if "request_id" in line]
    stream_id = streamed.headers["x-request-id"]
    # the stream's line comes when it ends: after what the engine logged while answering
    assert order.index(("loregraph.observe", stream_id)) < order.index(
        ("loregraph.http", stream_id)
    )
    logged = {line["path"]: line for line in requests_logged(lines)}
    assert logged["/ask"]["status"] == 200 and logged["/ask"]["principal"] == "reader"
    assert logged["/context"]["status"] == 200


async def test_an_ingest_job_logs_with_the_id_of_the_request_that_started_it(
    client: Client, keys: Keys, graph: AsyncGraph, log_lines: Lines
) -> None:
    graph.observers.observers.append(Failing())
    text = "Arthur Holmwood loved Lucy Westenra."
    async with client(keys.writer) as http:
        started = await http.post("/ingest", json={"text": text}, headers={"X-Request-ID": "job-1"})
        assert started.status_code == 202
        followed = await http.get(started.json()["events"], headers={"X-Request-ID": "follow"})
        assert events(followed.text)[-1][0] == "done"
    lines = log_lines()
    (failure,) = [line for line in lines if line["logger"] == "loregraph.observe"]
    assert failure["request_id"] == "job-1"
    logged = {line["request_id"]: line for line in requests_logged(lines)}
    assert logged["job-1"]["status"] == 202 and logged["job-1"]["principal"] == "writer"
    assert logged["follow"]["status"] == 200 and logged["follow"]["path"].endswith("/events")
    assert text not in json.dumps(lines)


async def test_a_request_the_client_left_is_logged_as_499(log_lines: Lines) -> None:
    async def abandoned(scope: Scope, receive: Receive, send: Send) -> None:
        raise asyncio.CancelledError

    scope = {"type": "http", "method": "GET", "path": "/slow", "headers": []}

    async def nothing() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def ignore(message: Any) -> None:
        return None

    with pytest.raises(asyncio.CancelledError):
        await RequestLog(abandoned)(scope, nothing, ignore)
    (logged,) = requests_logged(log_lines())
    assert logged["status"] == CLIENT_LEFT and logged["path"] == "/slow"


def test_text_lines_carry_the_request_id() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging("text", "info", stream)
    try:
        from loregraph.server.logs import bound

        with bound("abc"):
            logging.getLogger("loregraph.test").info("inside")
        logging.getLogger("loregraph.test").info("outside")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    inside, outside = stream.getvalue().splitlines()
    assert inside.endswith("INFO loregraph.test [abc] inside")
    assert outside.endswith("INFO loregraph.test [-] outside")

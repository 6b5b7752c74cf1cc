"""Clients that read an event stream slowly: one that stops reading does not hold up anyone
else nor hold a write lock, and the server ends its stream once a send has waited
``Limits.send_timeout`` (the store unchanged by the abandoned answer); one that reads
slowly but keeps reading gets the whole answer."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from loregraph import AsyncGraph
from loregraph.access import ALL_SCOPES, Role
from loregraph.answer.base import PieceStream
from loregraph.server import Limits, ServerConfig
from loregraph.streaming import StreamedAnswer

from .loopback import serving
from .unchanged import served_snapshot

PIECE = "x" * 65_536
"""A large piece of answer, so that the connection's buffers fill after a few."""
END_OF_BODY = b"\r\n0\r\n\r\n"
"""The last chunk of a chunked response: the stream was finished, not cut."""


class _Flood:
    """An answerer that writes large pieces (``limit`` of them, or for ever), and notes how
    far it got and when its stream is closed."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.pieces = 0
        self.closed = threading.Event()

    def stream(self, result: Any) -> PieceStream:
        async def pieces() -> AsyncGenerator[str, None]:
            try:
                while self.limit is None or self.pieces < self.limit:
                    self.pieces += 1
                    yield PIECE
            finally:
                self.closed.set()

        return PieceStream(pieces())


def _stalled_request(url: str, key: str) -> socket.socket:
    """``POST /ask`` sent on a socket with a small receive buffer, not read yet."""
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"question": "Where did Count Dracula live?"}).encode()
    head = (
        f"POST /ask HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall(head.encode() + body)
    return sock


def _until_closed(sock: socket.socket, until: bytes | None = None, pause: float = 0) -> bytes:
    """Everything the server sent, read until it closed the connection (or sent ``until``),
    ``pause`` seconds between reads of at most 16 KiB."""
    sock.settimeout(60)
    received = bytearray()
    while chunk := sock.recv(1 << 14):
        received += chunk
        if until is not None and until in received[-len(until) - len(chunk) :]:
            break
        threading.Event().wait(pause)
    return bytes(received)


def _wait(condition: Any, what: str) -> None:
    for _ in range(1200):  # a bound for a busy machine, not a measured time
        if condition():
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"never happened: {what}")


def _answering_with(
    flood: _Flood, secrets: dict[str, str], send_timeout: float
) -> Callable[[AsyncGraph], Awaitable[ServerConfig]]:
    """A server set-up: an administrator's key, answers written by ``flood``."""

    async def setup(graph: AsyncGraph) -> ServerConfig:
        made = await graph.access.create_key("admin", {ALL_SCOPES: Role.ADMIN})
        secrets["admin"] = made.secret

        def ask_stream(question: str, **options: Any) -> StreamedAnswer:
            retrieve = graph.retrieve(question, scope=options.get("scope"))
            return StreamedAnswer(question, lambda: retrieve, flood)  # type: ignore[arg-type]

        graph.ask_stream = ask_stream  # type: ignore[method-assign]
        return ServerConfig(limits=Limits(send_timeout=send_timeout))

    return setup


def test_a_reader_that_stops_reading_is_cut_off_and_blocks_no_one(tmp_path: Path) -> None:
    flood, secrets = _Flood(), {}
    with serving(tmp_path / "slow.db", _answering_with(flood, secrets, 1.0)) as served:
        headers = {"Authorization": f"Bearer {secrets['admin']}"}
        with httpx.Client(base_url=served.url, headers=headers, timeout=60) as http:
            before = served_snapshot(http)
            stalled = _stalled_request(served.url, secrets["admin"])
            try:
                _wait(lambda: flood.pieces > 2, "the answer began")
                # while the reader is stalled: reads and a write (in another scope) go on
                assert http.get("/search", params={"q": "Dracula castle"}).status_code == 200
                written = http.post(
                    "/memories", params={"scope": "elsewhere"}, json={"text": "Arthur rode."}
                )
                assert written.status_code == 201
                _wait(flood.closed.is_set, "the server ended the stalled stream")
                received = _until_closed(stalled)
            finally:
                stalled.close()
            assert received.startswith(b"HTTP/1.1 200")
            assert not received.endswith(END_OF_BODY)  # dropped, not finished
            assert served_snapshot(http) == before
            assert http.get("/stats", params={"scope": "elsewhere"}).json()["documents"] == 1


def test_a_reader_that_reads_slowly_gets_the_whole_answer(tmp_path: Path) -> None:
    flood, secrets = _Flood(limit=12), {}
    with serving(tmp_path / "slow.db", _answering_with(flood, secrets, 20.0)) as served:
        reader = _stalled_request(served.url, secrets["admin"])
        try:
            received = _until_closed(reader, until=END_OF_BODY, pause=0.01)
        finally:
            reader.close()
    assert received.startswith(b"HTTP/1.1 200") and received.endswith(END_OF_BODY)
    assert received.count(b"event: delta") == 12 and b"event: error" not in received
    assert flood.closed.is_set()

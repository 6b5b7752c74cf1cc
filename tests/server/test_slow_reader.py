"""A client that stops reading an event stream: the server goes on serving everyone else,
holds no write lock for it, and ends the stream itself once a send has waited
``Limits.send_timeout``; the store is unchanged by the abandoned answer."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import AsyncGenerator
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


class _Flood:
    """An answerer that writes large pieces for ever, and notes how far it got and when its
    stream is closed."""

    def __init__(self) -> None:
        self.pieces = 0
        self.closed = threading.Event()

    def stream(self, result: Any) -> PieceStream:
        async def pieces() -> AsyncGenerator[str, None]:
            try:
                while True:
                    self.pieces += 1
                    yield PIECE
            finally:
                self.closed.set()

        return PieceStream(pieces())


def _stalled_request(url: str, key: str) -> socket.socket:
    """``POST /ask`` sent on a socket whose owner never reads (a small receive buffer)."""
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


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sent, read until it closed the connection."""
    sock.settimeout(60)
    received = bytearray()
    while chunk := sock.recv(1 << 20):
        received += chunk
    return bytes(received)


def _wait(condition: Any, what: str) -> None:
    for _ in range(1200):  # a bound for a busy machine, not a measured time
        if condition():
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"never happened: {what}")


def test_a_reader_that_stops_reading_is_cut_off_and_blocks_no_one(tmp_path: Path) -> None:
    flood = _Flood()
    secrets: dict[str, str] = {}

    async def setup(graph: AsyncGraph) -> ServerConfig:
        made = await graph.create_key("admin", {ALL_SCOPES: Role.ADMIN})
        secrets["admin"] = made.secret

        def ask_stream(question: str, **options: Any) -> StreamedAnswer:
            retrieve = graph.retrieve(question, scope=options.get("scope"))
            return StreamedAnswer(question, lambda: retrieve, flood)  # type: ignore[arg-type]

        graph.ask_stream = ask_stream  # type: ignore[method-assign]
        return ServerConfig(limits=Limits(send_timeout=1.0))

    with serving(tmp_path / "slow.db", setup) as served:
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
            assert b"event: answer" not in received  # it was cut off, not finished
            assert served_snapshot(http) == before
            assert http.get("/stats", params={"scope": "elsewhere"}).json()["documents"] == 1

"""The API over a real socket: uvicorn on a free loopback port, as `loregraph serve` runs
it, asked for its OpenAPI document and a streamed answer."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

from .conftest import TEXT, events


class Served:
    """A server running in a thread on its own event loop."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.path = path
        self.server: uvicorn.Server | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        graph = AsyncGraph(SqliteStore(self.path), embedder=HashingEmbedder(dim=64))
        try:
            await graph.ingest_text(TEXT, title="Harker notes", source="notes")
            app = create_app(graph, ServerConfig(auth=False))
            config = uvicorn.Config(app, log_level="warning", lifespan="on")
            self.server = uvicorn.Server(config)
            self.ready.set()
            await self.server.serve(sockets=[self.sock])
        finally:
            self.ready.set()
            await graph.close()


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[Served]:
    running = Served(tmp_path / "served.db")
    running.thread.start()
    assert running.ready.wait(60)
    try:
        for _ in range(300):  # until it accepts connections
            try:
                httpx.get(running.url + "/health", timeout=1)
                break
            except httpx.TransportError:
                threading.Event().wait(0.05)
        yield running
    finally:
        if running.server is not None:
            running.server.should_exit = True
        running.thread.join(30)
        running.sock.close()


def test_openapi_and_a_streamed_answer_over_loopback(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        document = http.get("/openapi.json").json()
        assert {"/ask", "/ask/json", "/context", "/search", "/entity", "/path"} <= set(
            document["paths"]
        )
        question = {"question": "Where did Count Dracula live?"}
        with http.stream("POST", "/ask", json=question) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            text = "".join(response.iter_text())
    stream = events(text)
    assert stream[0][0] == "status" and stream[-1][0] == "answer"
    assert stream[-1][1]["citations"][0]["document_title"] == "Harker notes"

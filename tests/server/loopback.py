"""A server on a free loopback port, in a thread on its own event loop, as `loregraph
serve` runs it: the engine over a small store, configured by the test."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

from .conftest import TEXT

Setup = Callable[[AsyncGraph], Awaitable[ServerConfig]]
"""What a test does with the engine before serving it, and the server's configuration."""


class Served:
    """A server running in a thread on its own event loop."""

    def __init__(self, path: Path, setup: Setup) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.path = path
        self.setup = setup
        self.server: uvicorn.Server | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        graph = AsyncGraph(SqliteStore(self.path), embedder=HashingEmbedder(dim=64))
        try:
            await graph.ingest_text(TEXT, title="Harker notes", source="notes")
            app = create_app(graph, await self.setup(graph))
            config = uvicorn.Config(app, log_level="warning", lifespan="on")
            self.server = uvicorn.Server(config)
            self.ready.set()
            await self.server.serve(sockets=[self.sock])
        finally:
            self.ready.set()
            await graph.close()


@contextmanager
def serving(path: Path, setup: Setup) -> Iterator[Served]:
    """Start a server, wait until it accepts connections, stop it afterwards."""
    running = Served(path, setup)
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


async def without_keys(graph: AsyncGraph) -> ServerConfig:
    """Serve the store without keys, as `serve --no-auth` does."""
    return ServerConfig(auth=False)

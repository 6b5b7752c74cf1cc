"""The MCP tools over streamable HTTP at /mcp of the HTTP server, as an agent reaches them:
the official SDK's client against uvicorn on a loopback port, with the API's keys."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from loregraph import AsyncGraph
from loregraph.access import Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.server.mcp_http import mcp_mount
from loregraph.store.sqlite import SqliteStore

from .conftest import TEXT


class Served:
    """A server with the MCP endpoint, in a thread on its own event loop, and two keys."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.path = path
        self.server: uvicorn.Server | None = None
        self.ready = threading.Event()
        self.keys: dict[str, str] = {}
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        graph = AsyncGraph(SqliteStore(self.path), embedder=HashingEmbedder(dim=64))
        try:
            await graph.ingest_text(TEXT, title="Harker notes", source="notes")
            for name, role in (("agent", Role.WRITER), ("viewer", Role.READER)):
                self.keys[name] = (await graph.create_key(name, {"*": role})).secret
            config = ServerConfig(auth=True, mounts=(mcp_mount(graph, auth=True),))
            app = create_app(graph, config)
            self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
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
        for _ in range(300):
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


async def agent_session(served: Served, key: str) -> list[str]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.url + "/mcp", http_client=http)
        async with Client(transport) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            memory = await client.call_tool("remember", {"text": "Mina Murray wrote to Lucy."})
            assert not memory.is_error and isinstance(memory.structured_content, dict)
            hits = await client.call_tool("search", {"query": "Mina Lucy", "what": "memories"})
            assert not hits.is_error and isinstance(hits.structured_content, dict)
            found = hits.structured_content["hits"]
            assert found[0]["id"] == memory.structured_content["id"]
            answer = await client.call_tool("ask", {"question": "Where did Count Dracula live?"})
            assert not answer.is_error
    return names


def test_the_tools_over_http_with_a_key_that_may_write(served: Served) -> None:
    names = asyncio.run(agent_session(served, served.keys["agent"]))
    assert {"remember", "search", "ask", "entity", "path", "forget"} <= set(names)


def test_no_key_a_wrong_key_or_a_reading_key_is_refused(served: Served) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    none = httpx.post(served.url + "/mcp", json=body, timeout=10)
    assert none.status_code == 401 and none.json()["status"] == 401
    wrong = httpx.post(
        served.url + "/mcp", json=body, headers={"Authorization": "Bearer lg_nope"}, timeout=10
    )
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.json()["detail"]
    reader = {"Authorization": f"Bearer {served.keys['viewer']}"}
    refused = httpx.post(served.url + "/mcp", json=body, headers=reader, timeout=10)
    assert refused.status_code == 403 and "may not write" in refused.json()["detail"]

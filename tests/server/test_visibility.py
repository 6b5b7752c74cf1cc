"""Two keys with different principals get different, correct answers from the HTTP API and
from the MCP tools: each sees the graph built from the documents its principal may read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from loregraph import AsyncGraph
from loregraph.access import Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.server.mcp_http import mcp_mount
from loregraph.store.sqlite import SqliteStore

from .loopback import Served, serving

PUBLIC = "Grace Hopper worked at Harvard on the Mark I computer."
PRIVATE = "Grace Hopper married Vincent Hopper in Poughkeepsie."
PERSONAL = "Grace Hopper kept a nanosecond wire from Kenji Sato in her desk."


async def _documents(graph: AsyncGraph) -> None:
    await graph.ingest_text(PUBLIC, title="Harvard", visibility="public")
    await graph.ingest_text(PRIVATE, title="Family", visibility="private")
    await graph.ingest_text(PERSONAL, title="Desk", visibility="personal", owner="ann")


@pytest.fixture()
async def keys(tmp_path: Path) -> dict[str, httpx.AsyncClient]:
    graph = AsyncGraph(SqliteStore(tmp_path / "served.db"), embedder=HashingEmbedder(dim=64))
    await graph.open()
    await _documents(graph)
    clients = {}
    for name, role in (("bob", Role.READER), ("cy", Role.WRITER), ("ann", Role.READER)):
        secret = (await graph.access.create_key(name, {"default": role})).secret
        transport = httpx.ASGITransport(app=create_app(graph, ServerConfig()))
        clients[name] = httpx.AsyncClient(
            transport=transport,
            base_url="http://localhost",
            headers={"Authorization": f"Bearer {secret}"},
        )
    return clients


async def test_each_key_gets_what_its_principal_may_read(
    keys: dict[str, httpx.AsyncClient],
) -> None:
    expected = {"bob": ("Harvard",), "cy": ("Harvard", "Poughkeepsie"), "ann": ("Harvard", "wire")}
    hidden = {
        "bob": ("Poughkeepsie", "Vincent", "wire", "Kenji"),
        "cy": ("wire", "Kenji"),
        "ann": ("Poughkeepsie", "Vincent"),
    }
    for name, client in keys.items():
        documents = (await client.get("/documents")).json()
        stats = (await client.get("/stats")).json()
        assert stats["documents"] == len(documents) == len(expected[name])
        context = await client.post(
            "/context", json={"question": "Where did Grace Hopper live and work?"}
        )
        search = await client.get("/search", params={"q": "Grace Hopper Poughkeepsie wire Harvard"})
        entity = await client.get("/entity", params={"name": "Grace Hopper"})
        assert context.status_code == search.status_code == entity.status_code == 200
        seen = " ".join((context.text, search.text, entity.text, json.dumps(documents)))
        for word in hidden[name]:
            assert word not in seen, f"{name} saw {word!r}"
        for word in expected[name]:
            assert word in seen, f"{name} did not see {word!r}"
        vincent = await client.get("/entity", params={"name": "Vincent Hopper"})
        assert (vincent.status_code == 200) == (name == "cy"), name
        await client.aclose()


class Agents:
    """Two writing keys: ``ann`` owns the personal document, ``dan`` does not."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}

    async def setup(self, graph: AsyncGraph) -> ServerConfig:
        await _documents(graph)
        for name in ("ann", "dan"):
            self.keys[name] = (await graph.access.create_key(name, {"*": Role.WRITER})).secret
        return ServerConfig(auth=True, mounts=(mcp_mount(graph),))


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    agents = Agents()
    with serving(tmp_path / "served.db", agents.setup) as running:
        yield running, agents.keys


async def _agent_sees(served: Served, key: str) -> str:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.url + "/mcp", http_client=http)
        async with Client(transport) as client:
            seen = []
            for tool, arguments in (
                ("search", {"query": "Grace Hopper wire nanosecond desk"}),
                ("context", {"question": "What did Grace Hopper keep in her desk?"}),
                ("entity", {"name": "Grace Hopper"}),
            ):
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result
                seen.append(json.dumps(result.structured_content))
            kenji = await client.call_tool("entity", {"name": "Kenji Sato"})
            seen.append(f"kenji found: {not kenji.is_error}")
            return " ".join(seen)


def test_mcp_tools_answer_each_key_with_its_principal_s_view(
    served: tuple[Served, dict[str, str]],
) -> None:
    server, keys = served
    ann = asyncio.run(_agent_sees(server, keys["ann"]))
    dan = asyncio.run(_agent_sees(server, keys["dan"]))
    assert "nanosecond" in ann and "kenji found: True" in ann
    assert "nanosecond" not in dan and "Kenji" not in dan
    assert "kenji found: False" in dan and "Harvard" in dan

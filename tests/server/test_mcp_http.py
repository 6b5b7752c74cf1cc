"""The MCP tools over streamable HTTP at /mcp of the HTTP server, as an agent reaches them:
the official SDK's client against uvicorn on a loopback port, with the API's keys."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from loregraph import AsyncGraph
from loregraph.access import Role
from loregraph.server import ServerConfig
from loregraph.server.mcp_http import mcp_mount

from .loopback import Served, serving


class Agents:
    """The keys a test's server was given."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}

    async def setup(self, graph: AsyncGraph) -> ServerConfig:
        for name, role in (("agent", Role.WRITER), ("viewer", Role.READER)):
            self.keys[name] = (await graph.access.create_key(name, {"*": role})).secret
        self.keys["stranger"] = (
            await graph.access.create_key("stranger", {"other": Role.READER})
        ).secret
        return ServerConfig(auth=True, mounts=(mcp_mount(graph),))


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    agents = Agents()
    with serving(tmp_path / "served.db", agents.setup) as running:
        yield running, agents.keys


async def agent_session(served: Served, key: str) -> list[str]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.url + "/mcp", http_client=http)
        async with Client(transport) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            memory = await client.call_tool("remember", {"text": "Mina Murray wrote to Lucy."})
            assert not memory.is_error and isinstance(memory.structured_content, dict)
            mine = await client.call_tool(
                "remember", {"text": "Mina hid a letter.", "visibility": "personal"}
            )
            assert isinstance(mine.structured_content, dict)  # the key's principal owns it
            assert mine.structured_content["owner"] == "agent"
            hits = await client.call_tool("search", {"query": "Mina Lucy", "what": "memories"})
            assert not hits.is_error and isinstance(hits.structured_content, dict)
            found = hits.structured_content["hits"]
            assert found[0]["id"] == memory.structured_content["id"]
            answer = await client.call_tool("ask", {"question": "Where did Count Dracula live?"})
            assert not answer.is_error
    return names


def test_the_tools_over_http_with_a_key_that_may_write(
    served: tuple[Served, dict[str, str]],
) -> None:
    server, keys = served
    names = asyncio.run(agent_session(server, keys["agent"]))
    assert {"remember", "search", "ask", "entity", "path", "forget"} <= set(names)


async def reader_session(served: Served, key: str) -> list[str]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.url + "/mcp", http_client=http)
        async with Client(transport) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            hits = await client.call_tool("search", {"query": "Mina Lucy", "what": "memories"})
            assert not hits.is_error and isinstance(hits.structured_content, dict)
            assert hits.structured_content["hits"], "a reader reads what the agent remembered"
            refused = await client.call_tool("remember", {"text": "Lucy wrote back."})
            assert refused.is_error and "Unknown tool" in refused.content[0].text
    return names


def test_a_reading_key_gets_the_tools_that_read(
    served: tuple[Served, dict[str, str]],
) -> None:
    server, keys = served
    writer = asyncio.run(agent_session(server, keys["agent"]))
    reader = asyncio.run(reader_session(server, keys["viewer"]))
    assert {"search", "ask", "context", "entity", "history", "memories"} <= set(reader)
    assert not {"remember", "forget"} & set(reader)
    assert set(writer) - set(reader) == {"remember", "forget"}


def test_no_key_a_wrong_key_or_a_key_of_another_scope_is_refused(
    served: tuple[Served, dict[str, str]],
) -> None:
    server, keys = served
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    none = httpx.post(server.url + "/mcp", json=body, timeout=10)
    assert none.status_code == 401 and none.json()["status"] == 401
    wrong = httpx.post(
        server.url + "/mcp", json=body, headers={"Authorization": "Bearer lg_nope"}, timeout=10
    )
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.json()["detail"]
    stranger = {"Authorization": f"Bearer {keys['stranger']}"}
    refused = httpx.post(server.url + "/mcp", json=body, headers=stranger, timeout=10)
    assert refused.status_code == 403 and "may not read" in refused.json()["detail"]


async def without_keys(graph: AsyncGraph) -> ServerConfig:
    return ServerConfig(auth=False, mounts=(mcp_mount(graph),))


async def local_session(url: str, headers: dict[str, str], where: str) -> list[str]:
    """Initialise a session with the SDK's client, list the tools, remember and search."""
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(url + "/mcp", http_client=http)
        async with Client(transport) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            text = f"Mina Murray wrote to Lucy from {where}."
            memory = await client.call_tool("remember", {"text": text})
            assert not memory.is_error and isinstance(memory.structured_content, dict)
            hits = await client.call_tool("search", {"query": where, "what": "memories"})
            assert not hits.is_error and isinstance(hits.structured_content, dict)
            assert hits.structured_content["hits"][0]["id"] == memory.structured_content["id"]
            return names


def test_the_tools_over_http_without_keys(tmp_path: Path) -> None:
    with serving(tmp_path / "local.db", without_keys) as server:
        names = asyncio.run(local_session(server.url, {}, "Whitby"))
        assert {"remember", "search", "ask"} <= set(names)
        # from the server's own page (an agent in the explorer's origin) too
        again = asyncio.run(local_session(server.url, {"Origin": server.url}, "Exeter"))
        assert again == names


def test_mcp_refuses_other_hosts_and_origins(tmp_path: Path) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    json_headers = {"Accept": "application/json, text/event-stream"}
    with serving(tmp_path / "local.db", without_keys) as server:
        port = server.url.rsplit(":", 1)[1]
        rebound = {**json_headers, "Host": f"evil.example.com:{port}"}
        refused = httpx.post(server.url + "/mcp", json=body, headers=rebound, timeout=10)
        assert refused.status_code == 421
        assert refused.json()["type"] == "urn:loregraph:problem:unknown-host"
        assert httpx.get(server.url + "/mcp", headers=rebound, timeout=10).status_code == 421
        evil = {**json_headers, "Origin": "https://evil.example.com"}
        crossed = httpx.post(server.url + "/mcp", json=body, headers=evil, timeout=10)
        assert crossed.status_code == 403
        assert crossed.json()["type"] == "urn:loregraph:problem:forbidden"

"""One JSON form: the command line's ``--json``, the HTTP API and the MCP tools give the same
object for the same question about the same store (each is the result's ``to_dict()``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
from mcp import Client

from cli_runs import run
from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.mcp import build_server
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore
from tool_results import structured

REPORT = (
    "Ada Moreno works for Globex in Lisbon. Globex builds the Harbor ledger. "
    "Kenji Sato met Ada Moreno in Lisbon to review the Harbor ledger."
)


def _cli(db: Path, *args: str) -> Any:
    done = run(db, *args, "--json")
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


async def _served(db: Path) -> tuple[Any, Any, Any]:
    """What the HTTP API gives for three questions, checked to be what MCP gives."""
    graph = AsyncGraph(SqliteStore(db), embedder=HashingEmbedder(dim=64))
    await graph.open()
    try:
        await graph.ingest_text(REPORT, title="Harbor report")
        await graph.memories.remember("Kenji Sato moved to Porto.", tags=["moves"])
        app = create_app(graph, ServerConfig(auth=False))
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://localhost") as http,
            Client(build_server(graph)) as mcp,
        ):
            memories = (await http.get("/memories", params={"tag": "moves"})).json()
            tool = structured(await mcp.call_tool("memories", {"tags": ["moves"]}))
            assert memories and tool["memories"] == memories

            relations = (await http.get("/relations", params={"name": "Ada Moreno"})).json()
            tool = structured(await mcp.call_tool("relations", {"name": "Ada Moreno"}))
            assert relations["relations"] and tool == relations

            hood = (await http.get("/neighbors", params={"name": "Globex"})).json()
            tool = structured(await mcp.call_tool("neighbors", {"name": "Globex"}))
            assert hood["entities"] and tool == hood
    finally:
        await graph.close()
    return memories, relations, hood


def test_the_command_line_http_and_mcp_give_the_same_json(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    memories, relations, hood = asyncio.run(_served(db))
    assert _cli(db, "memories", "--tag", "moves") == memories
    assert _cli(db, "relations", "Ada Moreno") == relations
    assert _cli(db, "neighbors", "Globex") == hood

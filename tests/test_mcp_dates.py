"""The MCP tools read dates as the CLI and the HTTP API do: ISO 8601 or a phrase such as
"last month"; anything else is a tool error naming the argument and the accepted forms."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mcp import Client

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.mcp import build_server
from loregraph.store.sqlite import SqliteStore
from tool_results import structured


@pytest.fixture
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    graph = AsyncGraph(SqliteStore(str(tmp_path / "g.db")), embedder=HashingEmbedder(dim=64))
    await graph.open()
    await graph.ingest_text("Ada Moreno works for Globex in Lisbon.", title="Report")
    yield graph
    await graph.close()


async def test_tools_take_the_dates_the_cli_takes(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        memory = structured(
            await client.call_tool("remember", {"text": "Ada flew to Oslo.", "at": "yesterday"})
        )
        when = datetime.fromisoformat(memory["at"])
        assert when.date() == (datetime.now(UTC) - timedelta(days=1)).date()
        since = structured(await client.call_tool("memories", {"since": "last month"}))
        assert [m["id"] for m in since["memories"]] == [memory["id"]]
        day = when.date().isoformat()  # a date alone closing a range: its whole day
        until = structured(await client.call_tool("memories", {"until": day}))
        assert [m["id"] for m in until["memories"]] == [memory["id"]]
        near = await client.call_tool("neighbors", {"name": "Globex", "as_of": "last month"})
        assert not near.is_error, near.content
        bad = await client.call_tool("memories", {"since": "whenever"})
        assert bad.is_error
        message = bad.content[0].text
        assert "since: cannot read 'whenever' as a date" in message
        assert "ISO 8601" in message and "last month" in message

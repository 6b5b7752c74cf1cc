"""The MCP server, driven by the official SDK's client: in process, and over stdio as an
agent starts it (``loregraph --db FILE mcp``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from loregraph import AsyncGraph
from loregraph.access import Principal, Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.mcp import build_server
from loregraph.mcp.acting import serving
from loregraph.store.sqlite import SqliteStore
from tool_results import structured

TOOLS = {
    "ask",
    "context",
    "entity",
    "explore",
    "forget",
    "history",
    "impact",
    "memories",
    "neighbors",
    "passage",
    "path",
    "relations",
    "remember",
    "search",
    "suggest",
}
REPORT = (
    "Ada Moreno works for Globex in Lisbon. Globex builds the Harbor ledger. "
    "Kenji Sato met Ada Moreno in Lisbon to review the Harbor ledger."
)


@pytest.fixture
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    graph = AsyncGraph(SqliteStore(str(tmp_path / "g.db")), embedder=HashingEmbedder(dim=64))
    await graph.open()
    await graph.ingest_text(REPORT, title="Harbor report")
    yield graph
    await graph.close()


async def test_tools_are_described_for_an_agent(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object"
    assert tools["remember"].input_schema["required"] == ["text"]
    assert "as_of" in tools["path"].input_schema["properties"]
    assert tools["search"].annotations is not None and tools["search"].annotations.read_only_hint
    assert tools["forget"].annotations is not None and tools["forget"].annotations.destructive_hint


async def test_remember_takes_a_visibility_and_an_owner(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        args = {"text": "Ada keeps the ledger keys.", "visibility": "private", "owner": "ada"}
        memory = structured(await client.call_tool("remember", args))
        assert (memory["visibility"], memory["owner"]) == ("private", "ada")
        nobody = await client.call_tool("remember", {"text": "Ada hums.", "visibility": "personal"})
        assert nobody.is_error and "needs an owner" in str(nobody.content)
        with serving(Principal("kenji", {"*": Role.WRITER})):
            mine = structured(
                await client.call_tool(
                    "remember", {"text": "Kenji hums.", "visibility": "personal"}
                )
            )
        assert (mine["visibility"], mine["owner"]) == ("personal", "kenji")
        bad = await client.call_tool("remember", {"text": "x", "visibility": "secret"})
        assert bad.is_error


async def test_remember_search_ask_and_forget(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        memory = structured(
            await client.call_tool(
                "remember",
                {"text": "Kenji Sato moved to Osaka.", "at": "2026-01-15", "tags": ["moves"]},
            )
        )
        assert memory["at"] == "2026-01-15T00:00:00+00:00" and memory["tags"] == ["moves"]
        hits = structured(
            await client.call_tool(
                "search", {"query": "Where did Kenji Sato move?", "what": "memories"}
            )
        )["hits"]
        assert hits[0]["id"] == memory["id"]
        assert "Kenji Sato" in {e["name"] for e in hits[0]["entities"]}
        answer = structured(
            await client.call_tool("ask", {"question": "Who does Ada Moreno work for?"})
        )
        assert answer["found"] and "Globex" in answer["answer"] and answer["citations"]
        context = structured(await client.call_tool("context", {"question": "Harbor ledger"}))
        assert "Harbor" in context["context"]
        listed = structured(await client.call_tool("memories", {"tags": ["moves"]}))["memories"]
        assert [m["id"] for m in listed] == [memory["id"]]
        report = structured(await client.call_tool("forget", {"memory_id": memory["id"]}))
        assert report["document_id"] == memory["id"]
        assert structured(await client.call_tool("memories", {}))["memories"] == []


async def test_graph_tools_and_entity_resources(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        view = structured(await client.call_tool("entity", {"name": "Ada Moreno"}))
        assert view["name"] == "Ada Moreno" and view["relations"]
        near = structured(await client.call_tool("neighbors", {"name": "Ada Moreno", "hops": 2}))
        assert "Globex" in {e["name"] for e in near["entities"]}
        paths = structured(
            await client.call_tool("path", {"source": "Kenji Sato", "target": "Globex"})
        )["paths"]
        assert paths and paths[0]["entities"][0] == "Kenji Sato"
        listed = await client.list_resources()
        assert "loregraph://entities" in {str(r.uri) for r in listed.resources}
        read = await client.read_resource("loregraph://entity/Globex")
        assert '"Globex"' in read.contents[0].text


async def test_suggest_offers_the_documents_sharing_people_and_places(graph: AsyncGraph) -> None:
    await graph.ingest_text("Kenji Sato flew home from Lisbon.", title="Flight")
    await graph.ingest_text("The ferry crossed the bay at dawn.", title="Ferry")
    async with Client(build_server(graph)) as client:
        found = structured(await client.call_tool("suggest", {"document": "Harbor report"}))
        [flight] = found["suggestions"]
        assert flight["title"] == "Flight" and flight["reason"].startswith("also about ")
        assert {"Kenji Sato", "Lisbon"} <= {e["name"] for e in flight["shared"]}
        unknown = await client.call_tool("suggest", {"document": "Nowhere"})
        assert unknown.is_error and "no document 'Nowhere'" in unknown.content[0].text


async def test_errors_are_messages_an_agent_can_act_on(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        unknown = await client.call_tool("entity", {"name": "Zqxv Wyrtle"})
        assert unknown.is_error and "no entity named" in unknown.content[0].text
        blank = await client.call_tool("ask", {"question": "   "})
        assert blank.is_error and "empty" in blank.content[0].text
        bad_date = await client.call_tool("neighbors", {"name": "Globex", "as_of": "whenever"})
        assert bad_date.is_error and "cannot read 'whenever' as a date" in bad_date.content[0].text
        missing = await client.call_tool("forget", {"memory_id": "doc_nothing"})
        assert missing.is_error and "doc_nothing" in missing.content[0].text


async def test_read_only_offers_no_writing_tool(graph: AsyncGraph) -> None:
    async with Client(build_server(graph, read_only=True)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert names == TOOLS - {"remember", "forget"}


async def test_over_stdio_as_an_agent_starts_it(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "loregraph.cli", "--db", str(db), "mcp", "--max-result-chars", "2000"],
        env=dict(os.environ),  # the sources under test (PYTHONPATH), not only the SDK's few
    )
    async with Client(params, read_timeout_seconds=120) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"remember", "search", "ask", "entity", "path"} <= names
        memory = structured(
            await client.call_tool("remember", {"text": "The API server depends on Hono."})
        )
        hits = structured(
            await client.call_tool("search", {"query": "API server Hono", "what": "memories"})
        )["hits"]
        assert hits[0]["id"] == memory["id"]
        long = structured(await client.call_tool("remember", {"text": "Hono is fast. " * 400}))
        assert "cut" in long and len(long["text"]) < 400  # the option's cap, not the default
    assert db.exists()


async def test_an_agent_asks_an_indexed_repository_over_stdio(tmp_path: Path) -> None:
    repo = tmp_path / "repo" / "shop"
    repo.mkdir(parents=True)
    (repo / "__init__.py").write_text("")
    (repo / "pricing.py").write_text("def price_of(item):\n    return item['price']\n")
    (repo / "cart.py").write_text(
        "from shop.pricing import price_of\n\n\nclass Cart:\n    def total(self, items):\n"
        "        return sum(price_of(i) for i in items)\n\n    def report(self, items):\n"
        "        return f'{self.total(items)}'\n"
    )
    db = tmp_path / "code.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "loregraph.cli", "--db", str(db), "ingest", str(tmp_path / "repo")],
        env=dict(os.environ),
    )
    done = subprocess.run([params.command, *params.args], env=params.env, capture_output=True)
    assert done.returncode == 0, done.stderr
    params.args = ["-m", "loregraph.cli", "--db", str(db), "mcp"]
    async with Client(params, read_timeout_seconds=120) as client:
        hit = structured(await client.call_tool("impact", {"name": "shop.pricing.price_of"}))
        chain = [(d["name"], d["distance"], d["via"]) for d in hit["dependents"]]
        assert chain[:2] == [
            ("shop.cart.Cart.total", 1, "CALLS"),
            ("shop.cart.Cart.report", 2, "CALLS"),
        ]
        near = structured(await client.call_tool("neighbors", {"name": "shop.cart.Cart.total"}))
        assert {"shop.pricing.price_of", "shop.cart.Cart.report"} <= {
            e["name"] for e in near["entities"]
        }
        asked = {"question": "What calls price_of()?", "limit": 2}
        code = structured(await client.call_tool("explore", asked))
        first = code["symbols"][0]  # the function named, where it is, with its callers
        assert (first["name"], first["location"], first["found_by"]) == (
            "shop.pricing.price_of",
            "shop/pricing.py:1-2",
            "named",
        )
        assert first["callers"] == ["shop.cart.Cart.total"]
        assert first["code"] == "def price_of(item):\n    return item['price']"
        assert "## shop.pricing.price_of (Function) — shop/pricing.py:1-2" in code["text"]
        assert len(code["symbols"]) == 2

"""What an agent notices of the MCP tools (issue 28): a ``history`` tool, ``as_of`` and
``only`` where the CLI has them, the allowed presets and personas in the schema, results
cut to the server's cap with a note, one-line refusals, ``context`` as JSON, memory search
that finds nothing rather than unrelated memories. Driven by the official SDK's client in
process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.mcp import build_server
from loregraph.settings import PRESETS, Settings
from loregraph.store.sqlite import SqliteStore
from tool_results import structured

REPORT = (
    "Ada Moreno works for Globex in Lisbon. Globex builds the Harbor ledger. "
    "Kenji Sato met Ada Moreno in Lisbon to review the Harbor ledger."
)
EXPRESS = "The API server depends on Express."
HONO = "The API server now depends on Hono instead of Express."
PACKAGED = Path(__file__).parents[1] / "src" / "loregraph" / "data" / "personas"


@pytest.fixture
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    personas = tmp_path / "personas"
    personas.mkdir()
    text = (PACKAGED / "friend.yaml").read_text(encoding="utf-8")
    (personas / "neighbour.yaml").write_text(
        text.replace("name: friend", "name: neighbour"), encoding="utf-8"
    )
    graph = AsyncGraph(
        SqliteStore(str(tmp_path / "g.db")),
        embedder=HashingEmbedder(dim=64),
        settings=Settings(personas_dir=str(personas)),
    )
    await graph.open()
    await graph.ingest_text(REPORT, title="Harbor report")
    yield graph
    await graph.close()


async def remember_the_move(client: Client) -> None:
    for text, at in ((EXPRESS, "2026-01-15"), (HONO, "2026-02-10")):
        structured(await client.call_tool("remember", {"text": text, "at": at}))


def depends_on(view: dict[str, Any]) -> set[str]:
    return {r["target"] for r in view["relations"] if r["type"] == "DEPENDS_ON"}


async def test_history_tells_when_each_fact_held(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        await remember_the_move(client)
        found = structured(await client.call_tool("history", {"name": "API server"}))
        facts = {f["target"]: f for f in found["facts"] if f["type"] == "DEPENDS_ON"}
        assert found["entity"] == "API server"
        assert not facts["Express"]["current"] and facts["Hono"]["current"]
        assert facts["Express"]["invalid_at"].startswith("2026-02-10")
        between = structured(
            await client.call_tool("history", {"name": "API server", "other": "Hono"})
        )
        assert {f["target"] for f in between["facts"]} == {"Hono"}
        unknown = await client.call_tool("history", {"name": "Zqxv Wyrtle"})
        assert unknown.is_error and "no entity named" in unknown.content[0].text


async def test_entity_and_search_see_the_graph_as_of_a_date(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        await remember_the_move(client)
        now = structured(await client.call_tool("entity", {"name": "API server"}))
        then = structured(
            await client.call_tool("entity", {"name": "API server", "as_of": "2026-01-31"})
        )
        assert depends_on(now) == {"Hono"} and depends_on(then) == {"Express"}
        question = {"query": "What does the API server depend on?"}
        hits = structured(await client.call_tool("search", {**question, "as_of": "2026-01-31"}))
        titles = {h["title"] for h in hits["hits"]}
        assert EXPRESS in titles and HONO not in titles
        future = structured(
            await client.call_tool("entity", {"name": "API server", "as_of": "2999-01-01"})
        )
        assert depends_on(future) == {"Hono"}  # a later date is allowed (planned memories)


async def test_search_only_in_memories_or_only_in_documents(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        await client.call_tool("remember", {"text": "Kenji Sato moved to Osaka."})
        query = {"query": "Kenji Sato"}
        mine = structured(await client.call_tool("search", {**query, "only": "memories"}))
        theirs = structured(await client.call_tool("search", {**query, "only": "documents"}))
        assert [h["title"] for h in mine["hits"]] == ["Kenji Sato moved to Osaka."]
        assert [h["title"] for h in theirs["hits"]] == ["Harbor report"]
        clash = await client.call_tool("search", {**query, "what": "memories", "only": "documents"})
        assert clash.is_error and "only='documents'" in clash.content[0].text


async def test_the_schema_lists_the_presets_and_the_personas(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("ask", "context"):
            persona = tools[name].input_schema["properties"]["persona"]
            [text] = [b for b in persona["anyOf"] if b.get("type") == "string"]
            assert {"biographer", "colleague", "family", "friend", "neighbour"} == set(text["enum"])
        preset = tools["ask"].input_schema["properties"]["preset"]
        [text] = [b for b in preset["anyOf"] if b.get("type") == "string"]
        assert text["enum"] == sorted(PRESETS)
        wrong = await client.call_tool("ask", {"question": "Ada?", "preset": "fastest"})
        assert wrong.is_error and "known presets" in wrong.content[0].text


async def test_a_long_result_is_cut_with_a_note(graph: AsyncGraph) -> None:
    long = " ".join(f"Ada Moreno filed report number {n} in Lisbon." for n in range(5000))
    assert len(long) > 200_000
    async with Client(build_server(graph)) as client:  # the default cap
        result = await client.call_tool("remember", {"text": long})
        memory = structured(result)
        assert len(result.content[0].text) <= 40_000 and len(json.dumps(memory)) < 40_000
        assert memory["text"].startswith(long[:1000]) and memory["text"].endswith("…")
        assert memory["id"].startswith("doc_") and list(memory)[-1] == "cut"
        assert f"{len(long):,}" in memory["cut"] and "text" in memory["cut"]
        assert "stored whole" in memory["cut"]
        short = structured(await client.call_tool("remember", {"text": "Ada hums."}))
        assert "cut" not in short and short["text"] == "Ada hums."
    for n in range(40):
        await graph.memories.remember(f"Kenji Sato wrote note {n} about the Harbor ledger " * 20)
    async with Client(build_server(graph, result_chars=20_000)) as client:
        result = await client.call_tool("memories", {"limit": 500})
        listed = structured(result)
        assert len(result.content[0].text) <= 20_000 and list(listed)[-1] == "cut"
        assert "memories keeps" in listed["cut"] and "smaller limit" in listed["cut"]


async def test_a_refused_argument_is_one_line_naming_it(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        calls = {
            "visibility": ("remember", {"text": "x", "visibility": "secret"}),
            "limit": ("search", {"query": "Ada", "limit": 0}),
            "name": ("entity", {}),
        }
        for argument, (tool, args) in calls.items():
            refused = await client.call_tool(tool, args)
            message = refused.content[0].text
            assert refused.is_error and message.startswith(f"{tool}: {argument}: "), message
            assert "\n" not in message and "pydantic" not in message and "[type=" not in message
        assert (
            "'public', 'private' or 'personal'"
            in (await client.call_tool(*calls["visibility"])).content[0].text
        )


async def test_context_as_json_is_structured(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        args = {"question": "Who does Ada Moreno work for?", "format": "json"}
        found = structured(await client.call_tool("context", args))
        assert isinstance(found["context"], dict)
        assert found["context"]["question"] == args["question"]
        text = structured(await client.call_tool("context", {"question": args["question"]}))
        assert isinstance(text["context"], str) and "Globex" in text["context"]


async def test_memory_search_flags_the_memories_about_the_query(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        kenji = structured(
            await client.call_tool("remember", {"text": "Kenji Sato moved to Osaka."})
        )
        await client.call_tool("remember", {"text": "The API server depends on Hono."})
        about = {"query": "Where did Kenji Sato move?", "what": "memories"}
        hits = structured(await client.call_tool("search", about))["hits"]
        assert hits[0]["id"] == kenji["id"] and hits[0]["relevant"] is True
        assert [h["id"] for h in hits if h["relevant"]] == [kenji["id"]]
        unrelated = {"query": "quantum chromodynamics on a lattice", "what": "memories"}
        hits = structured(await client.call_tool("search", unrelated))["hits"]
        assert not any(h["relevant"] for h in hits)


async def test_a_cited_passage_can_be_read_by_its_id(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        answer = structured(await client.call_tool("ask", {"question": "Who does Ada work for?"}))
        cited = answer["citations"][0]
        found = structured(await client.call_tool("passage", {"chunk_id": cited["chunk_id"]}))
        assert found["document_title"] == "Harbor report" and "Globex" in found["text"]
        missing = await client.call_tool("passage", {"chunk_id": "chk_nothing"})
        assert missing.is_error and "chk_nothing" in missing.content[0].text


async def test_known_at_show_ended_and_planned_memories(graph: AsyncGraph) -> None:
    async with Client(build_server(graph)) as client:
        await remember_the_move(client)
        future = {"text": "The API server will depend on Bun.", "at": "2999-01-01"}
        refused = await client.call_tool("remember", future)
        assert refused.is_error and "planned" in refused.content[0].text
        planned = structured(await client.call_tool("remember", {**future, "planned": True}))
        assert planned["planned"]
        question = {"question": "What does the API server depend on?", "format": "json"}
        shown = structured(await client.call_tool("context", {**question, "show_ended": True}))
        ended = [r for r in shown["context"]["relations"] if r["ended"]]
        assert [(r["target"], r["replaced_by"]) for r in ended] == [("Express", "Hono")]
        name = {"name": "API server"}
        assert depends_on(structured(await client.call_tool("entity", name))) == {"Hono"}
        later = structured(await client.call_tool("entity", {**name, "as_of": "2999-06-01"}))
        assert "Bun" in depends_on(later)
        known = {**name, "known_at": "2020-01-01"}
        assert not structured(await client.call_tool("relations", known))["relations"]
        book = structured(
            await client.call_tool("entity", {"name": "Ada Moreno", "as_of": "2020-01-01"})
        )
        assert book["relations"]  # the report states no time: timeless

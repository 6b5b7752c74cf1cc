"""``--persona`` and ``--turn`` on the CLI, ``loregraph personas``, and the ``persona`` and
``history`` fields of the HTTP API and the MCP tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loregraph import AsyncGraph
from loregraph.access import Role
from loregraph.cli.app import main
from loregraph.mcp import build_server
from server.conftest import client, graph, problem  # noqa: F401 - fixtures

from .family_corpus import ROSE, STORIES

CUSTOM = """
system_prompt: You are a neighbour.
traversal: {max_hops: 1, relationship_weights: {acquaintance: 1.0}}
"""


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(scope="module")
def family_cli_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The family corpus ingested through the CLI (Rose Albright's scope)."""
    folder = tmp_path_factory.mktemp("stories")
    for n, (title, text) in enumerate(STORIES[ROSE]):
        (folder / f"{n}-{title.replace(' ', '-')}.txt").write_text(text, encoding="utf-8")
    db = folder / "family.db"
    result = cli("--db", str(db), "--scope", ROSE, "ingest", str(folder))
    assert result.exit_code == 0, result.output
    return db


def test_personas_lists_the_packaged_and_the_users(tmp_path: Path) -> None:
    listed = cli("personas")
    assert listed.exit_code == 0, listed.output
    names = [line.split()[0] for line in listed.output.splitlines()]
    assert names == ["biographer", "colleague", "family", "friend"]
    (tmp_path / "neighbour.yaml").write_text(CUSTOM, encoding="utf-8")
    env = {"LOREGRAPH_PERSONAS_DIR": str(tmp_path)}
    data = json.loads(cli("personas", "--json", env=env).output)
    neighbour = next(p for p in data if p["name"] == "neighbour")
    assert neighbour["max_hops"] == 1 and neighbour["relationship_weights"] == {"acquaintance": 1.0}
    (tmp_path / "broken.yaml").write_text("system_prompt: x\ntraversal: {max_hops: 9}\n")
    failed = cli("personas", env=env)
    assert failed.exit_code == 2
    assert "broken.yaml" in failed.output and "'traversal.max_hops'" in failed.output


def test_context_and_ask_through_a_persona(family_cli_db: Path, tmp_path: Path) -> None:
    db = ("--db", str(family_cli_db), "--scope", ROSE)
    question = "Tell me about her relationship with Jim Kowalski"
    shown = cli(*db, "context", question, "--persona", "family", "--turn", "Who was Rose Albright?")
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("## Context for the family persona")
    assert "Jim Kowalski is brother of Rose Albright (family)" in shown.output
    assert "matched by:" in shown.output
    plain = cli(*db, "context", question)
    assert "## Context for" not in plain.output
    answered = cli(*db, "ask", question, "--persona", "friend", "--json")
    assert answered.exit_code == 0, answered.output
    assert json.loads(answered.stdout)["found"]
    unknown = cli(*db, "ask", question, "--persona", "nobody")
    assert unknown.exit_code == 2 and "unknown persona 'nobody'" in unknown.output
    path = tmp_path / "neighbour.yaml"
    path.write_text(CUSTOM, encoding="utf-8")
    from_file = cli(*db, "context", question, "--persona", str(path))
    assert from_file.exit_code == 0, from_file.output
    assert from_file.output.startswith("## Context for the neighbour persona")


async def test_http_ask_and_context_take_a_persona_and_turns(client, graph: AsyncGraph) -> None:  # noqa: F811
    key = (await graph.access.create_key("family", {"default": Role.READER})).secret
    async with client(key) as http:
        body = {"question": "Who did she write letters to?", "persona": "family"}
        body["history"] = ["Tell me about Mina Harker"]
        response = await http.post("/context", json=body)
        assert response.status_code == 200, response.text
        text = response.json()["context"]
        assert text.startswith("## Context for the family persona") and "Lucy Westenra" in text
        answered = await http.post("/ask/json", json=body)
        assert answered.status_code == 200 and answered.json()["found"]
        assert "Lucy Westenra" in answered.json()["answer"]
        plain = await http.post("/context", json={"question": body["question"]})
        assert not plain.json()["context"].startswith("## Context for")
        unknown = await http.post("/context", json={**body, "persona": "nobody"})
        assert "unknown persona" in problem(unknown, 422, "invalid-input")["detail"]
        path = await http.post("/context", json={**body, "persona": "../etc/x.yaml"})
        problem(path, 422, "invalid-request")


async def test_mcp_ask_and_context_take_a_persona(graph: AsyncGraph) -> None:  # noqa: F811
    async with Client(build_server(graph)) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert {"persona", "history"} <= set(tools["context"].input_schema["properties"])
        assert {"persona", "history"} <= set(tools["ask"].input_schema["properties"])
        args = {"question": "Who did she write letters to?", "persona": "family"}
        args["history"] = ["Tell me about Mina Harker"]  # type: ignore[assignment]
        context = await mcp.call_tool("context", args)
        assert not context.is_error, context.content
        assert context.structured_content is not None
        assert context.structured_content["context"].startswith("## Context for the family")
        answer = await mcp.call_tool("ask", args)
        assert answer.structured_content is not None and answer.structured_content["found"]
        wrong = await mcp.call_tool("ask", {**args, "persona": "nobody"})
        assert wrong.is_error and "unknown persona" in str(wrong.content)

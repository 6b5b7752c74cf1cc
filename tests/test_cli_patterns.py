"""The graph query commands and methods: ``relations``, ``neighbors`` and ``path``, their
text, JSON, mermaid and GraphML output, and their answers to bad input."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

import loregraph
from cli_runs import as_json, run
from loregraph.errors import InputError, NotFoundError
from loregraph.models import Relation
from loregraph.store.sqlite import SqliteStore
from store.builders import Book
from store.contract_patterns import project_graph


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("patterns") / "kg.db"

    async def build() -> None:
        async with SqliteStore(path) as store:
            await project_graph(store)

    asyncio.run(build())
    return path


def test_relations_command(db: Path) -> None:
    found = as_json(db, "relations", "API Server")
    assert found["entity"] == "API Server"
    assert found["relations"][0] == {
        "direction": "out",
        "type": "DEPENDS_ON",
        "other": "Hono",
        "other_type": "software",
        "confidence": 0.9,
        "weight": 2.0,
        "fact": "",
        "evidence": ["The API server depends on Hono."] * 2,
    }
    assert {r["other"] for r in found["relations"]} == {"Hono", "Zod", "Web App"}
    into = as_json(db, "relations", "api server", "--in")
    assert [(r["direction"], r["type"], r["other"]) for r in into["relations"]] == [
        ("in", "CALLS", "Web App")
    ]
    out = as_json(db, "relations", "API Server", "--out", "--type", "DEPENDS_ON", "-n", "1")
    assert [r["other"] for r in out["relations"]] == ["Hono"]
    text = run(db, "relations", "TypeScript", "--type", "WRITTEN_IN")
    assert text.exit_code == 0
    assert "<-[WRITTEN_IN]- Hono [software]" in text.output
    assert "“Zod is TypeScript.”" in text.output


def test_neighbors_command_and_its_formats(db: Path) -> None:
    found = as_json(db, "neighbors", "Web App", "--hops", "2")
    assert {e["name"]: e["distance"] for e in found["entities"]} == {
        "Web App": 0,
        "API Server": 1,
        "Ops Team": 1,
        "Hono": 2,
        "Zod": 2,
    }
    assert found == json.loads(
        run(db, "neighbors", "Web App", "--hops", "2", "--format", "json").stdout
    )
    text = run(db, "neighbors", "Web App")
    assert text.exit_code == 0
    assert "Web App: 2 entities within 1 hop(s)" in text.output
    assert "Ops Team -[OWNS]-> Web App" in text.output
    mermaid = run(db, "neighbors", "Web App", "--format", "mermaid").stdout
    assert mermaid.startswith("graph TD\n") and '["Ops Team"]' in mermaid
    assert mermaid.count("-->|") == 2
    graphml = run(db, "neighbors", "Web App", "--hops", "2", "--format", "graphml").stdout
    root = ET.fromstring(graphml.encode("utf-8"))
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    assert len(root.findall(f"{ns}graph/{ns}node")) == 5
    assert len(root.findall(f"{ns}graph/{ns}edge")) == 4


def test_path_command(db: Path) -> None:
    found = as_json(db, "path", "Ops Team", "TypeScript", "--max-hops", "4")
    assert [p["length"] for p in found] == [4, 4]
    assert found[0]["entities"] == ["Ops Team", "Web App", "API Server", "Hono", "TypeScript"]
    assert found[0]["steps"][0] == {
        "source": "Ops Team",
        "type": "OWNS",
        "target": "Web App",
        "confidence": 1.0,
        "weight": 1.0,
        "evidence": "The ops team owns it.",
    }
    text = run(db, "path", "API Server", "TypeScript")
    assert text.exit_code == 0
    assert "1. API Server -[DEPENDS_ON]-> Hono -[WRITTEN_IN]-> TypeScript" in text.output
    assert "“Hono is TypeScript.”" in text.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["relations", "Nobody At All"], 5, "no entity named 'Nobody At All'"),
        (["neighbors", "Nobody At All"], 5, "no entity named"),
        (["path", "Nobody At All", "Hono"], 5, "no entity named"),
        (["path", "Hono", "Nobody At All"], 5, "no entity named"),
        (
            ["path", "Ops Team", "TypeScript"],
            5,
            "no path between 'Ops Team' and 'TypeScript' within 3 hops",
        ),
        (["path", "Hono", "Lint Tool", "--max-hops", "6"], 5, "no path between"),
        (["path", "Hono", "hono"], 2, "are the same entity"),
        (["path", "Hono", "Zod", "--max-hops", "0"], 2, "--max-hops"),
        (["neighbors", "Hono", "--hops", "7"], 2, "--hops"),
    ],
)
def test_bad_input_is_one_clear_message(db: Path, args: list[str], code: int, message: str) -> None:
    result = run(db, *args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unknown_name_suggests_close_names(db: Path) -> None:
    result = run(db, "relations", "Ops Teem Members")
    assert result.exit_code == 5
    assert "did you mean" in result.output and "Ops Team" in result.output


def test_the_blocking_api(db: Path) -> None:
    with loregraph.open(db) as graph:
        found = graph.explore.relations("API Server", direction="out", type="DEPENDS_ON")
        assert [link.other_name for link in found.links] == ["Hono", "Zod"]
        around = graph.explore.neighbors("Hono", hops=2)
        assert {e.name for e in around.ordered()} == {
            "Hono",
            "API Server",
            "Zod",
            "TypeScript",
            "Web App",
        }
        paths = graph.explore.path("Zod", "Web App", max_hops=2)
        assert [p.text() for p in paths] == ["Zod <-[DEPENDS_ON]- API Server <-[CALLS]- Web App"]
        with pytest.raises(NotFoundError, match="no path"):
            graph.explore.path("Zod", "Web App", max_hops=1)
        with pytest.raises(NotFoundError, match="no entity"):
            graph.explore.relations("Nobody At All")
        with pytest.raises(InputError):
            graph.explore.relations("Hono", direction="sideways")  # type: ignore[arg-type]
        with pytest.raises(InputError):
            graph.explore.neighbors("Hono", hops=0)
        later = graph.explore.path("Zod", "Web App", as_of=datetime.now(UTC) + timedelta(days=1))
        assert later  # a later as_of is allowed: nothing planned, so as now
        # the graph was written without world times: every relation holds at any time
        past = graph.explore.relations("Web App", as_of=datetime(2020, 1, 1))
        assert {link.other_name for link in past.links} == {"API Server", "Ops Team"}


def test_path_prints_each_route_once(db: Path) -> None:
    """The route is one line; below it, each step's evidence (not the route again)."""
    text = run(db, "path", "API Server", "Hono")
    assert text.exit_code == 0, text.output
    assert text.stdout.splitlines() == [
        "1. API Server -[DEPENDS_ON]-> Hono",
        "     DEPENDS_ON: “The API server depends on Hono.”",
    ]


def test_two_statements_of_one_fact_are_one_route(tmp_path: Path) -> None:
    """Documents stating one dated fact each hold a relation of their own (a statement):
    a path through that fact is one route, shown once."""
    path = tmp_path / "kg.db"

    async def build() -> None:
        async with SqliteStore(path) as store:
            book = Book("memo")
            chunk = book.chunk("Ann works at Acme. Ann still works at Acme.")
            ann, acme = book.entity("Ann", "person"), book.entity("Acme", "org")
            said = book.relate(ann, "WORKS_AT", acme, chunk=chunk, sentence="Ann works at Acme.")
            again = dataclasses.replace(said, id=Relation.make_id("default", ann.id, "WORKS_AT",
                                        acme.id, "other"), statement="other")  # fmt: skip
            book.relations.append(again)
            await store.write_document(book.bundle())

    asyncio.run(build())
    found = as_json(path, "path", "Ann", "Acme")
    assert [p["entities"] for p in found] == [["Ann", "Acme"]]
    lines = run(path, "path", "Ann", "Acme").stdout.splitlines()
    assert [line for line in lines if line[0].isdigit()] == ["1. Ann -[WORKS_AT]-> Acme"]

"""``--db context.json``: the JSON memory file through the command line, ``copy`` to and from
it without loss, and a file that is not a memory file refused without being overwritten."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import loregraph
from cli_runs import as_json, run
from loregraph.cli.app import main
from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.sqlite import SqliteStore
from store.contract_copy import rich_store, snapshot


def memory_file(path: Path) -> dict[str, Any]:
    """The memory file's JSON object (it must be valid JSON)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_remember_ingest_ask_and_entities_on_a_memory_file(tmp_path: Path) -> None:
    db = tmp_path / "ctx.json"
    first = as_json(db, "remember", "Alice Morgan lives in Berlin.", "--tag", "people")
    data = memory_file(db)
    assert {e["name"] for e in data["entities"]} >= {"Alice Morgan", "Berlin"}
    assert [d["id"] for d in data["documents"]] == [first["id"]]
    # a second run sees the first run's data, and adds to it
    notes = tmp_path / "notes.txt"
    notes.write_text("Bob Stone works for Acme Corporation in Paris.\n", encoding="utf-8")
    ingested = run(db, "ingest", str(notes))
    assert ingested.exit_code == 0, ingested.output
    assert [m["id"] for m in as_json(db, "memories", "--tag", "people")] == [first["id"]]
    names = {e["name"] for e in as_json(db, "entities")}
    assert {"Alice Morgan", "Berlin", "Bob Stone", "Paris"} <= names
    answer = run(db, "ask", "Where does Alice Morgan live?")
    assert answer.exit_code == 0, answer.output
    assert "Berlin" in answer.output
    data = memory_file(db)
    assert len(data["documents"]) == 2
    assert {e["name"] for e in data["entities"]} >= {"Alice Morgan", "Bob Stone"}
    # reading commands leave the file as it was
    written = db.read_bytes()
    assert run(db, "entities").exit_code == 0
    assert db.read_bytes() == written


def test_forget_removes_a_memory_from_the_file(tmp_path: Path) -> None:
    db = tmp_path / "ctx.json"
    kept = as_json(db, "remember", "Carol Reyes sails to Lisbon.")
    gone = as_json(db, "remember", "Dana Cole moved to Oslo.")
    assert run(db, "forget", gone["id"]).exit_code == 0
    data = memory_file(db)
    assert [d["id"] for d in data["documents"]] == [kept["id"]]
    assert "Dana Cole" not in {e["name"] for e in data["entities"]}


def test_copy_sqlite_to_a_memory_file_and_back_is_lossless(
    tmp_path: Path, records_file: Path
) -> None:
    source, middle, back = tmp_path / "a.db", tmp_path / "ctx.json", tmp_path / "b.db"
    ingested = run(source, "ingest", str(records_file))
    assert ingested.exit_code == 0, ingested.output
    assert run(source, "remember", "Teutberga was crowned in 855.").exit_code == 0
    for src, dest in ((source, middle), (middle, back)):
        copied = CliRunner().invoke(main, ["copy", str(src), str(dest)])
        assert copied.exit_code == 0, copied.output
        assert "the destination matches the source" in copied.output
    exports = []
    for db in (source, back):
        out = tmp_path / f"{db.stem}-export.json"
        assert run(db, "export", str(out)).exit_code == 0
        exports.append(json.loads(out.read_text(encoding="utf-8")))
    assert exports[0] == exports[1]
    assert exports[0]["entities"] and exports[0]["relations"]


def test_copy_round_trip_keeps_every_field_of_every_scope(tmp_path: Path) -> None:
    source, middle, back = tmp_path / "a.db", tmp_path / "ctx.json", tmp_path / "b.db"

    async def build() -> None:
        async with SqliteStore(source) as store:
            await rich_store(store)

    asyncio.run(build())
    for src, dest in ((source, middle), (middle, back)):
        copied = CliRunner().invoke(main, ["copy", str(src), str(dest)])
        assert copied.exit_code == 0, copied.output

    async def compare() -> None:
        async with (
            SqliteStore(source, read_only=True) as one,
            JsonFileStore(middle, read_only=True) as json_store,
            SqliteStore(back) as two,
        ):
            for scope in ("default", "other"):
                expected = await snapshot(one, scope)
                assert await snapshot(json_store, scope) == expected
                assert await snapshot(two, scope) == expected

    asyncio.run(compare())


@pytest.mark.parametrize(
    ("damage", "code", "problem"),
    [
        (lambda whole: whole[: len(whole) * 2 // 3], 7, "it is not valid JSON"),
        (lambda whole: b'{"entities": {}}', 7, "version: missing"),
        (lambda whole: b'{"version": 1, "entities": {}}', 7, "entities: expected a list"),
        (lambda whole: b'{"version": 99}', 3, "memory file version 99"),
    ],
    ids=["truncated", "no version", "wrong shape", "newer version"],
)
def test_a_damaged_memory_file_is_refused_and_kept(
    tmp_path: Path, damage: Callable[[bytes], bytes], code: int, problem: str
) -> None:
    db = tmp_path / "ctx.json"
    assert run(db, "remember", "Alice Morgan lives in Berlin.").exit_code == 0
    db.write_bytes(damage(db.read_bytes()))
    damaged = db.read_bytes()
    for args in (["remember", "Bob Stone lives in Paris."], ["ask", "Where?"], ["entities"]):
        result = run(db, *args)
        assert result.exit_code == code, result.output
        assert f"cannot open the JSON memory file {db}: " in result.output
        assert problem in result.output
        assert db.read_bytes() == damaged


def test_concurrent_remembers_all_reach_the_file(tmp_path: Path) -> None:
    db = tmp_path / "ctx.json"
    texts = ["Alice Morgan lives in Berlin.", "Bob Stone works in Paris.", "Carol Reyes sails."]
    command = [sys.executable, "-c", "from loregraph.cli.app import main; main()"]
    workers = [
        subprocess.Popen(
            [*command, "--db", str(db), "remember", text],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for text in texts
    ]
    for worker in workers:
        output, _ = worker.communicate(timeout=300)
        assert worker.returncode == 0, output.decode()
    data = memory_file(db)
    stored = [chunk["text"] for d in data["documents"] for chunk in d["chunks"]]
    assert sorted(stored) == sorted(texts)


def test_the_python_api_opens_a_memory_file(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    with loregraph.open(str(path)) as graph:
        memory = graph.memories.remember("Erin Walsh maintains the billing service.", tags=["team"])
    data = memory_file(path)
    assert [d["id"] for d in data["documents"]] == [memory.id]
    with loregraph.open(str(path)) as graph:
        assert [m.id for m in graph.memories.all(tags=["team"])] == [memory.id]

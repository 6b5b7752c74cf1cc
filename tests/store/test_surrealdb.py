"""The SurrealDB store on its embedded engines: the shared contract on ``mem://``, plus what
is specific to it (a ``surrealkv`` directory kept between openings, locations, conflicts).

No SurrealDB server can be installed from the registries here, so ``ws://`` and ``http://``
are only parsed, never connected to."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("surrealdb")

from cli_runs import as_json, run
from loregraph.cli.app import main
from loregraph.errors import ConfigError, SchemaVersionError, StoreError
from loregraph.location import Location
from loregraph.store import planned as planned_module
from loregraph.store.surreal import SurrealStore
from loregraph.store.surreal.connection import SurrealConnection, SurrealTarget

from .builders import Book, unit
from .contract import StoreContract, StoreFactory, shared_pair, star
from .contract_copy import snapshot
from .pg_cpu import emulator
from .scenarios import OpenedStores


@pytest.fixture
async def store_factory() -> AsyncIterator[StoreFactory]:
    stores = OpenedStores(lambda n: SurrealStore("mem://"))
    yield stores.make
    await stores.close()


class TestSurrealContract(StoreContract):
    """Every contract test against SurrealDB's in-memory engine."""

    visibility_default_cases = 1_000


# ----------------------------------------------------------------- locations
def test_locations_name_the_engine_and_hide_passwords(tmp_path: Path) -> None:
    path = tmp_path / "kg.surreal"
    assert SurrealTarget.parse(str(path)) == SurrealTarget("surrealkv", str(path))
    assert SurrealTarget.parse(f"surrealkv://{path}").sdk_url == f"surrealkv://{path}"
    assert SurrealTarget.parse("mem://").sdk_url == "mem://"
    remote = SurrealTarget.parse("ws://ann:s3cret@db.example:8000/team/graph")
    assert (remote.namespace, remote.database, remote.user) == ("team", "graph", "ann")
    assert "s3cret" not in remote.redacted() and "s3cret" not in repr(remote)
    assert SurrealTarget.parse("https://db.example").namespace == "loregraph"
    for bad in ("surrealkv://", "ws://db.example/a/b/c", "ftp://x", "notes.txt"):
        with pytest.raises(ConfigError):
            SurrealTarget.parse(bad)
    where = Location.parse(str(path))
    assert where.kind == "surreal" and where.file == path and not where.is_server
    assert not Location.parse("mem://").exists() and Location.parse("ws://h/a/b").is_server


# ----------------------------------------------------------------- a surrealkv directory
async def test_a_store_directory_keeps_everything_between_openings(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'kg.surreal'}"
    async with SurrealStore(url) as store:
        await shared_pair(store)
        await store.delete_document("doc-2")  # a removal: rewritten when it closes
        before = await snapshot(store, "default")
    async with SurrealStore(url) as store:
        after = await snapshot(store, "default")
        assert await store.get_document("doc-2") is None
    assert repr(after) == repr(before) and before["entities"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kg.surreal"]


async def test_a_rewrite_that_stopped_part_way_is_finished_when_opening(tmp_path: Path) -> None:
    path = tmp_path / "kg.surreal"
    async with SurrealStore(str(path)) as store:
        await star(store)
    # stopped after moving the old directory aside, before putting the new one in place
    path.rename(tmp_path / "kg.surreal.rewrite")
    (tmp_path / "kg.surreal.old").mkdir()
    async with SurrealStore(str(path)) as store:
        assert (await store.stats("default")).entities == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kg.surreal"]


async def test_a_database_of_other_data_or_a_newer_version_is_refused(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'other.surreal'}"
    conn = SurrealConnection(SurrealTarget.parse(url))
    await conn.open()
    await conn.run("CREATE invoice:1 SET total = 3")
    await conn.close()
    with pytest.raises(StoreError, match="not a loregraph store"):
        await SurrealStore(url).open()
    newer = f"surrealkv://{tmp_path / 'newer.surreal'}"
    async with SurrealStore(newer) as store:
        await store.connection.run("UPDATE meta:meta SET schema_version = $v", {"v": 99})
    with pytest.raises(SchemaVersionError):
        await SurrealStore(newer).open()


async def test_a_write_planned_before_another_writer_committed_is_planned_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with SurrealStore("mem://") as store:
        first = Book("doc-1")
        first.entity("Alice Morgan", mentions=[(first.chunk("Alice Morgan sailed."), 1)])
        await store.write_document(first.bundle())
        planned = planned_module.plan_write
        moved = []

        async def plan_then_move(reads: object, bundle: object) -> object:
            plan = await planned(reads, bundle)  # type: ignore[arg-type]
            if not moved:  # another writer commits between these reads and this write
                moved.append(await store.connection.run("UPDATE meta:meta SET seq += 1"))
            return plan

        monkeypatch.setattr(planned_module, "plan_write", plan_then_move)
        second = Book("doc-2")
        second.entity("Alice Morgan", mentions=[(second.chunk("Alice Morgan again."), 1)])
        await store.write_document(second.bundle())
        [alice] = await store.list_entities("default")
        assert moved and alice.mention_count == 2


async def test_a_vector_of_another_dimension_is_refused() -> None:
    async with SurrealStore("mem://") as store:
        await shared_pair(store)
        with pytest.raises(ConfigError, match="dimension"):
            await store.search_entities_vector("default", unit(0, 3), 5)


# ----------------------------------------------------------------- the command line
def test_the_command_line_answers_like_sqlite_and_copies_both_ways(tmp_path: Path) -> None:
    excerpt = Path(__file__).resolve().parents[1] / "fixtures" / "dracula_excerpt.txt"
    surreal, sqlite = f"surrealkv://{tmp_path / 'x.surreal'}", tmp_path / "y.db"
    for db in (surreal, sqlite):
        assert run(db, "ingest", str(excerpt)).exit_code == 0
    question = "Where does Harker travel to meet the Count?"
    found = {db: as_json(db, "search", "-k", "5", question) for db in (surreal, sqlite)}
    assert _ids(found[surreal])[:3] == _ids(found[sqlite])[:3] and _ids(found[sqlite])
    copied = tmp_path / "copied.db"
    done = CliRunner().invoke(main, ["copy", str(tmp_path / "x.surreal"), str(copied)])
    assert done.exit_code == 0 and "the destination matches the source" in done.output
    back = tmp_path / "back.surreal"
    done = CliRunner().invoke(main, ["copy", str(copied), str(back)])
    assert done.exit_code == 0 and "the destination matches the source" in done.output
    assert _ids(as_json(str(back), "search", "-k", "5", question)) == _ids(found[surreal])


def _ids(found: Any) -> list[str]:
    hits = found["hits"] if isinstance(found, dict) else found
    return [hit.get("id") or hit.get("document_id") for hit in hits]


# ----------------------------------------------------------------- CPUs without AVX-512
CPU_CHECK = """
import asyncio, os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from store.scenarios import shared_pair
from loregraph.store.surreal import SurrealStore

async def main() -> None:
    async with SurrealStore("mem://") as store:
        await shared_pair(store)
        near = await store.search_entities_vector("default", np.eye(8, dtype=np.float32)[0], 1)
        text = await store.search_chunks_text("default", "harbour", 1)
        print(round(near[0].score, 4), text[0].id)

asyncio.run(main())
sys.stdout.flush()
os._exit(0)  # the SDK's worker threads may print a panic at interpreter teardown: not a CPU fault
"""


def test_the_embedded_engine_runs_without_avx512() -> None:
    """The engine's binary (HNSW, BM25) on a CPU without AVX-512: under ``qemu-x86_64 -cpu
    Haswell`` on x86-64, natively on aarch64 (a dependency's binary built for a newer CPU
    dies with SIGILL there, as one PostgreSQL build did)."""
    prefix = emulator()
    if prefix is None:
        pytest.skip("no qemu-x86_64 (`make qemu`) and not aarch64: nothing to run it on")
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [*prefix, sys.executable, "-c", CPU_CHECK, str(tests)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    said = [line for line in done.stderr.splitlines() if "TCG doesn't support" not in line]
    assert done.returncode == 0, f"exit {done.returncode}: " + "\n".join(said[-30:])
    assert done.stdout.split() == ["1.0", "doc-1#c0"]

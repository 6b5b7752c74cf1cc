"""The JSON memory file store: the shared contract, run so that every write goes through the
file (each write is followed by writing the file and reading it back into a fresh store),
plus what is specific to one JSON file."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from loregraph.access import Grant, ScopeLink
from loregraph.errors import StoreError
from loregraph.models import DeleteReport, DocumentBundle, Relation
from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.jsonfile import autosave as autosave_module
from loregraph.store.jsonfile.layout import VERSION, Contents, embedded, file_document
from loregraph.store.sqlite import SqliteStore

from .builders import Book, unit
from .contract import StoreContract, StoreFactory, shared_pair
from .contract_scores import scores, two_listings
from .scenarios import OpenedStores


class ThroughTheFile(JsonFileStore):
    """A memory file store that writes its file and reads it back after every write, so
    that the contract checks what survives the file, not only the store in memory."""

    async def round_trip(self) -> None:
        await self.close()
        await self.open()

    async def write_document(self, bundle: DocumentBundle) -> None:
        await super().write_document(bundle)
        await self.round_trip()

    async def delete_document(
        self, document_id: str, *, ends: Sequence[Relation] = ()
    ) -> DeleteReport:
        report = await super().delete_document(document_id, ends=ends)
        await self.round_trip()
        return report

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        await super().invalidate_relation(relation_id, invalid_at, by=by)
        await self.round_trip()

    async def add_grant(self, grant: Grant) -> None:
        await super().add_grant(grant)
        await self.round_trip()

    async def remove_grant(self, principal: str, scope: str) -> bool:
        removed = await super().remove_grant(principal, scope)
        await self.round_trip()
        return removed

    async def add_scope_link(self, link: ScopeLink) -> None:
        await super().add_scope_link(link)
        await self.round_trip()

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        removed = await super().remove_scope_link(scope, linked)
        await self.round_trip()
        return removed


@pytest.fixture
async def store_factory(tmp_path: Path) -> AsyncIterator[StoreFactory]:
    stores = OpenedStores(lambda n: ThroughTheFile(tmp_path / f"store-{n}.json"))
    yield stores.make
    await stores.close()


class TestJsonFileContract(StoreContract):
    """The shared store contract against :class:`JsonFileStore`, through the file."""

    visibility_default_cases = 1_000
    """The SQLite store runs the full 10,000; this one is SQLite in memory."""


def load(path: Path) -> dict[str, Any]:
    """The file's JSON object."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def comparable(contents: Contents) -> tuple[object, ...]:
    """Everything ``contents`` holds, vectors as lists, for comparing with ``==``."""
    chunks, entities = embedded(contents)
    vectors = [(i, [float(x) for x in v]) for i, v in [*chunks, *entities]]
    return file_document(contents, None), vectors


async def contents_of(path: Path) -> Contents:
    """What a memory file holds, read by a store opened read-only."""
    async with JsonFileStore(path, read_only=True) as store:
        return await store.contents()


async def test_the_file_is_readable_json_with_separate_sections(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    data = load(path)
    assert (data["format"], data["version"]) == ("loregraph memory file", VERSION)
    assert list(data) == [
        "format", "version", "entities", "relationships", "documents", "merge_decisions",
        "audit_log", "api_keys", "grants", "scope_links", "vectors", "graph_versions",
    ]  # fmt: skip
    alice = next(e for e in data["entities"] if e["name"] == "Alice Morgan")
    assert (alice["type"], alice["description"], alice["tags"], alice["properties"]) == (
        "person", "A ship captain who writes letters to her friends.", [], {},
    )  # fmt: skip
    met = next(r for r in data["relationships"] if r["type"] == "MET")
    assert (met["source"], met["target"]) == ("Alice Morgan", "Bob Stone")
    assert {d["title"] for d in data["documents"]} == {"Harbour logs", "Letters"}
    assert "embedding" not in json.dumps(data)
    beside = sorted(p.name for p in tmp_path.iterdir() if p.name != "context.json")
    assert beside == [".context.json.lock", data["vectors"]["file"]]


async def test_reopening_gives_back_the_same_store_and_leaves_the_file_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        ids = await shared_pair(store)
        before = await store.contents()
    written, stamp = path.read_bytes(), path.stat().st_mtime_ns
    async with JsonFileStore(path) as store:
        assert (await store.stats("default")).entities == 4
        hits = await store.search_entities_vector("default", unit(3), 1)
        assert hits[0].id == ids["city"]
        after = await store.contents()
    assert comparable(after) == comparable(before)
    assert path.read_bytes() == written and path.stat().st_mtime_ns == stamp


async def test_a_read_only_store_never_writes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    written = path.read_bytes()
    async with JsonFileStore(path, read_only=True) as store:
        await store.delete_document("doc-1")
    assert path.read_bytes() == written
    with pytest.raises(StoreError, match="no store file"):
        await JsonFileStore(tmp_path / "missing.json", read_only=True).open()


async def test_entries_written_by_hand_are_loaded_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "entities": [
                    {
                        "name": "Ada Lovelace",
                        "type": "Person",
                        "description": "Wrote the first published program.",
                        "tags": ["maths"],
                        "properties": {"born": 1815},
                    },
                    {"name": "Analytical Engine", "type": "Product"},
                ],
                "relationships": [
                    {"source": "Ada Lovelace", "target": "analytical engine", "type": "WROTE_ABOUT"}
                ],
            }
        ),
        encoding="utf-8",
    )
    async with JsonFileStore(path) as store:
        found = await store.find_entities_by_key("default", ["ada lovelace"])
        ada = found["ada lovelace"]
        assert ada.description == "Wrote the first published program."
        [relation] = await store.entity_relations(ada.id)
        assert relation.type == "WROTE_ABOUT"
        hits = await store.search_entities_text("default", "published program", 5)
        assert hits[0].id == ada.id
        [document] = await store.list_documents("default")
        assert document.title == "entries written by hand in agent.json"
        book = Book("doc-1", title="Notes")
        chunk = book.chunk("Ada Lovelace met Charles Babbage.")
        book.entity("Charles Babbage", mentions=[(chunk, 1)])
        await store.write_document(book.bundle())
    data = load(path)
    ada_record = next(e for e in data["entities"] if e["name"] == "Ada Lovelace")
    assert (ada_record["tags"], ada_record["properties"]) == (["maths"], {"born": 1815})
    assert len(data["documents"]) == 2
    again = await contents_of(path)
    assert {e.name for e in again.entities} == {
        "Ada Lovelace", "Analytical Engine", "Charles Babbage",
    }  # fmt: skip
    async with JsonFileStore(path) as store:
        await store.delete_document(document.id)
    data = load(path)
    assert [e["name"] for e in data["entities"]] == ["Charles Babbage"]
    assert data["relationships"] == []


async def test_a_new_sidecar_replaces_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    first = load(path)["vectors"]["file"]
    async with JsonFileStore(path) as store:
        await store.delete_document("doc-2")
    second = load(path)["vectors"]["file"]
    assert first != second
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".context.json.lock", "context.json", second]


async def test_a_missing_sidecar_loses_only_the_vectors(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    (tmp_path / load(path)["vectors"]["file"]).unlink()
    async with JsonFileStore(path, read_only=True) as store:
        assert (await store.stats("default")).entities == 4
        assert await store.search_entities_vector("default", unit(3), 1) == []
    assert "cannot be read" in caplog.text


async def test_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        book = Book("doc-0", title="Before")
        book.entity("Dora Vale", mentions=[(book.chunk("Dora Vale arrived."), 1)])
        await store.write_document(book.bundle())
    first = JsonFileStore(path, autosave=False)
    await first.open()
    second = JsonFileStore(path)
    try:
        await shared_pair(first)
        opening = asyncio.create_task(second.open())
        await asyncio.sleep(0.3)
        assert not opening.done()  # waiting for the first writer
        async with JsonFileStore(path, read_only=True) as reader:  # readers do not wait
            assert (await reader.stats("default")).documents == 1  # the file as it is
    finally:
        await first.close()
    await opening
    try:
        assert (await second.stats("default")).documents == 3  # with what the first wrote
        stuck = JsonFileStore(path)
        stuck._lock.wait = 0.2
        with pytest.raises(StoreError, match="has been writing"):
            await stuck.open()
    finally:
        await second.close()


async def test_editing_a_derived_description_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    async with JsonFileStore(path, read_only=True):
        pass
    assert "differ from what their documents give" not in caplog.text
    data = load(path)
    data["entities"][0]["description"] = "Edited by hand."
    path.write_text(json.dumps(data), encoding="utf-8")
    async with JsonFileStore(path, read_only=True):
        pass
    assert "the description or aliases of 1 entities" in caplog.text


async def test_names_types_facts_and_dates_edited_by_hand_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        ids = await shared_pair(store)
    data = load(path)
    bob = next(e for e in data["entities"] if e["id"] == ids["bob"])
    bob.update(name="Robert Stone", type="captain")
    met = next(r for r in data["relationships"] if r["type"] == "MET")
    met.update(target="Robert Stone", fact="They met in 1890.", valid_at="1890-05-01")
    path.write_text(json.dumps(data), encoding="utf-8")
    async with JsonFileStore(path) as store:
        [robert] = await store.get_entities([ids["bob"]])
        assert (robert.name, robert.type) == ("Robert Stone", "captain")
        [relation] = await store.get_relations([met["id"]])
        assert relation.fact == "They met in 1890."
        assert relation.valid_at is not None and relation.valid_at.year == 1890
        other = Book("doc-3")  # a change: the file is written again
        other.entity("Dora Vance", mentions=[(other.chunk("Dora Vance rows."), 1)])
        await store.write_document(other.bundle())
    again = load(path)
    assert next(e for e in again["entities"] if e["id"] == ids["bob"])["name"] == "Robert Stone"
    kept = next(r for r in again["relationships"] if r["id"] == met["id"])
    assert (kept["target"], kept["fact"]) == ("Robert Stone", "They met in 1890.")


CARRIED = {
    # what document bundles carry (read_bundle / write_document)
    "documents", "chunks", "chunk_vectors", "entities", "entity_vectors",
    "entity_descriptions", "entity_aliases", "mentions", "relations", "relation_evidence",
    "merges",
    # the file's own sections for what belongs to no document
    "ledger",  # merge decisions, the audit log, API keys, grants and scope links
    # restored after the load (graph versions) or written by the store itself
    "meta",
    # derived from the tables above by the writer
    "chunks_fts", "entities_fts", "relations_fts", "chunks_trigram", "chunks_trigram_vocab",
    # no longer read (the LLM response cache has its own file)
    "llm_cache",
}  # fmt: skip


async def test_every_sqlite_table_is_carried_by_the_file(tmp_path: Path) -> None:
    """The file holds what document bundles carry; a table added to the SQLite schema for a
    new kind of record must be carried too (through ``read_bundle`` or the file's layout)
    before it is added here, or that record would be lost at the end of every command."""
    async with SqliteStore(tmp_path / "kg.db") as store:
        rows: list[tuple[str, str]] = await store._db.run(
            lambda conn: conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            ).fetchall()
        )
    virtual = [name for name, sql in rows if sql.startswith("CREATE VIRTUAL")]
    tables = {
        name
        for name, _ in rows
        if not name.startswith("sqlite_") and not name.startswith(tuple(f"{v}_" for v in virtual))
    }
    assert {"documents", "merges"} <= tables
    assert tables - CARRIED == set(), "tables the JSON memory file does not carry"


async def test_a_change_is_written_as_soon_as_it_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "context.json"

    async def on_disk() -> int:
        async with JsonFileStore(path, read_only=True) as reader:
            return (await reader.stats("default")).documents

    store = JsonFileStore(path)
    await store.open()
    try:
        book = Book("doc-0", title="First")
        book.entity("Dora Vale", mentions=[(book.chunk("Dora Vale arrived."), 1)])
        await store.write_document(book.bundle())
        assert await on_disk() == 1  # before close: a process killed now keeps it
        # right after a write, the next one waits for its timer
        monkeypatch.setattr(autosave_module, "SAVE_SPACING", 2.0 / store._autosave._last[1])
        await shared_pair(store)
        assert await on_disk() == 1
        for _ in range(200):  # then it comes, before close
            if await on_disk() == 3:
                break
            await asyncio.sleep(0.05)
        assert await on_disk() == 3
    finally:
        await store.close()


async def test_a_version_3_file_lists_entities_with_the_entitys_scores(tmp_path: Path) -> None:
    """Before layout 4 a document's entities had no salience or confidence of their own:
    they read as the entity's, so no value is lost (nor lowered by a delete)."""
    path = tmp_path / "old.json"
    async with JsonFileStore(path) as store:
        await two_listings(store, high_first=True)
    data = json.loads(path.read_text(encoding="utf-8"))
    listed = [entry for doc in data["documents"] for entry in doc["entities"]]
    assert sorted((e["salience"], e["confidence"]) for e in listed) == [(2.0, 0.4), (5.0, 0.9)]
    for entry in listed:
        del entry["salience"], entry["confidence"]
    data["version"] = 3
    path.write_text(json.dumps(data), encoding="utf-8")
    async with JsonFileStore(path) as store:
        assert await scores(store) == (5.0, 0.9)
        bundle = await store.read_bundle("doc-low")
        assert bundle is not None and bundle.entities[0].entity.salience == 5.0
        await store.delete_document("doc-high")
        assert await scores(store) == (5.0, 0.9)
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == VERSION

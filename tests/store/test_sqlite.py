"""The SQLite store: the shared contract, plus what is specific to one SQLite file."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from loregraph.access import Grant, Role, ScopeLink
from loregraph.errors import LoregraphError, SchemaVersionError, StoreError
from loregraph.models import Entity
from loregraph.store.base import SCHEMA_VERSION
from loregraph.store.sqlite import SqliteStore
from loregraph.store.sqlite import apply as write_module
from loregraph.store.sqlite import migrations as migrations_module

from . import old_records
from .builders import Book, unit
from .contract import StoreContract, StoreFactory, day, shared_pair, star
from .contract_scores import listing, scores, two_listings
from .contract_temporal import forget_fails_inside_the_delete
from .scenarios import OpenedStores

FTS_TABLES = ("chunks_fts", "entities_fts", "relations_fts", "chunks_trigram")


@pytest.fixture
async def store_factory(tmp_path: Path) -> AsyncIterator[StoreFactory]:
    stores = OpenedStores(lambda n: SqliteStore(tmp_path / f"store-{n}.db"))
    yield stores.make
    await stores.close()


class TestSqliteContract(StoreContract):
    """The shared store contract against :class:`SqliteStore`."""


def raw(path: Path) -> sqlite3.Connection:
    """A plain connection to a store file, to inspect or tamper with it."""
    return sqlite3.connect(path, isolation_level=None)


def check_integrity(path: Path) -> None:
    """SQLite's integrity and foreign-key checks, and FTS5's check of every full-text index
    (which fails when an index is out of sync with its table)."""
    conn = raw(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        for table in FTS_TABLES:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    finally:
        conn.close()


async def test_reopen_keeps_data_and_version(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "graph.db"
    async with SqliteStore(path) as store:
        ids = await shared_pair(store)
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert (await store.stats("default")).entities == 4
        hits = await store.search_entities_vector("default", unit(3), 1)
        assert hits[0].id == ids["city"]
    conn = raw(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path):
        pass
    conn = raw(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION + 1,))
    conn.close()
    with pytest.raises(SchemaVersionError) as info:
        await SqliteStore(path).open()
    message = str(info.value)
    assert str(SCHEMA_VERSION + 1) in message and str(SCHEMA_VERSION) in message
    assert "upgrade loregraph" in message


async def test_older_schema_is_migrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path):
        pass
    conn = raw(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION - 1,))
    conn.close()
    calls: list[int] = []

    def migrate(conn: sqlite3.Connection) -> None:
        calls.append(1)
        conn.execute("INSERT INTO meta(key, value) VALUES ('migrated', 1)")

    monkeypatch.setitem(migrations_module.MIGRATIONS, SCHEMA_VERSION - 1, migrate)
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
    conn = raw(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'migrated'").fetchone() == (1,)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        SCHEMA_VERSION,
    )
    conn.close()
    assert calls == [1]


async def test_text_file_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, not a database\n" * 50)
    with pytest.raises(LoregraphError, match="not a database"):
        await SqliteStore(path).open()
    assert path.read_text().startswith("just some notes")


async def test_foreign_sqlite_database_is_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = raw(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.close()
    with pytest.raises(StoreError, match="not a loregraph store"):
        await SqliteStore(path).open()


async def test_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory"):
        await SqliteStore(tmp_path).open()


async def test_closed_store_refuses_calls_and_closes_twice(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "graph.db")
    with pytest.raises(StoreError, match="not open"):
        await store.stats("default")
    await store.open()
    await store.close()
    await store.close()
    with pytest.raises(StoreError):
        await store.get_document("x")


async def test_memory_store() -> None:
    async with SqliteStore(":memory:") as store:
        ids = await shared_pair(store)
        assert (await store.search_entities_fuzzy("default", "Alice Morgn", 1))[0].id == ids[
            "alice"
        ]


async def test_full_text_indexes_stay_in_sync(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        ids = await shared_pair(store)
        check_integrity(path)
        rewrite = Book("doc-2", title="Renamed letters")
        c = rewrite.chunk("Bob Stone wrote back.")
        rewrite.entity("Bob Stone", description="Writes back.", mentions=[(c, 1)])
        await store.write_document(rewrite.bundle())
        check_integrity(path)
        await store.invalidate_relation(ids["met"], day(5))
        await store.delete_document("doc-1")
        check_integrity(path)
        await store.delete_document("doc-2")
        check_integrity(path)
        conn = raw(path)
        for table in ("entities_fts", "relations_fts"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
        tables = ("entity_aliases", "entity_descriptions", "relation_evidence", "merges")
        for table in tables:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
        conn.close()


async def test_vector_index_reloads_after_another_process_writes(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as reader, SqliteStore(path) as writer:
        await shared_pair(writer)
        assert (await reader.search_entities_vector("default", unit(3), 1))[0].score == 1.0
        book = Book("doc-3")
        c = book.chunk("Zed.")
        zed = book.entity("Zed", mentions=[(c, 1)], vector=unit(6))
        await writer.write_document(book.bundle())
        assert (await reader.search_entities_vector("default", unit(6), 1))[0].id == zed.id


async def test_relation_without_evidence_counts_once(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        book = Book("doc-1")
        c = book.chunk("Ann and Bo.")
        ann = book.entity("Ann", mentions=[(c, 1)])
        bo = book.entity("Bo", mentions=[(c, 1)])
        relation = book.relate(ann, "KNOWS", bo)
        await store.write_document(book.bundle())
        [stored] = await store.get_relations([relation.id])
        assert stored.weight == 1 and stored.evidence == []
        report = await store.delete_document("doc-1")
        assert report.relations_removed == 1
        assert await store.get_relations([relation.id]) == []


async def test_expired_relations_are_hidden_from_graph_queries(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        book = Book("doc-1")
        c = book.chunk("Ann once knew Bo.")
        ann = book.entity("Ann", mentions=[(c, 1)])
        bo = book.entity("Bo", mentions=[(c, 1)])
        relation = book.relate(ann, "KNEW", bo, chunk=c, expired_at=day(1), fact="Ann knew Bo")
        await store.write_document(book.bundle())
        assert await store.entity_relations(ann.id) == []
        assert (await store.expand("default", [ann.id])).hops == {ann.id: 0}
        assert (await store.graph_arrays("default")).edge_src.shape == (0,)
        [stored] = await store.get_relations([relation.id])
        assert stored.expired_at == day(1)


async def test_entity_without_mentions_lives_with_its_document(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        book = Book("doc-1")
        book.chunk("A title page.")
        topic = book.entity("Topic", "concept", description="What the document is about.")
        await store.write_document(book.bundle())
        [stored] = await store.get_entities([topic.id])
        assert stored.mention_count == 0
        assert stored.description == "What the document is about."
        report = await store.delete_document("doc-1")
        assert report.entities_removed == 1


async def test_bad_bundles_are_rejected_with_clear_messages(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        book = Book("doc-1")
        c = book.chunk("Text.")
        book.entity("Ann", mentions=[(c, 1)])
        bundle = book.bundle()
        bundle.mentions[0].chunk_id = "other#c0"
        with pytest.raises(ValueError, match="chunk other#c0"):
            await store.write_document(bundle)
        book = Book("doc-1")
        book.entity("Ann", mentions=[(book.chunk("Text."), 1)])
        bundle = book.bundle()
        bundle.entities[0].entity.scope = "elsewhere"
        with pytest.raises(ValueError, match="scope"):
            await store.write_document(bundle)
        assert await store.scopes() == []


async def test_expand_is_served_from_indexes(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        await star(store)
        hub = Entity.make_id("default", "Hub")
        assert len((await store.expand("default", [hub], depth=1, per_node=2)).hops) == 3
    conn = raw(path)
    plan = " ".join(
        row[3]
        for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT pk FROM relations AS r WHERE r.source = ? "
            "AND r.expired_at IS NULL ORDER BY r.weight DESC LIMIT 5",
            (1,),
        )
    )
    conn.close()
    assert "relations_source" in plan and "TEMP B-TREE" not in plan


async def test_a_new_embedding_replaces_the_stored_one(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        one = Book("doc-1")
        c = one.chunk("Ann.")
        ann = one.entity("Ann", mentions=[(c, 1)], vector=unit(0))
        one.entity("Bo", mentions=[(c, 1)], vector=unit(1))
        await store.write_document(one.bundle())
        assert (await store.search_entities_vector("default", unit(0), 1))[0].id == ann.id
        two = Book("doc-2")
        d = two.chunk("Ann again.")
        two.entity("Ann", mentions=[(d, 1)], vector=unit(5))
        await store.write_document(two.bundle())
        hits = await store.search_entities_vector("default", unit(5), 1)
        assert hits[0].id == ann.id and hits[0].score == pytest.approx(1.0)
        assert (await store.search_entities_vector("default", unit(0), 1))[0].score < 0.5
        vectors = await store.entity_embeddings([ann.id])
        assert vectors[ann.id].tolist() == unit(5).tolist()


async def test_a_version_2_store_gains_the_key_table(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path):
        pass
    conn = raw(path)
    conn.execute("DROP TABLE ledger")
    conn.execute("UPDATE meta SET value = 2 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert await store.list_api_keys() == []


VERSION_5_RELATIONS = """
CREATE TABLE relations_v5 (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    source INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    target INTEGER NOT NULL REFERENCES entities(pk) ON DELETE CASCADE,
    type TEXT NOT NULL,
    fact TEXT NOT NULL DEFAULT '',
    weight REAL NOT NULL DEFAULT 0,
    confidence REAL NOT NULL DEFAULT 1,
    valid_at TEXT,
    invalid_at TEXT,
    created_at TEXT NOT NULL,
    expired_at TEXT,
    invalidated_by TEXT,
    UNIQUE (source, type, target)
)"""


async def test_version_5_relations_get_a_statement_key(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        ids = await shared_pair(store)
        before = [r async for r in store.iter_relations("default")]
    conn = raw(path)  # the relations table as version 5 made it, same rows and pks
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute(VERSION_5_RELATIONS)
    conn.execute(
        "INSERT INTO relations_v5 SELECT pk, id, scope, source, target, type, fact, weight, "
        "confidence, valid_at, invalid_at, created_at, expired_at, invalidated_by "
        "FROM relations"
    )
    conn.execute("DROP TABLE relations")
    conn.execute("ALTER TABLE relations_v5 RENAME TO relations")
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN salience")
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN confidence")
    old_records.before_the_ledger(conn, 5)
    conn.execute("UPDATE meta SET value = 5 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert [r async for r in store.iter_relations("default")] == before
        stated = Book("doc-3")
        chunk = stated.chunk("Alice Morgan met Bob Stone again.", unit(5))
        alice = stated.entity("Alice Morgan", mentions=[(chunk, 1)])
        bob = stated.entity("Bob Stone", mentions=[(chunk, 1)])
        rel = stated.relate(alice, "MET", bob, chunk=chunk)
        bundle = stated.bundle()
        bundle.relations = [
            replace(r, id=f"{r.id}-said", statement="doc-3") if r.id == rel.id else r
            for r in bundle.relations
        ]
        await store.write_document(bundle)
        met = await store.entity_relations(ids["alice"], types=["MET"])
        assert sorted(r.statement for r in met) == ["", "doc-3"]
        await store.delete_document("doc-1")
        assert [len(r.evidence) for r in await store.get_relations([ids["met"]])] == [1]
    conn = raw(path)
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


async def test_version_6_listings_keep_the_entitys_scores(tmp_path: Path) -> None:
    """Listings written before version 7 have no salience or confidence of their own: an
    entity keeps its stored values while one of them remains, and follows its listings
    again once they are all of version 7."""
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        await two_listings(store, high_first=True)
    conn = raw(path)
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN salience")
    conn.execute("ALTER TABLE entity_descriptions DROP COLUMN confidence")
    old_records.before_the_ledger(conn, 6)
    conn.execute("UPDATE meta SET value = 6 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        bundle = await store.read_bundle("doc-low")
        assert bundle is not None  # unknown: the entity's values stand in
        assert (bundle.entities[0].entity.salience, bundle.entities[0].salience) == (5.0, 5.0)
        await store.delete_document("doc-high")
        assert await scores(store) == (5.0, 0.9)
        await store.write_document(listing("doc-low", 2.0, 0.4, with_mention=True).bundle())
        assert await scores(store) == (2.0, 0.4)


async def test_a_version_7_store_gets_grants_and_links(tmp_path: Path) -> None:
    """Version 8 adds the grant and scope link tables to a store of version 7, which keeps
    its documents (and version 9 their ledger)."""
    path = tmp_path / "graph.db"
    async with SqliteStore(path) as store:
        await shared_pair(store)
    conn = raw(path)
    old_records.before_the_ledger(conn, 7)
    conn.execute("UPDATE meta SET value = 7 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert (await store.stats("default")).documents == 2
        assert await store.list_grants() == [] and await store.scope_links() == []
        await store.add_grant(Grant("ann", "default", Role.READER))
        await store.add_scope_link(ScopeLink("default", "other", "all"))
    async with SqliteStore(path) as store:
        assert await store.list_grants() == [Grant("ann", "default", Role.READER)]
        assert await store.scope_links() == [ScopeLink("default", "other", "all")]
    check_integrity(path)


async def test_a_version_8_store_moves_its_records_into_the_ledger(tmp_path: Path) -> None:
    """Version 9 moves keys, grants, links, decisions and the audit log into ``ledger``:
    every record reads back as it was written, and the five tables are gone."""
    path = tmp_path / "graph.db"
    async with SqliteStore(path):
        pass
    conn = raw(path)
    old_records.before_the_ledger(conn, 8)
    for statement, values in old_records.SQLITE_ROWS:
        conn.execute(statement, values)
    conn.execute("UPDATE meta SET value = 8 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    async with SqliteStore(path) as store:
        await old_records.check(store)
    tables = {row[0] for row in raw(path).execute("SELECT name FROM sqlite_master")}
    assert "ledger" in tables and not tables & {"api_keys", "grants", "audit_log"}
    check_integrity(path)


async def test_a_forget_failing_inside_the_delete_rolls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with SqliteStore(tmp_path / "graph.db") as store:
        await forget_fails_inside_the_delete(store, monkeypatch, write_module)

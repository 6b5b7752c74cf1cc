"""Batched entity lookups: the base-class defaults (what a backend inherits) agree with the
SQLite store's batched overrides, and the in-memory indexes answer many queries like one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from loregraph.models import Vector
from loregraph.store.base import Store
from loregraph.store.names import NameIndex
from loregraph.store.sqlite import SqliteStore
from loregraph.store.vectors import VectorIndex

from .builders import blend, unit
from .scenarios import shared_pair


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore(tmp_path / "batched.db") as opened:
        yield opened


async def test_base_defaults_match_the_sqlite_overrides(store: SqliteStore) -> None:
    await shared_pair(store)
    names: list[tuple[str, str | None]] = [
        ("Alice Morgn", None),
        ("Harbor", "place"),
        ("Bob", "person"),
        ("", None),
    ]
    fast = await store.search_entities_fuzzy_many("default", names, 4)
    slow = await Store.search_entities_fuzzy_many(store, "default", names, 4)
    assert fast == slow
    assert fast[0] and fast[3] == []
    vectors: list[tuple[Vector, str | None]] = [
        (blend(0, 1, 0.7), None),
        (unit(3), "place"),
        (unit(2), "person"),
    ]
    fast_v = await store.search_entities_vector_many("default", vectors, 3)
    slow_v = await Store.search_entities_vector_many(store, "default", vectors, 3)
    assert [[h.id for h in row] for row in fast_v] == [[h.id for h in row] for row in slow_v]
    for row_fast, row_slow in zip(fast_v, slow_v, strict=True):
        assert [h.score for h in row_fast] == pytest.approx([h.score for h in row_slow], abs=1e-6)


def test_name_index_search_many_equals_single_searches() -> None:
    index = NameIndex.build(
        [
            ("e1", "person", "  jonathan harker \n  harker "),
            ("e2", "person", "  mina harker "),
            ("e3", "place", "  whitby "),
            ("e4", "place", "  whitby abbey "),
        ]
    )
    index.upsert("e5", "person", ["  lucy westenra "])
    index.remove(["e2"])
    queries: list[tuple[str, str | None]] = [
        ("harker", None),
        ("whitby", "place"),
        ("whitby", "person"),
        ("lucy", None),
        ("", None),
        ("x", "unknown"),
    ]
    many = index.search_many(queries, 3)
    assert many == [index.search(key, 3, kind) for key, kind in queries]
    assert many[0][0] == ("e1", 1.0)
    assert "e2" not in [item for item, _ in many[0]]
    assert [item for item, _ in many[1]] == ["e3", "e4"]
    assert many[2] == [] or all(item in {"e1", "e5"} for item, _ in many[2])
    assert index.search_many(queries, 0) == [[] for _ in queries]


def test_vector_index_search_many_equals_single_searches() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(50, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    ids = [f"v{i}" for i in range(50)]
    tags = ["a" if i % 3 else "b" for i in range(50)]
    index = VectorIndex()
    index.upsert(ids, matrix, tags)
    index.remove(["v1", "v2"])
    queries = matrix[[1, 9, 4, 30]]
    wanted: list[str | None] = [None, "b", "a", "zzz"]
    many = index.search_many(queries, 5, wanted)
    for query, tag, hits in zip(queries, wanted, many, strict=True):
        single = index.search(query, 5, tag=tag)
        assert [item for item, _ in hits] == [item for item, _ in single]
        assert [s for _, s in hits] == pytest.approx([s for _, s in single], abs=1e-6)
    assert many[1][0] == ("v9", pytest.approx(1.0))  # tag "b": rows 0, 3, 6, 9, ...
    assert many[2][0] == ("v4", pytest.approx(1.0))
    assert "v1" not in [item for item, _ in many[0]]
    assert many[3] == []
    untagged = index.search_many(queries[:2], 2)
    assert untagged[1][0][0] == "v9"
    with pytest.raises(ValueError):
        index.search_many(queries, 5, ["a"])
    assert VectorIndex().search_many(queries, 5) == [[] for _ in range(4)]

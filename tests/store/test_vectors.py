"""The NumPy vector index shared by backends without a native one."""

from __future__ import annotations

import numpy as np
import pytest

from loregraph.errors import ConfigError
from loregraph.store.vectors import (
    VectorIndex,
    VectorIndexCache,
    blob_to_vector,
    vector_to_blob,
)

from .builders import blend, unit


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [item for item, _ in hits]


def test_blob_roundtrip() -> None:
    vector = blend(0, 3, 0.3)
    back = blob_to_vector(vector_to_blob(vector))
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back, vector)
    back[0] = 5.0  # a writable copy


def test_search_ranks_by_cosine_and_filters_by_tag() -> None:
    index = VectorIndex()
    index.upsert(["a", "b", "c"], np.stack([unit(0), unit(1), blend(0, 1, 0.7)]), ["x", "y", "x"])
    hits = index.search(unit(0), 2)
    assert ids(hits) == ["a", "c"] and hits[0][1] == pytest.approx(1.0)
    assert ids(index.search(unit(1), 5, tag="x")) == ["c", "a"]
    assert index.search(unit(1), 5, tag="unknown") == []
    assert index.search(unit(1), 0) == []
    assert len(index.search(unit(1), 10)) == 3


def test_upsert_replaces_and_remove_forgets() -> None:
    index = VectorIndex()
    index.upsert(["a", "b"], np.stack([unit(0), unit(1)]))
    index.upsert(["a"], np.stack([unit(2)]))
    assert len(index) == 2
    assert ids(index.search(unit(2), 1)) == ["a"]
    assert index.remove(["a", "missing"]) == 1
    assert "a" not in index and len(index) == 1
    assert ids(index.search(unit(2), 5)) == ["b"]


def test_compaction_keeps_the_live_rows() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((3000, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    names = [f"v{i}" for i in range(3000)]
    index = VectorIndex()
    index.upsert(names, vectors, ["even" if i % 2 == 0 else "odd" for i in range(3000)])
    index.remove(names[:2000])
    assert len(index) == 1000
    for i in (2000, 2500, 2999):
        assert ids(index.search(vectors[i], 1)) == [f"v{i}"]
    assert all(int(item[1:]) % 2 == 0 for item in ids(index.search(vectors[2001], 20, tag="even")))
    index.upsert(["new"], vectors[:1])
    assert ids(index.search(vectors[0], 1)) == ["new"]


def test_build_from_blobs_in_batches_skips_other_dimensions() -> None:
    batches: list[tuple[list[str], list[bytes], list[str | None]]] = [
        (["a", "b"], [vector_to_blob(unit(0)), vector_to_blob(unit(1))], ["x", None]),
        (["c", "odd"], [vector_to_blob(unit(2)), vector_to_blob(np.ones(3))], ["x", "x"]),
    ]
    index = VectorIndex.build(batches, total=4, version=7)
    assert (len(index), index.dim, index.version) == (3, 8, 7)
    assert ids(index.search(unit(2), 1)) == ["c"]
    assert VectorIndex.build([]).search(unit(0), 3) == []


def test_dimension_mismatch_is_a_clear_error() -> None:
    index = VectorIndex()
    index.upsert(["a"], np.stack([unit(0)]))
    with pytest.raises(ConfigError, match="embedding model"):
        index.search(np.ones(4, dtype=np.float32), 1)
    with pytest.raises(ConfigError):
        index.upsert(["b"], np.ones((1, 4), dtype=np.float32))


def test_cache_drops_stale_versions() -> None:
    cache = VectorIndexCache()
    cache.put(("s", "entity"), VectorIndex(version=3))
    assert cache.get(("s", "entity"), 3) is not None
    assert cache.get(("s", "entity"), 4) is None
    assert cache.peek(("s", "entity")) is None

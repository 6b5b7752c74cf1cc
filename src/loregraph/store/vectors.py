"""Brute-force vector search over an in-memory ``float32`` matrix, shared by backends.

A backend without a native vector index (SQLite here) keeps, per (scope, kind), one
:class:`VectorIndex`: a contiguous matrix of L2-normalised rows with their ids and an
optional tag per row (the entity type, for filtered search). Cosine similarity is then a
single matrix-vector product and top-k an ``argpartition``; on 2 cores that is ~0.1 s for
1M x 384 rows, which is fine for a local store.

The index is loaded in batches from whatever the backend stores (see :meth:`VectorIndex.build`)
and can be updated in place after a write (:meth:`VectorIndex.upsert` /
:meth:`VectorIndex.remove`), so that a write does not force a full reload. Each index carries
the ``version`` of the data it reflects; :class:`VectorIndexCache` drops an index whose version
no longer matches the backend's (e.g. another process wrote to the same store);
:class:`VersionedCache` does the same for any index that carries a version.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from loregraph.errors import ConfigError
from loregraph.models import Vector

log = logging.getLogger(__name__)

_NO_TAG = -1
_MIN_COMPACT = 1024


def vector_to_blob(vector: npt.ArrayLike) -> bytes:
    """A vector as little-endian ``float32`` bytes (how stores without a vector type keep it)."""
    return np.asarray(vector, dtype="<f4").tobytes()


def blob_to_vector(blob: bytes) -> Vector:
    """The inverse of :func:`vector_to_blob` (a writable copy)."""
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def stack_blobs(blobs: Sequence[bytes]) -> Vector:
    """Equal-length ``float32`` blobs as one ``(n, dim)`` matrix (ValueError if they differ)."""
    width = len(blobs[0]) // 4
    if any(len(blob) != width * 4 for blob in blobs):
        raise ValueError("vectors of different dimensions")
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), width)


class VectorIndex:
    """Unit vectors with string ids and optional tags; cosine top-k by brute force.

    Not thread-safe: the owning store calls it from one thread at a time.
    """

    def __init__(self, dim: int | None = None, capacity: int = 0, version: int = 0) -> None:
        self.version = version
        """The version of the source data this index reflects (owner-defined)."""
        self._dim = dim
        self._matrix: npt.NDArray[np.float32] = np.zeros((capacity, dim or 0), dtype=np.float32)
        self._tags: npt.NDArray[np.int32] = np.full(capacity, _NO_TAG, dtype=np.int32)
        self._alive: npt.NDArray[np.bool_] = np.zeros(capacity, dtype=np.bool_)
        self._ids: list[str | None] = []
        self._rows: dict[str, int] = {}
        self._tag_codes: dict[str, int] = {}
        self._dead = 0

    # ----------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        batches: Iterable[tuple[Sequence[str], Sequence[bytes], Sequence[str | None]]],
        *,
        total: int = 0,
        version: int = 0,
    ) -> VectorIndex:
        """An index from batches of (ids, float32 blobs, tags); ``total`` presizes the matrix.

        Rows whose dimension differs from the first row's are skipped with a warning (the
        store holds vectors from two different embedding models).
        """
        index = cls(version=version)
        skipped = 0
        for ids, blobs, tags in batches:
            if not ids:
                continue
            dim = index._dim if index._dim is not None else len(blobs[0]) // 4
            keep = [i for i, blob in enumerate(blobs) if len(blob) == dim * 4]
            skipped += len(ids) - len(keep)
            if not keep:
                continue
            if len(keep) < len(ids):
                ids = [ids[i] for i in keep]
                blobs = [blobs[i] for i in keep]
                tags = [tags[i] for i in keep]
            matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), dim)
            if index._dim is None:
                # room for later writes, so that a small write does not copy the matrix
                index._reset(dim, max(total, len(ids)) + max(1024, total // 8))
            index.upsert(ids, matrix, tags)
        if skipped:
            log.warning("vector index: skipped %d vectors of a different dimension", skipped)
        return index

    def _reset(self, dim: int, capacity: int) -> None:
        self._dim = dim
        self._matrix = np.zeros((capacity, dim), dtype=np.float32)
        self._tags = np.full(capacity, _NO_TAG, dtype=np.int32)
        self._alive = np.zeros(capacity, dtype=np.bool_)

    # ----------------------------------------------------------------- properties
    @property
    def dim(self) -> int | None:
        """The vector dimension, ``None`` while the index is empty and untyped."""
        return self._dim

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, item: object) -> bool:
        return item in self._rows

    # ----------------------------------------------------------------- updates
    def upsert(
        self,
        ids: Sequence[str],
        vectors: npt.ArrayLike,
        tags: Sequence[str | None] | None = None,
    ) -> None:
        """Add or replace rows. ``vectors`` is ``(len(ids), dim)``."""
        if not ids:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise ValueError(f"expected {len(ids)} vectors, got an array of shape {matrix.shape}")
        if self._dim is None:
            self._reset(int(matrix.shape[1]), len(ids))
        self._check_dim(int(matrix.shape[1]))
        codes = self._codes(tags, len(ids))
        first = len(self._ids)
        positions: list[int] = []
        for item in ids:
            row = self._rows.get(item)
            if row is None:
                row = self._rows[item] = len(self._ids)
                self._ids.append(item)
            positions.append(row)
        self._grow(len(self._ids))
        if positions[0] == first and len(self._ids) == first + len(ids):
            target: slice | npt.NDArray[np.int64] = slice(first, first + len(ids))
        else:
            target = np.asarray(positions, dtype=np.int64)
        self._matrix[target] = matrix
        self._tags[target] = codes
        self._alive[target] = True

    def remove(self, ids: Iterable[str]) -> int:
        """Remove rows by id (unknown ids are ignored); returns how many were removed."""
        removed = 0
        for item in ids:
            row = self._rows.pop(item, None)
            if row is None:
                continue
            self._ids[row] = None
            self._alive[row] = False
            removed += 1
        self._dead += removed
        if self._dead > _MIN_COMPACT and self._dead * 4 > len(self._ids):
            self._compact()
        return removed

    # ----------------------------------------------------------------- search
    def search(
        self,
        query: npt.ArrayLike,
        k: int,
        *,
        tag: str | None = None,
        among: Iterable[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` rows most similar to ``query`` (cosine), best first, as (id, score);
        of ``tag`` and of the ids ``among``, each when given."""
        n = len(self._ids)
        if k <= 0 or not self._rows or self._dim is None:
            return []
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        self._check_dim(int(vector.shape[0]), query=True)
        only = None
        if among is not None:
            only = np.zeros(n, dtype=np.bool_)
            only[[row for item in among if (row := self._rows.get(item)) is not None]] = True
        return self._top(self._matrix[:n] @ vector, k, tag, only)

    def search_many(
        self, queries: npt.ArrayLike, k: int, tags: Sequence[str | None] | None = None
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search` for each row of ``queries`` (``(m, dim)``), with one matrix product.

        ``tags`` (one per query, or ``None`` for no filter at all) restricts each query to
        rows of that tag.
        """
        matrix = np.asarray(queries, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError(f"expected a (queries, dim) array, got shape {matrix.shape}")
        m = int(matrix.shape[0])
        if tags is not None and len(tags) != m:
            raise ValueError(f"expected {m} tags, got {len(tags)}")
        n = len(self._ids)
        if k <= 0 or not self._rows or self._dim is None or m == 0:
            return [[] for _ in range(m)]
        self._check_dim(int(matrix.shape[1]), query=True)
        scores = np.ascontiguousarray((self._matrix[:n] @ matrix.T).T)  # (m, n)
        return [self._top(scores[i], k, None if tags is None else tags[i]) for i in range(m)]

    def _top(
        self,
        scores: npt.NDArray[np.float32],
        k: int,
        tag: str | None,
        only: npt.NDArray[np.bool_] | None = None,
    ) -> list[tuple[str, float]]:
        """The best ``k`` live rows (of ``tag``, and where ``only`` is true) by ``scores``
        (one per row), best first."""
        n = len(self._ids)
        mask: npt.NDArray[np.bool_] | None = only
        if tag is not None:
            code = self._tag_codes.get(tag)
            if code is None:
                return []
            tagged = self._tags[:n] == code
            mask = tagged if mask is None else mask & tagged
        if self._dead:
            mask = self._alive[:n] if mask is None else mask & self._alive[:n]
        if mask is not None:
            scores = np.where(mask, scores, -np.inf).astype(np.float32)
        top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        order = top[np.argsort(-scores[top], kind="stable")]
        results: list[tuple[str, float]] = []
        for row in order.tolist():
            score = float(scores[row])
            item = self._ids[row]
            if item is None or score == -np.inf:
                continue
            results.append((item, score))
        return results

    # ----------------------------------------------------------------- internals
    def _check_dim(self, dim: int, *, query: bool = False) -> None:
        if dim != self._dim:
            what = "the query vector" if query else "the new vectors"
            raise ConfigError(
                f"{what} have dimension {dim} but the stored vectors have {self._dim}; "
                "they were probably made by a different embedding model "
                "(re-embed the store or use the model it was built with)"
            )

    def _codes(self, tags: Sequence[str | None] | None, n: int) -> npt.NDArray[np.int32]:
        if tags is None:
            return np.full(n, _NO_TAG, dtype=np.int32)
        table = self._tag_codes
        return np.asarray(
            [_NO_TAG if tag is None else table.setdefault(tag, len(table)) for tag in tags],
            dtype=np.int32,
        )

    def _grow(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity + capacity // 2, 64)
        matrix = np.zeros((new_capacity, self._matrix.shape[1]), dtype=np.float32)
        matrix[:capacity] = self._matrix
        tags = np.full(new_capacity, _NO_TAG, dtype=np.int32)
        tags[:capacity] = self._tags
        alive = np.zeros(new_capacity, dtype=np.bool_)
        alive[:capacity] = self._alive
        self._matrix, self._tags, self._alive = matrix, tags, alive

    def _compact(self) -> None:
        n = len(self._ids)
        keep = np.flatnonzero(self._alive[:n])
        self._matrix = np.ascontiguousarray(self._matrix[keep])
        self._tags = self._tags[keep]
        self._alive = np.ones(len(keep), dtype=np.bool_)
        self._ids = [self._ids[row] for row in keep.tolist()]
        self._rows = {item: row for row, item in enumerate(self._ids) if item is not None}
        self._dead = 0


class Versioned(Protocol):
    """Anything carrying the version of the data it was built from."""

    version: int


V = TypeVar("V", bound=Versioned)


class VersionedCache(Generic[V]):
    """Indexes by key (e.g. ``(scope, "entity")``), each valid for one data version."""

    def __init__(self) -> None:
        self._indexes: dict[Hashable, V] = {}

    def __len__(self) -> int:
        return len(self._indexes)

    def get(self, key: Hashable, version: int) -> V | None:
        """The cached index for ``key`` if it reflects ``version``, else ``None`` (and drop it)."""
        index = self._indexes.get(key)
        if index is not None and index.version != version:
            del self._indexes[key]
            return None
        return index

    def peek(self, key: Hashable) -> V | None:
        """The cached index for ``key`` whatever its version."""
        return self._indexes.get(key)

    def put(self, key: Hashable, index: V) -> None:
        """Cache an index."""
        self._indexes[key] = index

    def discard(self, key: Hashable) -> None:
        """Forget one index."""
        self._indexes.pop(key, None)

    def clear(self) -> None:
        """Forget every index."""
        self._indexes.clear()


VectorIndexCache = VersionedCache[VectorIndex]
"""Vector indexes by key."""

"""Fuzzy entity lookup: an in-memory list of name and alias keys scored with rapidfuzz.

Why not the FTS5 ``trigram`` tokenizer: an OR over a name's trigrams matches a large share of
a big scope (common trigrams such as ``"an "`` or ``"son"``), and FTS5 must rank every match:
0.4-3 s per lookup at 1M entities, measured. A rapidfuzz ``cdist`` over the scope's keys
costs ~0.1 s at 1M keys whatever the name, and small scopes cost next to nothing.

Scoring is two-stage: the Indel similarity (rapidfuzz, C++) picks candidates among all keys,
then the trigram similarity ``|common| / |union|`` over keys padded like pg_trgm
(``"  key "``) gives the final score, 0..1, best key per entity. Nothing here touches a
database: a store loads an index from its rows and keeps it up to date after its writes
(the SQLite store, and the Cypher store: neither database offers trigram similarity).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Indel

CANDIDATES = 100
"""How many keys (best Indel similarity first) are re-scored by trigram similarity."""

_MIN_COMPACT = 1024


def trigrams(key: str) -> set[str]:
    """The trigrams of a name key padded like PostgreSQL's pg_trgm (``"  key "``)."""
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def trigram_similarity(a: set[str], b: set[str]) -> float:
    """``|a & b| / |a | b|`` (0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def key_lines(keys: Iterable[str]) -> str:
    """An entity's keys as one text, each padded as ``"  key "``, one per line (empty keys
    left out): how the SQLite store keeps them and what :meth:`NameIndex.build` reads."""
    return "\n".join(f"  {key} " for key in keys if key)


def split_keys(search_keys: str) -> list[str]:
    """The keys in a :func:`key_lines` text."""
    return [line.strip() for line in search_keys.split("\n") if line.strip()]


class NameIndex:
    """Entity keys (canonical name and aliases) with their entity and type.

    An entity's keys occupy consecutive rows ``start[slot]:end[slot]``; replacing them
    appends new rows and marks the old ones dead (compacted when a quarter is dead).
    """

    def __init__(self, version: int = 0) -> None:
        self.version = version
        """The version of the source data this index reflects (owner-defined)."""
        self._keys: list[str] = []
        self._owner = np.zeros(0, dtype=np.int64)
        self._type = np.zeros(0, dtype=np.int32)
        self._alive = np.zeros(0, dtype=np.bool_)
        self._entities: list[str] = []
        self._slot: dict[str, int] = {}
        self._span: list[tuple[int, int]] = []
        self._types: dict[str, int] = {}
        self._dead = 0
        self._live = 0

    @classmethod
    def build(cls, rows: Iterable[tuple[str, str, str]], version: int = 0) -> NameIndex:
        """An index from ``(entity id, type, search_keys)`` rows."""
        index = cls(version)
        owners: list[int] = []
        codes: list[int] = []
        for entity_id, entity_type, search_keys in rows:
            keys = split_keys(search_keys)
            slot = len(index._entities)
            index._slot[entity_id] = slot
            index._entities.append(entity_id)
            first = len(index._keys)
            index._keys.extend(keys)
            index._span.append((first, len(index._keys)))
            owners.extend([slot] * len(keys))
            code = index._types.setdefault(entity_type, len(index._types))
            codes.extend([code] * len(keys))
        index._owner = np.asarray(owners, dtype=np.int64)
        index._type = np.asarray(codes, dtype=np.int32)
        index._alive = np.ones(len(owners), dtype=np.bool_)
        index._live = len(index._entities)
        return index

    def __len__(self) -> int:
        return self._live

    def upsert(self, entity_id: str, entity_type: str, keys: Sequence[str]) -> None:
        """Set an entity's keys (replacing those it had)."""
        slot = self._slot.get(entity_id)
        if slot is None:
            slot = self._slot[entity_id] = len(self._entities)
            self._entities.append(entity_id)
            self._span.append((0, 0))
            self._live += 1
        else:
            self._drop(slot)
        unique = list(dict.fromkeys(keys))
        first = len(self._keys)
        self._grow(first + len(unique))
        self._keys.extend(unique)
        end = len(self._keys)
        self._owner[first:end] = slot
        self._type[first:end] = self._types.setdefault(entity_type, len(self._types))
        self._alive[first:end] = True
        self._span[slot] = (first, end)

    def remove(self, entity_ids: Iterable[str]) -> None:
        """Forget entities (unknown ids are ignored)."""
        for entity_id in entity_ids:
            slot = self._slot.pop(entity_id, None)
            if slot is not None:
                self._drop(slot)
                self._live -= 1
        if self._dead > _MIN_COMPACT and self._dead * 4 > len(self._keys):
            self._compact()

    def search(
        self, key: str, limit: int, entity_type: str | None = None
    ) -> list[tuple[str, float]]:
        """Entities whose name or alias key is most like ``key``: (id, similarity), best first."""
        return self.search_many([(key, entity_type)], limit)[0]

    def search_many(
        self, queries: Sequence[tuple[str, str | None]], limit: int
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search` for many ``(key, entity_type)`` queries, with one ``cdist`` call."""
        out: list[list[tuple[str, float]]] = [[] for _ in queries]
        n = len(self._keys)
        if limit <= 0 or not self._live:
            return out
        asked = [
            i
            for i, (key, kind) in enumerate(queries)
            if key and (kind is None or kind in self._types)
        ]
        if not asked:
            return out
        matrix = process.cdist(
            [queries[i][0] for i in asked],
            self._keys,
            scorer=Indel.normalized_similarity,
            dtype=np.float32,
            workers=-1,
        )
        alive = self._alive[:n]
        count = min(n, max(CANDIDATES, limit * 10))
        for row, i in enumerate(asked):
            key, kind = queries[i]
            mask = alive if kind is None else alive & (self._type[:n] == self._types[kind])
            scores = np.where(mask, matrix[row], np.float32(-1.0))
            top = np.argpartition(-scores, count - 1)[:count] if count < n else np.arange(n)
            out[i] = self._rescore(key, top, scores, limit)
        return out

    def _rescore(
        self,
        key: str,
        rows: npt.NDArray[np.int64],
        scores: npt.NDArray[np.float32],
        limit: int,
    ) -> list[tuple[str, float]]:
        grams = trigrams(key)
        best: dict[int, float] = {}
        for row in rows.tolist():
            if scores[row] < 0:
                continue
            similarity = trigram_similarity(grams, trigrams(self._keys[row]))
            owner = int(self._owner[row])
            if similarity > best.get(owner, 0.0):
                best[owner] = similarity
        ranked = sorted(best.items(), key=lambda item: (-item[1], self._entities[item[0]]))
        return [(self._entities[slot], score) for slot, score in ranked[:limit]]

    def _grow(self, needed: int) -> None:
        capacity = len(self._alive)
        if needed <= capacity:
            return
        size = max(needed, capacity * 2, 64)
        self._owner = np.resize(self._owner, size)
        self._type = np.resize(self._type, size)
        alive = np.zeros(size, dtype=np.bool_)
        alive[:capacity] = self._alive
        self._alive = alive

    def _drop(self, slot: int) -> None:
        first, end = self._span[slot]
        self._alive[first:end] = False
        for row in range(first, end):
            self._keys[row] = ""
        self._dead += end - first
        self._span[slot] = (0, 0)

    def _compact(self) -> None:
        n = len(self._keys)
        keep = np.flatnonzero(self._alive[:n])
        self._keys = [self._keys[row] for row in keep.tolist()]
        self._owner = self._owner[keep]
        self._type = self._type[keep]
        self._alive = np.ones(len(keep), dtype=np.bool_)
        starts: dict[int, int] = {}
        for row, slot in enumerate(self._owner.tolist()):
            starts.setdefault(slot, row)
            self._span[slot] = (starts[slot], row + 1)
        self._dead = 0

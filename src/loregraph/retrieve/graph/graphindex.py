"""An in-memory index of a scope's graph: breadth-first expansion, mentions, PageRank.

Built from :meth:`Store.graph_arrays` once per (store, scope) and reused until the store's
``graph_version`` for that scope changes, so a query pays for no graph SQL beyond one
version check: expansion and mention look-ups are array slices (DESIGN: graph algorithms
run on an in-memory sparse matrix built from the store and refreshed on writes).

Each entity's neighbours are kept heaviest first (summed weight of the relations between
the two, ties by entity id): the order :mod:`loregraph.retrieve.graph.expander` defines.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy import sparse

from loregraph.models import Document, GraphArrays
from loregraph.retrieve.graph.pages import page_documents, title_keys
from loregraph.retrieve.graph.ppr import PprGraph, build_ppr_graph
from loregraph.store.base import Store

MIN_EDGE_WEIGHT = 1e-9
"""A relation counts at least this much towards its pair's weight (so it stays an edge)."""


@dataclass(slots=True)
class GraphIndex:
    """Entity adjacency (summed relation weights, both directions) and entity→chunk mentions."""

    arrays: GraphArrays
    version: int
    entity_index: dict[str, int]
    adjacency: sparse.csr_matrix
    mentions: sparse.csr_matrix
    neighbours: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    pages: dict[str, list[str]] = field(default_factory=dict)
    document_kinds: dict[str, str] = field(default_factory=dict)
    _ppr: PprGraph | None = field(default=None, repr=False)
    _mentioned: sparse.csr_matrix | None = field(default=None, repr=False)
    _chunk_index: dict[str, int] | None = field(default=None, repr=False)
    _document_chunks: dict[str, list[str]] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, arrays: GraphArrays, version: int = -1) -> GraphIndex:
        """Index a graph snapshot."""
        n_ent, n_chunk = len(arrays.entity_ids), len(arrays.chunk_ids)
        src = np.asarray(arrays.edge_src, dtype=np.int64)
        dst = np.asarray(arrays.edge_dst, dtype=np.int64)
        w = np.maximum(np.asarray(arrays.edge_weight, dtype=np.float64), MIN_EDGE_WEIGHT)
        loops = src != dst
        adjacency = sparse.csr_matrix(
            (
                np.concatenate([w[loops], w[loops]]),
                (
                    np.concatenate([src[loops], dst[loops]]),
                    np.concatenate([dst[loops], src[loops]]),
                ),
            ),
            shape=(n_ent, n_ent),
        )
        adjacency.sum_duplicates()
        mentions = sparse.csr_matrix(
            (
                np.asarray(arrays.mention_count, dtype=np.float64),
                (
                    np.asarray(arrays.mention_entity, dtype=np.int64),
                    np.asarray(arrays.mention_chunk, dtype=np.int64),
                ),
            ),
            shape=(n_ent, n_chunk),
        )
        mentions.sum_duplicates()
        return cls(
            arrays=arrays,
            version=version,
            entity_index={e: i for i, e in enumerate(arrays.entity_ids)},
            adjacency=adjacency,
            mentions=mentions,
            neighbours=_heaviest_first(adjacency, arrays.entity_ids),
        )

    @property
    def ppr(self) -> PprGraph:
        """The PageRank walk matrix (built on first use)."""
        if self._ppr is None:
            self._ppr = build_ppr_graph(self.arrays, self.version)
        return self._ppr

    def bfs(
        self, seed_ids: Sequence[str], *, depth: int, per_node: int, max_entities: int
    ) -> dict[str, int]:
        """Entity id → hop distance, following each node's ``per_node`` heaviest neighbours.

        Seeds unknown to the index are kept at hop 0; at most ``max_entities`` are returned.
        """
        hops: dict[str, int] = {}
        frontier: list[int] = []
        for seed in seed_ids:
            if seed in hops or len(hops) >= max_entities:
                continue
            hops[seed] = 0
            idx = self.entity_index.get(seed)
            if idx is not None:
                frontier.append(idx)
        ids = self.arrays.entity_ids
        indptr, neighbours = self.adjacency.indptr, self.neighbours
        take = max(per_node, 0)
        for hop in range(1, depth + 1):
            following: list[int] = []
            for node in frontier:
                lo = indptr[node]
                for neighbour in neighbours[lo : min(lo + take, indptr[node + 1])].tolist():
                    entity_id = ids[neighbour]
                    if entity_id in hops:
                        continue
                    if len(hops) >= max_entities:
                        return hops
                    hops[entity_id] = hop
                    following.append(neighbour)
            frontier = following
            if not frontier:
                break
        return hops

    def link_weights(self, hops: dict[str, int]) -> dict[str, float]:
        """For each reached non-seed entity, its heaviest edge to an entity one hop closer."""
        ids = self.arrays.entity_ids
        indptr, indices, data = self.adjacency.indptr, self.adjacency.indices, self.adjacency.data
        links: dict[str, float] = {}
        for entity_id, hop in hops.items():
            idx = self.entity_index.get(entity_id)
            if hop == 0 or idx is None:
                continue
            lo, hi = indptr[idx], indptr[idx + 1]
            best = 0.0
            for neighbour, weight in zip(
                indices[lo:hi].tolist(), data[lo:hi].tolist(), strict=True
            ):
                if hops.get(ids[neighbour], hop) < hop and weight > best:
                    best = weight
            if best > 0:
                links[entity_id] = best
        return links

    def entities_in(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Chunk id → ids of the entities mentioned in it (most mentioned first)."""
        if self._mentioned is None:
            self._mentioned = sparse.csr_matrix(self.mentions.T)
        chunk_index = self.chunk_index
        ids = self.arrays.entity_ids
        indptr, indices, data = (
            self._mentioned.indptr,
            self._mentioned.indices,
            self._mentioned.data,
        )
        out: dict[str, list[str]] = {}
        for chunk_id in dict.fromkeys(chunk_ids):
            idx = chunk_index.get(chunk_id)
            if idx is None:
                continue
            lo, hi = indptr[idx], indptr[idx + 1]
            order = np.argsort(-data[lo:hi], kind="stable")
            out[chunk_id] = [ids[i] for i in indices[lo:hi][order].tolist()]
        return out

    def mentions_of(self, entity_ids: Sequence[str]) -> list[tuple[str, str, int]]:
        """(entity_id, chunk_id, count) for every mention of the given entities."""
        chunk_ids = self.arrays.chunk_ids
        out: list[tuple[str, str, int]] = []
        indptr, indices, data = self.mentions.indptr, self.mentions.indices, self.mentions.data
        for entity_id in dict.fromkeys(entity_ids):
            idx = self.entity_index.get(entity_id)
            if idx is None:
                continue
            lo, hi = indptr[idx], indptr[idx + 1]
            out.extend(
                (entity_id, chunk_ids[c], int(n))
                for c, n in zip(indices[lo:hi].tolist(), data[lo:hi].tolist(), strict=True)
            )
        return out

    @property
    def chunk_index(self) -> dict[str, int]:
        """Chunk id → its position in the arrays (built on first use)."""
        if self._chunk_index is None:
            self._chunk_index = {c: i for i, c in enumerate(self.arrays.chunk_ids)}
        return self._chunk_index

    def documents_mentioning(self, entity_ids: Sequence[str]) -> set[str]:
        """The ids of the documents with a chunk mentioning any of the entities."""
        documents, index = self.arrays.chunk_document, self.chunk_index
        return {documents[index[chunk]] for _, chunk, _ in self.mentions_of(entity_ids)}

    def document_chunks(self, document_ids: Sequence[str]) -> dict[str, list[str]]:
        """Document id → the ids of its chunks the index knows, in stored order."""
        if self._document_chunks is None:
            self._document_chunks = {}
            for chunk_id, document_id in zip(
                self.arrays.chunk_ids, self.arrays.chunk_document, strict=True
            ):
                self._document_chunks.setdefault(document_id, []).append(chunk_id)
        return {d: list(self._document_chunks.get(d, [])) for d in document_ids}

    def chunk_kinds(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Chunk id → the kind of its document (``memory``, ``document``), for the chunks
        the index knows."""
        documents, kinds, index = self.arrays.chunk_document, self.document_kinds, self.chunk_index
        out: dict[str, str] = {}
        for chunk_id in chunk_ids:
            idx = index.get(chunk_id)
            if idx is not None and documents[idx] in kinds:
                out[chunk_id] = kinds[documents[idx]]
        return out


def _heaviest_first(adjacency: sparse.csr_matrix, entity_ids: list[str]) -> npt.NDArray[np.int64]:
    """The column indices of each row, heaviest first, ties by entity id (rows kept in place)."""
    if not entity_ids:
        return np.zeros(0, dtype=np.int64)
    id_rank = np.empty(len(entity_ids), dtype=np.int64)
    id_rank[np.argsort(np.asarray(entity_ids), kind="stable")] = np.arange(len(entity_ids))
    rows = np.repeat(np.arange(adjacency.shape[0]), np.diff(adjacency.indptr))
    order = np.lexsort((id_rank[adjacency.indices], -adjacency.data, rows))
    return np.asarray(adjacency.indices[order], dtype=np.int64)


async def _entity_pages(
    store: Store, scope: str, arrays: GraphArrays, documents: Sequence[Document]
) -> dict[str, list[str]]:
    """Entity id → chunk ids of its pages (see :mod:`loregraph.retrieve.graph.pages`)."""
    if not arrays.chunk_ids:
        return {}
    keys = sorted({key for d in documents for key in title_keys(d.title)})
    found = await store.find_entities_by_key(scope, keys) if keys else {}
    return page_documents(documents, arrays.chunk_ids, arrays.chunk_document, found)


class GraphCache:
    """Graph indexes per (store, scope), rebuilt when the scope's graph version changes (the
    views of one store for different principals share its entry: a view's version says
    which documents it reads)."""

    def __init__(self) -> None:
        self._indexes: weakref.WeakKeyDictionary[Store, dict[str, GraphIndex]] = (
            weakref.WeakKeyDictionary()
        )

    async def get(self, store: Store, scope: str) -> tuple[GraphIndex, bool]:
        """The scope's index and whether this call (re)built it."""
        version = await store.graph_version(scope)
        per_store = self._indexes.setdefault(store.underlying, {})
        index = per_store.get(scope)
        if index is not None and index.version == version:
            return index, False
        arrays = await store.graph_arrays(scope)
        index = await asyncio.to_thread(GraphIndex.build, arrays, version)
        documents = await store.list_documents(scope) if arrays.chunk_ids else []
        index.pages = await _entity_pages(store, scope, arrays, documents)
        index.document_kinds = {d.id: str(d.kind) for d in documents}
        per_store[scope] = index
        return index, True

    def clear(self) -> None:
        """Forget every cached index."""
        self._indexes = weakref.WeakKeyDictionary()


SHARED_CACHE = GraphCache()
"""The process-wide cache used by :class:`~loregraph.retrieve.pipeline.Retriever`."""

"""Personalised PageRank over the entity–passage graph, on an in-memory SciPy sparse matrix.

Nodes are the scope's entities and chunks. Entity–entity edges carry ``log1p(weight)`` in
both directions; entity–chunk edges carry the mention count times an idf-like factor
``log(N_chunks / df)``, so an entity mentioned everywhere spreads almost nothing. The random
walk restarts at the seed entities (and optionally at the best text/vector chunks) with
probability ``1 - damping``; mass stuck at a node with no edges returns to the restart set.

The matrix is built lazily by :class:`~loregraph.retrieve.graph.graphindex.GraphIndex` and cached
with it until the scope's graph changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse

from loregraph.models import GraphArrays

TOLERANCE = 1e-6
MAX_ITERATIONS = 50

FloatArray = npt.NDArray[np.float64]


@dataclass(slots=True)
class PprGraph:
    """A scope's graph as a column-stochastic walk matrix (transposed, for ``P.T @ r``)."""

    entity_ids: list[str]
    chunk_ids: list[str]
    chunk_document: list[str]
    entity_index: dict[str, int]
    chunk_index: dict[str, int]
    walk: sparse.csr_matrix
    dangling: npt.NDArray[np.bool_]
    version: int = -1

    @property
    def size(self) -> int:
        """The number of nodes (entities + chunks)."""
        return len(self.entity_ids) + len(self.chunk_ids)


def build_ppr_graph(arrays: GraphArrays, version: int = -1) -> PprGraph:
    """Build the walk matrix from a store's graph snapshot."""
    n_ent = len(arrays.entity_ids)
    n_chunk = len(arrays.chunk_ids)
    n = n_ent + n_chunk

    src = np.asarray(arrays.edge_src, dtype=np.int64)
    dst = np.asarray(arrays.edge_dst, dtype=np.int64)
    ew = np.log1p(np.maximum(np.asarray(arrays.edge_weight, dtype=np.float64), 0.0))

    m_ent = np.asarray(arrays.mention_entity, dtype=np.int64)
    m_chunk = np.asarray(arrays.mention_chunk, dtype=np.int64) + n_ent
    counts = np.asarray(arrays.mention_count, dtype=np.float64)
    if len(m_ent) and n_chunk:
        df = np.bincount(m_ent, minlength=n_ent).astype(np.float64)
        idf = np.log(np.maximum(n_chunk, 1) / np.maximum(df, 1.0))
        mw = counts * idf[m_ent]
    else:
        mw = np.zeros(0, dtype=np.float64)

    rows = np.concatenate([src, dst, m_ent, m_chunk])
    cols = np.concatenate([dst, src, m_chunk, m_ent])
    vals = np.concatenate([ew, ew, mw, mw])
    keep = (vals > 0) & (rows != cols)
    adjacency = sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n, n))
    out_weight = np.asarray(adjacency.sum(axis=1)).ravel()
    dangling = out_weight <= 0
    inv = np.zeros(n, dtype=np.float64)
    inv[~dangling] = 1.0 / out_weight[~dangling]
    transition = sparse.diags(inv) @ adjacency  # row-stochastic
    walk = sparse.csr_matrix(transition.T)

    return PprGraph(
        entity_ids=list(arrays.entity_ids),
        chunk_ids=list(arrays.chunk_ids),
        chunk_document=list(arrays.chunk_document),
        entity_index={e: i for i, e in enumerate(arrays.entity_ids)},
        chunk_index={c: i for i, c in enumerate(arrays.chunk_ids)},
        walk=walk,
        dangling=dangling,
        version=version,
    )


def pagerank(
    graph: PprGraph,
    restart: FloatArray,
    damping: float,
    *,
    tolerance: float = TOLERANCE,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[FloatArray, int]:
    """Power iteration; returns the stationary scores (summing to 1) and the iterations used."""
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"PageRank damping must be in [0, 1), got {damping}")
    total = float(restart.sum())
    if total <= 0:
        return np.zeros(graph.size, dtype=np.float64), 0
    p = restart / total
    r = p.copy()
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007
        stuck = float(r[graph.dangling].sum())
        nxt = damping * (graph.walk @ r) + (damping * stuck + (1.0 - damping)) * p
        delta = float(np.abs(nxt - r).sum())
        r = nxt
        if delta < tolerance:
            break
    return r, iterations


@dataclass(slots=True)
class PprScores:
    """PageRank scores of entities and chunks (best first, restricted to the top ones)."""

    entities: dict[str, float]
    chunks: dict[str, float]
    iterations: int
    nodes: int


def personalised_pagerank(
    graph: PprGraph,
    entity_weights: Mapping[str, float],
    chunk_weights: Mapping[str, float] | None = None,
    *,
    damping: float = 0.5,
    top_entities: int = 60,
    top_chunks: int = 50,
) -> PprScores:
    """Run PageRank restarting at the given entities (and chunks), weighted as given."""
    restart = np.zeros(graph.size, dtype=np.float64)
    for entity_id, weight in entity_weights.items():
        idx = graph.entity_index.get(entity_id)
        if idx is not None and weight > 0:
            restart[idx] += weight
    n_ent = len(graph.entity_ids)
    for chunk_id, weight in (chunk_weights or {}).items():
        idx = graph.chunk_index.get(chunk_id)
        if idx is not None and weight > 0:
            restart[n_ent + idx] += weight
    scores, iterations = pagerank(graph, restart, damping)
    ent_scores = scores[:n_ent]
    chunk_scores = scores[n_ent:]
    return PprScores(
        entities=_top(ent_scores, graph.entity_ids, top_entities),
        chunks=_top(chunk_scores, graph.chunk_ids, top_chunks),
        iterations=iterations,
        nodes=graph.size,
    )


def _top(scores: FloatArray, ids: list[str], limit: int) -> dict[str, float]:
    if limit <= 0 or not len(scores):
        return {}
    limit = min(limit, len(scores))
    idx = np.argpartition(-scores, limit - 1)[:limit]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return {ids[i]: float(scores[i]) for i in idx if scores[i] > 0}


def restart_weights(
    seed_scores: Mapping[str, float],
    chunk_ranking: list[str],
    chunk_share: float = 0.3,
) -> tuple[dict[str, float], dict[str, float]]:
    """Restart mass: seeds by score, plus ``chunk_share`` spread over ranked chunks by 1/rank.

    With no seeds, all the mass goes to the chunks.
    """
    total_seed = sum(v for v in seed_scores.values() if v > 0)
    entities = {k: v / total_seed for k, v in seed_scores.items() if v > 0} if total_seed else {}
    if not chunk_ranking:
        return entities, {}
    share = chunk_share if entities else 1.0
    raw = {c: 1.0 / (rank + 1) for rank, c in enumerate(chunk_ranking)}
    norm = sum(raw.values())
    chunks = {c: share * v / norm for c, v in raw.items()}
    if entities:
        entities = {k: (1.0 - share) * v for k, v in entities.items()}
    return entities, chunks


def idf(n_chunks: int, df: int) -> float:
    """The down-weighting factor of an entity mentioned in ``df`` of ``n_chunks`` chunks."""
    return math.log(max(n_chunks, 1) / max(df, 1))

"""Passage-ranking baselines run beside the engine: BM25 (``bm25s``) and dense vectors.

:func:`bm25_rank` and :func:`dense_rank` rank plain texts (indices, best first);
:func:`bm25_baseline` and :func:`dense_baseline` index each corpus passage as
``title + "\\n" + text`` and rank passages (titles) per question. They exist to validate the
harness against published figures and to give the engine's figures a same-machine reference.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.common import latency_summary, log

Passage = tuple[str, str]
"""A corpus passage: (title, text)."""


@dataclass(slots=True)
class BaselineRun:
    """The rankings one baseline produced, with its index time and per-question latency."""

    name: str
    rankings: list[list[str]]
    index_seconds: float
    latencies: list[float] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    def timing(self) -> dict[str, Any]:
        """Index time and query latency summary, JSON-ready."""
        return {"index_seconds": round(self.index_seconds, 3), **latency_summary(self.latencies)}


@dataclass(slots=True)
class IndexRanking:
    """Texts ranked per question: indices into the ranked texts, best first."""

    rankings: list[list[int]]
    index_seconds: float
    latencies: list[float]
    config: dict[str, Any]


def passage_text(title: str, text: str) -> str:
    """How a baseline sees a passage: its title, a newline, its text."""
    return f"{title}\n{text}"


def bm25_rank(texts: Sequence[str], questions: Sequence[str], k: int) -> IndexRanking:
    """Rank ``texts`` with ``bm25s`` (Lucene BM25, k1 1.5, b 0.75, English stopwords).

    Questions are answered one at a time so that the latency is per question, like the
    engine's.
    """
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25()
    tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
    retriever.index(tokens, show_progress=False)
    index_seconds = time.perf_counter() - started
    rankings: list[list[int]] = []
    latencies: list[float] = []
    top = min(k, len(texts))
    for question in questions:
        started = time.perf_counter()
        query = bm25s.tokenize([question], stopwords="en", show_progress=False)
        docs, _scores = retriever.retrieve(query, k=top, show_progress=False)
        latencies.append(time.perf_counter() - started)
        rankings.append([int(i) for i in docs[0]])
    config = {
        "library": f"bm25s {getattr(bm25s, '__version__', '?')}",
        "method": "lucene",
        "k1": 1.5,
        "b": 0.75,
        "stopwords": "en",
    }
    return IndexRanking(rankings, index_seconds, latencies, config)


def bm25_baseline(corpus: Sequence[Passage], questions: Sequence[str], k: int) -> BaselineRun:
    """Rank passages (titles) with :func:`bm25_rank` over ``title + "\\n" + text``."""
    ranked = bm25_rank([passage_text(t, x) for t, x in corpus], questions, k)
    titles = [t for t, _ in corpus]
    return BaselineRun(
        name="bm25",
        rankings=[[titles[i] for i in ranking] for ranking in ranked.rankings],
        index_seconds=ranked.index_seconds,
        latencies=ranked.latencies,
        config=ranked.config | {"text": "title + newline + text"},
    )


def dense_rank(
    texts: Sequence[str],
    questions: Sequence[str],
    embedder: Any,
    k: int,
    cache: Path | None = None,
) -> IndexRanking:
    """Rank ``texts`` by cosine similarity of ``embedder`` vectors (exact, brute force).

    ``embedder`` follows :class:`loregraph.embed.base.Embedder`. The text matrix is read
    from ``cache`` (a ``.npy`` file) when it exists and has the right shape, and written
    there otherwise.
    """
    started = time.perf_counter()
    matrix, cached = _text_matrix(texts, embedder, cache)
    index_seconds = time.perf_counter() - started
    top = min(k, len(texts))
    rankings: list[list[int]] = []
    latencies: list[float] = []
    for question in questions:
        started = time.perf_counter()
        query = np.asarray(embedder.embed([question]), dtype=np.float32)[0]
        scores = matrix @ query
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.argsort(-scores[best], kind="stable")]
        latencies.append(time.perf_counter() - started)
        rankings.append([int(i) for i in best])
    config = {
        "model": getattr(embedder, "name", type(embedder).__name__),
        "similarity": "cosine (exact)",
        "index_cached": cached,
    }
    return IndexRanking(rankings, index_seconds, latencies, config)


def dense_baseline(
    corpus: Sequence[Passage],
    questions: Sequence[str],
    embedder: Any,
    k: int,
    cache: Path | None = None,
) -> BaselineRun:
    """Rank passages (titles) with :func:`dense_rank` over ``title + "\\n" + text``."""
    ranked = dense_rank([passage_text(t, x) for t, x in corpus], questions, embedder, k, cache)
    titles = [t for t, _ in corpus]
    return BaselineRun(
        name="dense",
        rankings=[[titles[i] for i in ranking] for ranking in ranked.rankings],
        index_seconds=ranked.index_seconds,
        latencies=ranked.latencies,
        config=ranked.config | {"text": "title + newline + text"},
    )


def _text_matrix(
    texts: Sequence[str], embedder: Any, cache: Path | None
) -> tuple[npt.NDArray[np.float32], bool]:
    dim = int(embedder.dim)
    if cache is not None and cache.exists():
        matrix = np.load(cache)
        if matrix.shape == (len(texts), dim):
            log(f"dense baseline: text vectors read from {cache.name}")
            return np.asarray(matrix, dtype=np.float32), True
    log(f"dense baseline: embedding {len(texts)} texts")
    parts = [
        np.asarray(embedder.embed(list(texts[i : i + 256])), dtype=np.float32)
        for i in range(0, len(texts), 256)
    ]
    matrix = np.concatenate(parts) if parts else np.zeros((0, dim), np.float32)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, matrix)
    return matrix, False

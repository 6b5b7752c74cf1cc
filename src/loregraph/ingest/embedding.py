"""Embedding a batch of documents' chunks, with the texts resolution will ask for, in one
pass over distinct texts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from loregraph.embed.base import Embedder
from loregraph.ingest.progress import Progress

EMBED_STEP = 256
"""Texts per embedder call when embedding a batch (progress is reported after each call)."""


async def embed_batch(
    embedder: Embedder, progress: Progress, chunks: Sequence[Sequence[str]], extra: list[str]
) -> tuple[list[np.ndarray], np.ndarray]:
    """Embed each document's chunk texts and the ``extra`` texts, each distinct text once.

    Returns the chunk vectors per document and the vectors of ``extra``. The texts are
    embedded shortest first in steps of :data:`EMBED_STEP` (one embedder call each, for
    progress), so that the embedder's own batches carry little padding.
    """
    chunk_texts = [text for texts in chunks for text in texts]
    texts = chunk_texts + extra
    unique = list(dict.fromkeys(texts))
    progress.start("embed", len(unique))
    matrix = np.zeros((len(unique), embedder.dim), np.float32)
    order = sorted(range(len(unique)), key=lambda i: len(unique[i]))
    for i in range(0, len(order), EMBED_STEP):
        rows = order[i : i + EMBED_STEP]
        part = await asyncio.to_thread(embedder.embed, [unique[r] for r in rows])
        matrix[rows] = np.asarray(part, dtype=np.float32)
        progress.advance("embed", len(rows))
    progress.finish("embed")
    position = {text: i for i, text in enumerate(unique)}
    rows_of = np.asarray([position[t] for t in texts], dtype=np.int64)
    chunk_matrix = matrix[rows_of[: len(chunk_texts)]]
    out: list[np.ndarray] = []
    offset = 0
    for texts_of_one in chunks:
        out.append(chunk_matrix[offset : offset + len(texts_of_one)])
        offset += len(texts_of_one)
    return out, matrix[rows_of[len(chunk_texts) :]]

"""The one cheap deterministic embedding every system of the peers benchmark uses.

Bag of lower-cased words, each hashed (CRC-32, stable across processes) to a signed bucket
of ``DIM`` dimensions, L2-normalised. No model, no network: embedding costs the same small
amount in every system, so that what differs is the framework.

NumPy and the standard library only: the peers' processes import this module.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

DIM = 256
NAME = f"crc32-bow-{DIM}"

_WORD = re.compile(r"\w+")


def embed_texts(texts: Sequence[str], dim: int = DIM) -> npt.NDArray[np.float32]:
    """Embed ``texts`` into an L2-normalised float32 array of shape ``(len(texts), dim)``."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for row, text in enumerate(texts):
        words = _WORD.findall(text.lower())
        if not words:
            continue
        hashes = np.fromiter((zlib.crc32(w.encode()) for w in words), np.int64, len(words))
        signs = np.where(hashes & 1, 1.0, -1.0).astype(np.float32)
        np.add.at(out[row], (hashes >> 1) % dim, signs)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0.0)
    return out


class BenchEmbedder:
    """:func:`embed_texts` behind loregraph's ``Embedder`` protocol (name, dim, embed)."""

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.name = f"crc32-bow-{dim}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts (see :func:`embed_texts`)."""
        return embed_texts(texts, self.dim)

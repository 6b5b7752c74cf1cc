"""A deterministic feature-hashing embedder: no model, no network, for tests and tiny setups.

Each text becomes a bag of lower-cased word unigrams, word bigrams and character 3-grams.
Every feature is hashed with a stable hash (BLAKE2b, never Python's randomised ``hash``)
into one of ``dim`` buckets with a sign, so that collisions tend to cancel; the sum is
L2-normalised. Texts that share words or spellings get similar vectors.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from hashlib import blake2b

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"\w+", re.UNICODE)

# Relative weights of the three feature kinds.
_UNIGRAM_WEIGHT = 1.0
_BIGRAM_WEIGHT = 0.5
_TRIGRAM_WEIGHT = 0.5


@lru_cache(maxsize=262_144)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """The bucket and sign of one feature (stable across processes and runs)."""
    digest = int.from_bytes(blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    sign = 1.0 if digest & 1 else -1.0
    return (digest >> 1) % dim, sign


def _features(text: str) -> Iterator[tuple[str, float]]:
    """The weighted features of one text."""
    words = _WORD.findall(text.lower())
    for word in words:
        yield "w:" + word, _UNIGRAM_WEIGHT
        padded = f"<{word}>"
        for i in range(len(padded) - 2):
            yield "c:" + padded[i : i + 3], _TRIGRAM_WEIGHT
    for first, second in itertools.pairwise(words):
        yield f"b:{first} {second}", _BIGRAM_WEIGHT


class HashingEmbedder:
    """Embeds texts by signed feature hashing into ``dim`` dimensions.

    Deterministic across processes and machines; a text with no word characters maps to the
    zero vector.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed texts; returns an L2-normalised float32 array of shape ``(len(texts), dim)``."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            indices: list[int] = []
            values: list[float] = []
            for feature, weight in _features(text):
                index, sign = _bucket(feature, self.dim)
                indices.append(index)
                values.append(sign * weight)
            if indices:
                np.add.at(out[row], np.asarray(indices), np.asarray(values, dtype=np.float32))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0.0)
        return out

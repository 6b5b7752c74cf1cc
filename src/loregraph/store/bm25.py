"""BM25 scores computed from each match's word counts, for a backend whose full-text index
finds the matches and counts the words but does not rank them usefully (SurrealDB's
``search::score`` is 0 for a word in half the texts or more).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

K1 = 1.2
"""How quickly more occurrences of a word stop adding to the score."""
B = 0.75
"""How much a long text's score is lowered for its length."""


def bm25_scores(freqs: Sequence[Sequence[int]], lengths: Sequence[int], total: int) -> list[float]:
    """The BM25 score of each match: ``freqs[m][w]`` is how often word ``w`` of the query
    occurs in match ``m``, ``lengths[m]`` its length in words, ``total`` the number of texts
    searched. A word's idf is ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (``n``: the matches that
    hold it); the mean length of the matches stands in for the collection's."""
    if not freqs:
        return []
    words = len(freqs[0])
    held = [sum(1 for f in freqs if f[w]) for w in range(words)]
    idf = [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in held]
    sizes = [max(1, length) for length in lengths]
    mean = sum(sizes) / len(sizes)
    scores = []
    for freq, size in zip(freqs, sizes, strict=True):
        norm = K1 * (1 - B + B * size / mean)
        scores.append(sum(w * tf * (K1 + 1) / (tf + norm) for w, tf in zip(idf, freq, strict=True)))
    return scores

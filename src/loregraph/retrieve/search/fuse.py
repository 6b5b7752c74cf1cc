"""Rank fusion: reciprocal rank fusion (RRF).

RRF scores an item ``sum(weight / (k + rank))`` over the rankings that contain it, with
ranks starting at 1. It needs no score calibration between rankings, which is why it is the
default way to merge BM25, vector and graph results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(slots=True)
class Fused:
    """An item after fusion: its fused score and its rank (1-based) in each input ranking."""

    id: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)

    @property
    def found_by(self) -> list[str]:
        """The names of the rankings that contain this item, in input order."""
        return list(self.ranks)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse named rankings (ids, best first) with RRF; returns items best first.

    A ranking may list an id more than once; only its first (best) rank counts. Ties are
    broken by the best rank the item reached anywhere, then by first appearance.
    """
    if k < 0:
        raise ValueError(f"rrf k must not be negative, got {k}")
    fused: dict[str, Fused] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        seen: set[str] = set()
        rank = 0
        for item in ranking:
            if item in seen:
                continue
            seen.add(item)
            rank += 1
            entry = fused.get(item)
            if entry is None:
                entry = fused[item] = Fused(item, 0.0)
            entry.score += weight / (k + rank)
            entry.ranks[name] = rank
    order = {item: i for i, item in enumerate(fused)}
    return sorted(
        fused.values(),
        key=lambda f: (-f.score, min(f.ranks.values()), order[f.id]),
    )

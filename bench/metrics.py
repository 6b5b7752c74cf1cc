"""Pure metric code of the benchmarks: recall@k, precision/recall/F1, entity and pair matching.

Kept free of engine imports (except :func:`loregraph.models.name_key`, the engine's own name
normalisation) so that it is cheap to unit-test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from loregraph.models import name_key


# --------------------------------------------------------------------------- retrieval
def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """|top-k ∩ gold| / |gold|: the share of gold items found in the first ``k`` ranked ones.

    Duplicates in ``ranked`` count once; an empty gold set is an error (the question cannot
    be scored).
    """
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("recall of a question without gold items is undefined")
    top: list[str] = []
    for item in ranked:
        if item not in top:
            top.append(item)
        if len(top) == k:
            break
    return len(gold_set.intersection(top)) / len(gold_set)


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean (0.0 for no values)."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def recall_table(
    rankings: Sequence[Sequence[str]],
    golds: Sequence[Sequence[str]],
    groups: Sequence[str],
    ks: Sequence[int] = (2, 5),
) -> dict[str, dict[str, float]]:
    """Mean recall@k in percent, overall (``"all"``) and per group (e.g. question type).

    Returns ``{group: {"n": count, "R@2": pct, "R@5": pct}}``.
    """
    if not len(rankings) == len(golds) == len(groups):
        raise ValueError("rankings, golds and groups must have the same length")
    buckets: dict[str, list[int]] = {"all": list(range(len(rankings)))}
    for i, group in enumerate(groups):
        buckets.setdefault(group, []).append(i)
    table: dict[str, dict[str, float]] = {}
    for group, idx in buckets.items():
        row: dict[str, float] = {"n": len(idx)}
        for k in ks:
            row[f"R@{k}"] = round(100 * mean(recall_at_k(rankings[i], golds[i], k) for i in idx), 2)
        table[group] = row
    return table


# --------------------------------------------------------------------------- P/R/F1
@dataclass(slots=True)
class PRF:
    """Counts behind precision and recall (micro-averaged when summed over documents).

    ``pred_hits`` of ``pred_total`` predictions were correct; ``gold_hits`` of ``gold_total``
    gold items were found. The two hit counts differ when one prediction matches several
    gold items or several predictions match one.
    """

    pred_hits: int = 0
    pred_total: int = 0
    gold_hits: int = 0
    gold_total: int = 0

    def add(self, other: PRF) -> None:
        """Accumulate another document's counts."""
        self.pred_hits += other.pred_hits
        self.pred_total += other.pred_total
        self.gold_hits += other.gold_hits
        self.gold_total += other.gold_total

    @property
    def precision(self) -> float:
        """Correct predictions / predictions (0 when nothing was predicted)."""
        return self.pred_hits / self.pred_total if self.pred_total else 0.0

    @property
    def recall(self) -> float:
        """Gold items found / gold items (0 when there is no gold)."""
        return self.gold_hits / self.gold_total if self.gold_total else 0.0

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float]:
        """Percentages and raw counts, JSON-ready."""
        return {
            "precision": round(100 * self.precision, 2),
            "recall": round(100 * self.recall, 2),
            "f1": round(100 * self.f1, 2),
            "pred_hits": self.pred_hits,
            "pred_total": self.pred_total,
            "gold_hits": self.gold_hits,
            "gold_total": self.gold_total,
        }


def name_keys(names: Iterable[str]) -> frozenset[str]:
    """The non-empty normalised keys (:func:`loregraph.models.name_key`) of some names."""
    return frozenset(k for k in (name_key(n) for n in names) if k)


def match_entities(
    predicted: Sequence[frozenset[str]], gold: Sequence[frozenset[str]]
) -> tuple[list[set[int]], PRF]:
    """Match predicted entities to gold entities by shared normalised names.

    Each entity is the set of its normalised names (name + aliases for a prediction, every
    mention name for a gold entity). A prediction matches a gold entity when the two sets
    intersect. Returns, for each prediction, the gold indices it matches, and the counts.
    """
    index: dict[str, set[int]] = {}
    for gi, keys in enumerate(gold):
        for key in keys:
            index.setdefault(key, set()).add(gi)
    links: list[set[int]] = []
    found: set[int] = set()
    for keys in predicted:
        hit: set[int] = set()
        for key in keys:
            hit |= index.get(key, set())
        links.append(hit)
        found |= hit
    prf = PRF(
        pred_hits=sum(1 for hit in links if hit),
        pred_total=len(predicted),
        gold_hits=len(found),
        gold_total=len(gold),
    )
    return links, prf


def match_pairs(
    predicted_pairs: Iterable[tuple[int, int]],
    links: Sequence[set[int]],
    gold_pairs: Iterable[tuple[int, int]],
) -> PRF:
    """Direction-insensitive (head, tail) pair matching, regardless of relation label.

    ``predicted_pairs`` are pairs of prediction indices, ``links`` maps a prediction to the
    gold entities it matches (from :func:`match_entities`), ``gold_pairs`` are pairs of gold
    entity indices. Self-pairs and duplicates are ignored on both sides.
    """
    gold = {frozenset(p) for p in gold_pairs if p[0] != p[1]}
    preds = {frozenset(p) for p in predicted_pairs if p[0] != p[1]}
    found: set[frozenset[int]] = set()
    correct = 0
    for pair in preds:
        a, b = tuple(pair)
        hits = {frozenset((x, y)) for x in links[a] for y in links[b] if x != y} & gold
        if hits:
            correct += 1
            found |= hits
    return PRF(pred_hits=correct, pred_total=len(preds), gold_hits=len(found), gold_total=len(gold))


# --------------------------------------------------------------------------- text
_NO_SPACE_BEFORE = re.compile(r" ([,.;:!?%)\]}]|'s\b|n't\b|'re\b|'ve\b|'ll\b|'d\b|'m\b)")
_NO_SPACE_AFTER = re.compile(r"([(\[{$]) ")


def detokenize(tokens: Sequence[str]) -> str:
    """Join word tokens into readable text: spaces between tokens, none before closing
    punctuation and English clitics, none after opening brackets."""
    text = " ".join(t for t in tokens if t)
    text = _NO_SPACE_BEFORE.sub(r"\1", text)
    return _NO_SPACE_AFTER.sub(r"\1", text)

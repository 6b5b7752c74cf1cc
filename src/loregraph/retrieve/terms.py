"""A question's content terms and their weights, shared by the relevance check and focus.

Each term weighs ``1 / log2(2 + df)``, where ``df`` is how many chunks of the scope contain
it: a term the store has never seen weighs 1, a word found everywhere little.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loregraph.text.words import stem, words


@dataclass(frozen=True, slots=True)
class Term:
    """A content term of a question.

    ``text`` is what the store's text search is asked for; ``key`` what a passage must
    contain: a word stem, or (``substring``) a case-folded substring.
    """

    text: str
    key: str
    substring: bool = False


def term_weight(count: int) -> float:
    """A term's weight from the number of chunks that contain it."""
    return 1.0 / math.log2(2 + max(count, 0))


def held_terms(text: str, terms: Sequence[Term]) -> list[str]:
    """The keys of ``terms`` that ``text`` contains."""
    stems = {stem(w) for w in words(text)}
    folded = text.casefold()
    return [t.key for t in terms if (t.key in folded if t.substring else t.key in stems)]


@dataclass(frozen=True, slots=True)
class Focus:
    """The question's terms and their weights, to choose the sentences of a passage."""

    terms: tuple[Term, ...] = ()
    weights: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, terms: Sequence[Term], counts: Mapping[str, int]) -> Focus:
        """The focus for terms whose chunk counts are ``counts``."""
        return cls(tuple(terms), {t.key: term_weight(counts.get(t.key, 0)) for t in terms})

    def score(self, text: str) -> float:
        """The weight of the question's terms that ``text`` holds."""
        return sum(self.weights.get(key, 0.0) for key in held_terms(text, self.terms))

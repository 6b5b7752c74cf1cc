"""A question's content terms and their weights, shared by the relevance check and focus.

Each term weighs ``1 / log2(2 + df)``, where ``df`` is how many chunks of the scope contain
it: a term the store has never seen weighs 1, a word found everywhere little.

A question also says what shape its answer has: "Who…", "Which…", "Where…" and "What is
the name…" ask for a name, "How many…" and "When…" for a number or a date. The sentence
that answers holds such a thing besides the question's own words, so a sentence holding
the wanted shape earns :data:`SHAPE_BONUS` when the focus chooses among the sentences of a
passage.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loregraph.text.words import stem, words

SHAPE_BONUS = 0.5
"""What a sentence holding the answer's shape adds to its focus score, in term weights
(a term the store has never seen weighs 1). Measured on the long-document questions of
``bench/longdoc.py``."""

_ASKS_NAME = re.compile(
    r"^\W*(?:(?:at|in|on|to|from|by|for|with|of|into)\s+)?"
    r"(?:who|whom|whose|which|where|what\s+(?:is|was|were|are)\s+the\s+names?)\b",
    re.IGNORECASE,
)
_ASKS_NUMBER = re.compile(
    r"^\W*(?:how\s+(?:many|much|long|old|far)|when|what\s+(?:year|date|time))\b",
    re.IGNORECASE,
)
# a capitalised word that does not open the sentence or a quotation: a name ("I" is none)
_NAME = re.compile(r"(?<!^)(?<![“‘\"'(\[:]\s)(?<![“‘\"'(\[])\b(?!I['’])[A-Z][\w'’-]+")
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"thirty|forty|fifty|hundred|thousand|first|second|third)\b",
    re.IGNORECASE,
)


def bare_word(word: str) -> str:
    """``word`` compared as a name: case-folded, without emphasis underscores or a
    possessive ("_Lucy’s_" and "Lucy's" are "lucy")."""
    folded = word.strip("_").casefold().replace("’", "'")
    return folded.removesuffix("'s").rstrip("'")


def answer_shape(question: str) -> str:
    """``"name"``, ``"number"`` or ``""``: what the answer to ``question`` is expected to
    be."""
    if _ASKS_NAME.search(question):
        return "name"
    if _ASKS_NUMBER.search(question):
        return "number"
    return ""


# "Who…", "Which man…"
_ASKS_PERSON = re.compile(
    r"^\W*(?:(?:to|from|by|for|with|of)\s+)?(?:who|whom|whose|which\s+(?:man|woman|person|"
    r"child|boy|girl|friend|doctor|member|author))\b",
    re.IGNORECASE,
)
_ASKS_PLACE = re.compile(r"^\W*(?:(?:from|to)\s+)?where\b", re.IGNORECASE)


def wanted_types(question: str) -> frozenset[str]:
    """The entity types a question asking for a name wants: people for "who", places for
    "where"; empty when any type may answer ("which ship")."""
    if _ASKS_PERSON.search(question):
        return frozenset({"Person"})
    if _ASKS_PLACE.search(question):
        return frozenset({"Location"})
    return frozenset()


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
    shape: str = ""
    own: frozenset[str] = frozenset()

    @classmethod
    def of(cls, terms: Sequence[Term], counts: Mapping[str, int], question: str = "") -> Focus:
        """The focus for terms whose chunk counts are ``counts``; ``question`` gives the
        answer's shape (:func:`answer_shape`)."""
        weights = {t.key: term_weight(counts.get(t.key, 0)) for t in terms}
        own = frozenset(bare_word(w) for w in words(question))
        return cls(tuple(terms), weights, answer_shape(question), own)

    def score(self, text: str) -> float:
        """The weight of the question's terms that ``text`` holds, plus
        :data:`SHAPE_BONUS` when it holds the answer's shape."""
        score = sum(self.weights.get(key, 0.0) for key in held_terms(text, self.terms))
        return score + SHAPE_BONUS if self.holds_shape(text) else score

    def holds_shape(self, text: str) -> bool:
        """Whether ``text`` holds a name (or number) that the question itself does not."""
        return bool(self.shape_matches(text))

    def shape_matches(self, text: str) -> list[str]:
        """The names (numbers) in ``text`` that the question itself does not hold."""
        pattern = _PATTERNS.get(self.shape)
        if pattern is None:
            return []
        found = (m.group(0) for m in pattern.finditer(text))
        # "to England" is no answer to a question that says it
        return [w for w in found if bare_word(w.split()[-1]) not in self.own]


_PATTERNS = {"name": _NAME, "number": _NUMBER}

"""A question's content terms and their weights, shared by the relevance check and focus.

Each term weighs ``1 / log2(2 + df)``, where ``df`` is how many chunks of the scope contain
it: a term the store has never seen weighs 1, a word found everywhere little.

A question also says what shape its answer has: "Who…", "Which…", "Where…" and "What is
the name…" ask for a name, "How many…" and "When…" for a number or a date, "How did … travel
from …" for a means of travel (a vehicle, or a route: "at Whitby from Varna"). The sentence
that answers holds such a thing besides the question's own words ("Which men proposed to
Lucy?" is answered by the sentence naming Seward, not by the one repeating "proposed"), so
a sentence holding the wanted shape earns :data:`SHAPE_BONUS` when the focus chooses
among the sentences of a passage.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from loregraph.text.entity_types import VEHICLES
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
# "how", a helping verb, a subject of at most six words (no clause opens in it: "How was
# the cargo found when the ship came…" asks something else), a verb of travel, then where
# to or from: "How do I get the current date?" and "How did the war go?" ask no way
_ASKS_TRAVEL = re.compile(
    r"^\W*how\s+(?:do|does|did|will|would|can|could|should|might|may|is|was|are|were|has|"
    r"had|have)\s+(?:(?!(?:when|where|after|before|while|as|if|that|which|who|whom|because|"
    r"since|until|once)\b)[\w'’.,-]+\s+){0,6}?(?:(?:try|tries|tried|plan|plans|planned|want|"
    r"wants|wanted|mean|means|meant)\s+to\s+)?(?:(?:travel|journey|voyage|sail|return|"
    r"reach|cross|follow|escape|transport)(?:s|es|ed|led|ing|ling)?|go|goes|going|gone|went|"
    r"come|comes|came|coming|get|gets|got|getting|ride|rode|riding|fly|flew|flying|drive|"
    r"drove|driving|move|moves|moved|moving|flee|flees|fled|carry|carries|carried|carrying|"
    r"make\s+\w+\s+way)\b"
    r".*?\b(?:from|to|towards?|into|onto|across|along|up|down|through|between|via|out\s+of|"
    r"back\s+to)\s+(?:(?:the|a|an|his|her|their|its|our|my|your|one)\b|(?-i:[A-Z_]))",
    re.IGNORECASE,
)
# a vehicle ("the diligence", "horses", "a steam launch", "on foot")
_VEHICLE = re.compile(
    rf"\b(?i:{VEHICLES}|ferries|coach|diligence|calèche|caleche|cart|launch|horse|"
    r"horseback|lorry|lorries)(?:s|(?<=ch)es|(?<=s)es)?\b|\b(?i:on\s+foot)\b"
)
# a route: a place left and a place reached, both named ("at Whitby from Varna")
_ROUTE_FROM = re.compile(r"\b(?i:from)\s+(?:the\s+)?_?[A-Z][\w'’-]+")
_ROUTE_TO = re.compile(r"\b(?i:to|at|for|into|towards?|via)\s+(?:the\s+)?_?[A-Z][\w'’-]+")
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


def asks_travel(question: str) -> bool:
    """Whether ``question`` asks how someone travels or moves: "how", a verb of travel and
    where to or from ("How did the Count travel to…", "How does one get from…")."""
    return bool(_ASKS_TRAVEL.search(question))


def means_of_travel(text: str) -> list[str]:
    """The vehicles ``text`` names, then its route: the phrases naming a place left
    ("from Varna") and a place reached ("at Whitby"), only when it has both."""
    found = [m.group(0) for m in _VEHICLE.finditer(text)]
    left = [m.group(0) for m in _ROUTE_FROM.finditer(text)]
    reached = [m.group(0) for m in _ROUTE_TO.finditer(text)]
    if left and reached:
        found.extend(sorted([*left, *reached], key=text.find))
    return found


def answer_shape(question: str) -> str:
    """``"name"``, ``"number"``, ``"means"`` (of travel) or ``""``: what the answer to
    ``question`` is expected to be."""
    if asks_travel(question):
        return "means"
    if _ASKS_NAME.search(question):
        return "name"
    if _ASKS_NUMBER.search(question):
        return "number"
    return ""


PEOPLE_NOUNS = frozenset(
    {
        "men",
        "women",
        "people",
        "persons",
        "children",
        "boys",
        "girls",
        "friends",
        "doctors",
        "members",
        "authors",
        "writers",
        "suitors",
        "lovers",
        "brothers",
        "sisters",
        "sons",
        "daughters",
        "servants",
        "sailors",
        "soldiers",
        "officers",
        "guests",
        "visitors",
        "employees",
    }
)
"""The plural nouns of people a "which" question may ask for ("Which men…")."""
_PEOPLE = "|".join(sorted(PEOPLE_NOUNS))
# "Who…", "Which man…" (several people, "Which men…", are :func:`asks_for_people`'s)
_ASKS_PERSON = re.compile(
    r"^\W*(?:(?:to|from|by|for|with|of)\s+)?(?:who|whom|whose|which\s+(?:man|woman|person|"
    r"child|boy|girl|friend|doctor|member|author))\b",
    re.IGNORECASE,
)
# "Which men…", "Which two friends…", "To which people…": several people asked for
_ASKS_PEOPLE = re.compile(
    rf"^\W*(?:(?:to|from|by|for|with|of|among)\s+)?which\s+(?:[\w-]+\s+)?(?:{_PEOPLE})\b"
    r"(?!['’])",  # "Which men's club…" asks for a club
    re.IGNORECASE,
)
_ASKS_PLACE = re.compile(r"^\W*(?:(?:from|to)\s+)?where\b", re.IGNORECASE)


def asks_for_people(question: str) -> bool:
    """Whether ``question`` asks which people (several) did something: "Which men…",
    "Which two friends…", "To which people…"."""
    return bool(_ASKS_PEOPLE.search(question))


def wanted_types(question: str) -> frozenset[str]:
    """The entity types a question asking for a name wants: people for "who" and "which
    men", places for "where"; empty when any type may answer ("which ship")."""
    if _ASKS_PERSON.search(question) or asks_for_people(question):
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
        """The names (numbers, means of travel) in ``text`` that the question itself does
        not hold."""
        if self.shape == "means":
            found: Iterable[str] = means_of_travel(text)
        elif (pattern := _PATTERNS.get(self.shape)) is not None:
            found = (m.group(0) for m in pattern.finditer(text))
        else:
            return []
        # "to England" is no answer to a question that says it
        return [w for w in found if bare_word(w.split()[-1]) not in self.own]


_PATTERNS = {"name": _NAME, "number": _NUMBER}

"""Small text helpers shared by query analysis and the extractive answer."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
"""A word: letters/digits, with inner apostrophes (``don't``, ``O'Brien``)."""

_STOPWORDS = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each else even ever every few for from further get gets got had
    hadn has hasn have haven having he her here hers herself him himself his how however i if
    in into is isn it its itself just let lets like many may me might mine more most much
    must my myself no nor not now of off on once one only or other others ought our ours
    ourselves out over own per please quite rather really s same say says shall she should
    shouldn since so some such t than that the their theirs them themselves then there these
    they this those though through thus to too toward towards under until up upon us very
    via was wasn we were weren what whatever when whenever where wherever whether which
    while who whoever whom whose why will with within without won would wouldn yet you your
    yours yourself yourselves
    onto across along among amongst around behind beneath beside besides beyond inside
    outside throughout
    tell describe explain summarise summarize give show list know find name named
    anything something everything thing things way ways kind
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS.split())
"""English function words and question scaffolding; never keywords."""

_PREPOSITION_WORDS = """
aboard about above across after against along alongside amid amidst among amongst around as
at before behind below beneath beside besides between beyond by despite down during except
for from in inside into like near of off on onto opposite out outside over past per round
since than through throughout till to toward towards under underneath unlike until up upon
versus via with within without
"""
PREPOSITIONS: frozenset[str] = frozenset(_PREPOSITION_WORDS.split())
"""English prepositions, lower case."""
_LIGHT_VERB_FORMS = """
be is are was were been do does did done have has had get gets got go goes went gone come
comes came make makes made take takes took put puts set sets keep keeps kept let lets
"""
LIGHT_VERBS: frozenset[str] = frozenset(_LIGHT_VERB_FORMS.split())
"""Verbs that say little on their own ("does", "takes", "is"), in their common forms."""

_QUESTION_WORDS = (
    "who whom whose what which when where why how is are was were do does did can could "
    "should would will tell describe explain summarise summarize give list name"
)
QUESTION_WORDS: frozenset[str] = frozenset(_QUESTION_WORDS.split())
"""Words that start a question; a capitalised one is not a name."""


def words(text: str) -> list[str]:
    """The words of a text, in order, as written."""
    return WORD.findall(text)


def strip_possessive(word: str) -> str:
    """``Harker's`` → ``Harker``; ``Jesus'`` → ``Jesus``; other words unchanged."""
    for suffix in ("'s", "’s", "'S", "’S"):
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    if len(word) > 2 and word[-1] in "'’" and word[-2] in "sS":
        return word[:-1]
    return word


LATIN_END = 0x0530
"""Combining marks are dropped from letters below this code point (Latin, Greek, Cyrillic)."""


def fold_accents(word: str) -> str:
    """``Akinoshū`` → ``Akinoshu``: the accents of Latin, Greek and Cyrillic letters
    dropped, so spelling variants match; other scripts (kana's voicing marks) untouched."""
    if word.isascii():
        return word
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", word):
        if unicodedata.combining(char) and kept and ord(kept[-1]) < LATIN_END:
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A light English stemmer for matching: case-folded, accents dropped
    (:func:`fold_accents`), plural/verb endings removed."""
    w = fold_accents(strip_possessive(word).casefold())
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    if len(w) > 3 and w.endswith("es") and w[-3] in "sxz":
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """The case-folded content words of a text, without stopwords, in first-seen order."""
    seen: dict[str, None] = {}
    for word in words(text):
        w = strip_possessive(word).casefold()
        if len(w) < 2 and not w.isdigit():
            continue
        if w in STOPWORDS:
            continue
        seen.setdefault(w, None)
    return list(seen)

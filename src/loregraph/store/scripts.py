"""Query terms for text search, by writing system.

Word indexes (SQLite FTS5 ``unicode61``, PostgreSQL ``tsvector``) cut text at spaces and
punctuation. That fails in two kinds of scripts:

* **unsegmented** scripts write no space between words (Chinese, Japanese, Thai, Lao,
  Khmer, Myanmar, Tibetan): a whole clause is one "word", so no word of it can be found;
* **affixing** scripts attach particles and articles to the word (Arabic ``المدينة`` "the
  city", Hebrew ``בבית`` "in the house", Korean ``서울에서`` "in Seoul"): the word a user
  types is only part of the written one.

In both, text search must match substrings instead. :func:`split_query` separates a query
into *words* (for the word index) and *substring terms* (for a substring index: SQLite's
FTS5 trigram tokenizer, PostgreSQL's pg_trgm): a run of an unsegmented script becomes its
overlapping three-character pieces (any of which may match; text sharing more of them ranks
higher) and a word of an affixing script one substring that must occur whole. Terms shorter
than three characters (``猫``, ``北京``) are kept whole: each backend looks them up its own way.

The stores index only text that holds one of these scripts in their substring index:
:data:`SUBSTRING_SCRIPT_GLOB` and :data:`SUBSTRING_SCRIPT_REGEX` select it in SQL.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from loregraph.models import Scored

UNSEGMENTED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK and Kangxi radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3038, 0x303C),
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31FF),  # Bopomofo extended, Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x323AF),  # CJK extensions B-H
)
"""Code-point ranges of scripts written without spaces between words."""

AFFIXING_RANGES: tuple[tuple[int, int], ...] = (
    (0x0590, 0x05FF),  # Hebrew
    (0x0600, 0x06FF),  # Arabic
    (0x0700, 0x074F),  # Syriac
    (0x0750, 0x077F),  # Arabic supplement
    (0x0780, 0x07BF),  # Thaana
    (0x08A0, 0x08FF),  # Arabic extended-A
    (0x1100, 0x11FF),  # Hangul jamo
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xFB1D, 0xFB4F),  # Hebrew presentation forms
    (0xFB50, 0xFDFF),  # Arabic presentation forms A
    (0xFE70, 0xFEFF),  # Arabic presentation forms B
)
"""Code-point ranges of scripts whose words carry attached particles or articles."""

SUBSTRING_RANGES = tuple(sorted(UNSEGMENTED_RANGES + AFFIXING_RANGES))

TRIGRAM = 3
MAX_SUBSTRING_TERMS = 64
FUSION_K = 60


def _in(ranges: tuple[tuple[int, int], ...], char: str) -> bool:
    point = ord(char)
    return any(lo <= point <= hi for lo, hi in ranges)


def is_unsegmented(char: str) -> bool:
    """Whether ``char`` belongs to a script written without spaces between words."""
    return _in(UNSEGMENTED_RANGES, char)


def is_substring_script(char: str) -> bool:
    """Whether text search matches ``char``'s script by substring (see module docstring)."""
    return _in(SUBSTRING_RANGES, char)


def _glob_class() -> str:
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in SUBSTRING_RANGES)


SUBSTRING_SCRIPT_GLOB = f"*[{_glob_class()}]*"
"""An SQLite ``GLOB`` pattern true for text holding a substring-matched script."""

SUBSTRING_SCRIPT_REGEX = f"[{_glob_class()}]"
"""A PostgreSQL regular expression (``~``) true for text holding such a script."""


def _is_word_char(char: str) -> bool:
    # letters, digits and combining marks (Python's \w splits "हिन्दी" at its vowel signs)
    return unicodedata.category(char)[0] in "LNM"


def word_runs(text: str) -> list[str]:
    """Maximal runs of letters, digits and combining marks, in order."""
    runs: list[str] = []
    current: list[str] = []
    for char in text:
        if _is_word_char(char):
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def _script_segments(run: str) -> list[tuple[str, bool]]:
    """A run cut where it passes between substring-matched and other scripts.

    Combining marks stay with the segment they follow.
    """
    out: list[tuple[str, bool]] = []
    for char in run:
        kind = (
            out[-1][1]
            if out and unicodedata.category(char).startswith("M")
            else is_substring_script(char)
        )
        if out and out[-1][1] == kind:
            out[-1] = (out[-1][0] + char, kind)
        else:
            out.append((char, kind))
    return out


def trigrams(text: str) -> list[str]:
    """The overlapping three-character pieces of ``text`` (``text`` itself when shorter)."""
    if len(text) <= TRIGRAM:
        return [text]
    return [text[i : i + TRIGRAM] for i in range(len(text) - TRIGRAM + 1)]


@dataclass(slots=True)
class QueryTerms:
    """A text query split by script.

    ``words``: case-folded words for the word index. ``substrings``: case-folded terms that
    must occur as substrings; any of them may match. ``short``: those of fewer than three
    characters (a substring index of three-character pieces cannot look them up directly).
    """

    words: list[str] = field(default_factory=list)
    substrings: list[str] = field(default_factory=list)

    @property
    def short(self) -> list[str]:
        """Substring terms shorter than three characters."""
        return [t for t in self.substrings if len(t) < TRIGRAM]

    @property
    def long(self) -> list[str]:
        """Substring terms of three characters or more."""
        return [t for t in self.substrings if len(t) >= TRIGRAM]


def split_query(text: str, max_terms: int = MAX_SUBSTRING_TERMS) -> QueryTerms:
    """Split a query into words and substring terms (see the module docstring)."""
    out = QueryTerms()
    words: dict[str, None] = {}
    subs: dict[str, None] = {}
    for run in word_runs(text):
        for segment, substring in _script_segments(run):
            term = segment.casefold()
            if not substring:
                words.setdefault(term, None)
            elif any(is_unsegmented(ch) for ch in segment):
                for piece in trigrams(term):
                    subs.setdefault(piece, None)
            else:
                subs.setdefault(term, None)
    out.words = list(words)[:max_terms]
    out.substrings = list(subs)[:max_terms]
    return out


def fuse_rankings(rankings: Sequence[Sequence[Scored]], limit: int) -> list[Scored]:
    """The word and substring rankings of one query fused by reciprocal rank (``k`` =
    :data:`FUSION_K`); the score is the fused one, ties broken by id."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (FUSION_K + rank)
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Scored(item, score) for item, score in ordered[: max(limit, 0)]]

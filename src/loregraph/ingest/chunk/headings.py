"""Whether one paragraph is a heading, by its shape (general rules, no names or books).

* **Setext** (markdown): a one-line paragraph underlined with ``===`` (level 1) or ``---``
  (level 2).
* **Divisions**: a paragraph of one line (or two, the second a short title) that starts
  with a capitalised division word and its number: "PART II", "BOOK ONE", "Volume 3"
  (level 1); "CHAPTER IV", "Chapter 4. The Storm", "Appendix A", "Act II", "Letter 7"
  (level 2); "Section 3", "Scene 2" (level 3). "Prologue", "Preface", "Introduction",
  "Epilogue" and the like standing alone are level 2.
* **Numbered headings** standing alone: "5.4. Constraints", "2.1 Scope", "IV. The Storm":
  one line, a title that starts with a capital and holds no sentence; at depth one the
  number ends in a full stop and the title is in title case (an ordered list's "1. Install
  the package" is no heading). Level: one more than the depth. Only outside markdown (in
  markdown a numbered line is a list item).
* **Entry headings** (:data:`ENTRY_LEVEL`, below every other kind): a short paragraph (at
  most two lines, :data:`ENTRY_CHARS` characters, two words or more) that is all capitals,
  less any emphasised aside ("JONATHAN HARKER'S JOURNAL--_continued_"), or wholly wrapped
  in ``_…_`` or ``*…*`` and in title case ("_Letter from Miss Mina Murray to Miss Lucy
  Westenra._"), with no sentence inside it. (Title case: most words of four letters or
  more begin with a capital, as :func:`.frontmatter.title_case` tells.)

None of these is a heading: a paragraph of more than two lines, a table row, a block
quote, a list item, a line with code punctuation, a paragraph that ends in "!" or "?" or
is a quotation (dialogue), a one-word paragraph (except the division words above), a
paragraph with a sentence inside it (a lower-case word, or a capitals word that is no
abbreviation, ending in ".", "!" or "?" with more text after it), and a line in capitals
with two commas or more (a list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loregraph.ingest.chunk.frontmatter import title_case

TITLE_CHARS = 100
"""A section title longer than this is cut (at a word, with "…")."""
ENTRY_CHARS = 120
"""Longest entry heading (all capitals or emphasised), markup excluded."""
ENTRY_WORDS = 16
"""Most words of an entry heading."""
TITLE_WORDS = 12
"""Most words of the title of a division or numbered heading."""
ENTRY_LEVEL = 7
"""The level of entry headings: below every markdown, division and numbered level."""

_UNDERLINE = re.compile(r"^ {0,3}(={3,}|-{3,})[ \t]*$")
_DIVISION_WORDS = {
    "part": 1,
    "book": 1,
    "volume": 1,
    "chapter": 2,
    "appendix": 2,
    "act": 2,
    "canto": 2,
    "stave": 2,
    "letter": 2,
    "section": 3,
    "scene": 3,
}
_OPENINGS = frozenset(
    ("prologue", "preface", "foreword", "introduction", "epilogue", "afterword", "appendix")
)
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
)
_DIVISION = re.compile(
    rf"^(?P<word>[A-Z][A-Za-z]+)[ \t]+(?:(?i:the)[ \t]+)?"
    rf"(?P<number>\d{{1,3}}(?:\.\d{{1,3}})*|[IVXLCDM]{{1,7}}|[ivxlcdm]{{1,7}}|[A-Z]|"
    rf"(?i:{_NUMBER_WORDS}))"
    rf"(?=$|[ \t.:—–-])[.:]?(?:[ \t]*[—–-]+)?[ \t]*(?P<title>.*)$"
)
_NUMBERED = re.compile(
    r"^(?:(?P<digits>\d{1,3}(?:\.\d{1,3})*)\.?|(?P<roman>[IVXLCDM]{1,7})\.)[ \t]+(?P<title>\S.*)$"
)
_EMPHASIS_RUN = re.compile(r"(?<![\w*])[*_]+|[*_]+(?![\w*])")
_ASIDE = re.compile(r"(?<!\w)(?:_[^_\n]+_|\*[^*\n]+\*)(?!\w)")
_WRAPPED = re.compile(r"^(?P<mark>\*\*|__|[*_])(?P<body>.+?)(?P=mark)[.:]?$")
_SENTENCE_INSIDE = re.compile(
    r"(?:(?<![A-Za-z])(?:[a-z]{2,}|(?=[A-Z]*[AEIOUY])[A-Z]{3,})[.!?]|[!?])[\"'”’)\]_*]*\s+\S"
)
"""A sentence ends inside: a lower-case word, or a word in capitals with a vowel and three
letters or more ("RAN.", not "DR." or "MRS."), ending in ".", "!" or "?" before more text."""
_LOUD_END = re.compile(r"[!?][\"'”’)\]_*]*$")
_CODE_MARKS = re.compile(r"[;={}<>|\\`]|\(\)|^\s*//")
_NOT_PARAGRAPH_START = re.compile(r"^\s*(?:>|[-+•][ \t]|\*[ \t]|\d+\)[ \t])")
_QUOTES = "\"'“”‘’«»"
_OPENING_QUOTES = "\"'“‘«"
_CLOSING_QUOTES = "\"'”’»"


@dataclass(frozen=True, slots=True)
class Heading:
    """A paragraph read as a heading: the ``shape`` of rule that found it (headings of
    one shape in a row are a list), its ``level`` and ``title``; ``closing`` marks a line
    in capitals that ends in a full stop (a heading, or a name signing a letter)."""

    shape: str
    level: int
    title: str
    closing: bool = False


def paragraph_heading(raws: list[str], *, numbered: bool = True) -> Heading | None:
    """The heading a paragraph is by its shape (its lines, stripped), else ``None``;
    numbered lines only when ``numbered`` (in markdown they are list items)."""
    if len(raws) > 2 or any(_NOT_PARAGRAPH_START.match(r) or "|" in r for r in raws):
        return None
    if len(raws) == 2 and _UNDERLINE.match(raws[1]) and _heading_text(raws[0].replace("`", "")):
        return Heading("setext", 1 if raws[1][0] == "=" else 2, heading_title(raws[0]))
    division = _division(raws)
    if division is not None:
        return Heading(f"division{division[0]}", *division)
    number = _numbered(raws[0]) if numbered and len(raws) == 1 else None
    if number is not None:
        return Heading(f"numbered{number[0]}", *number)
    joined = " ".join(raws)
    capitals = _entry(joined)
    if capitals is None:
        return None
    closing = capitals and joined.endswith(".")
    return Heading("entry", ENTRY_LEVEL, heading_title(joined), closing)


def heading_title(raw: str) -> str:
    """A heading's title: no markup, one space between words, no trailing "." or ":",
    cut to :data:`TITLE_CHARS`."""
    return _cut(_plain(raw.replace("`", "")).rstrip(" .:"))


def join_titles(first: str, second: str) -> str:
    """Two adjacent headings as one title ("LOG OF THE SHIP — From A to B")."""
    return _cut(f"{first} — {second}")


def _division(raws: list[str]) -> tuple[int, str] | None:
    """``(level, title)`` of a division heading ("CHAPTER IV", "Part Two. The Sea")."""
    core = _plain(raws[0])
    word = core.rstrip(".:").strip()
    if len(raws) == 1 and word.lower() in _OPENINGS and _capitalised(word):
        return 2, heading_title(word)
    match = _DIVISION.match(core)
    if match is None or not _capitalised(match.group("word")):
        return None
    level = _DIVISION_WORDS.get(match.group("word").lower())
    rest = match.group("title")
    if level is None or (rest and (not _opens_title(rest) or not _heading_text(rest))):
        return None
    if len(raws) == 2:
        second = _plain(raws[1])
        if not _heading_text(second):
            return None
        sep = " " if core.endswith((".", ":")) else ". "
        core = f"{core}{sep}{second}"
    return level, heading_title(core)


def _numbered(raw: str) -> tuple[int, str] | None:
    """``(level, title)`` of a numbered heading standing alone ("5.4. Constraints")."""
    core = _plain(raw)
    match = _NUMBERED.match(core)
    if match is None:
        return None
    rest = match.group("title")
    digits = match.group("digits")
    depth = digits.count(".") + 1 if digits else 1
    if depth == 1 and digits and not core.startswith(f"{digits}."):
        return None  # "12 May", "300 Spartans": a number and words, not "1. Introduction"
    if not _heading_text(rest) or not _opens_title(rest):
        return None
    if (depth == 1 or rest.endswith(".")) and not title_case(rest.split()):
        return None
    return min(1 + depth, 6), heading_title(core)


def _entry(joined: str) -> bool | None:
    """Whether an entry heading is in capitals (``True``) or wholly emphasised and in title
    case (``False``); ``None`` when it is no entry heading (long, one word, a sentence
    inside, dialogue)."""
    core = _plain(joined)
    if len(core) > ENTRY_CHARS or not _heading_text(core, ENTRY_WORDS):
        return None
    if sum(1 for w in core.split() if any(c.isalpha() for c in w)) < 2 or _quoted(core):
        return None
    loud = _ASIDE.sub(" ", joined)
    cased = [c for c in loud if c.isalpha() and c.isupper() != c.islower()]
    if len(cased) >= 4 and all(c.isupper() for c in cased):
        return True if core.count(",") < 2 else None  # "ALTER A, ALTER B, DROP C": a list
    wrapped = _WRAPPED.match(joined)
    if wrapped is None or wrapped.group("mark")[0] in wrapped.group("body"):
        return None
    return False if title_case(core.split()) else None


def _quoted(core: str) -> bool:
    """Dialogue: one quotation, or a quotation opened and not closed (its next lines)."""
    if core[0] not in _OPENING_QUOTES:
        return False
    return core.rstrip(".")[-1] in _QUOTES or not any(c in _CLOSING_QUOTES for c in core[1:])


def _heading_text(core: str, words: int = TITLE_WORDS) -> bool:
    """Short, no sentence inside, not ending in "!" or "?", no code punctuation."""
    if not core or len(core.split()) > words:
        return False
    if _SENTENCE_INSIDE.search(core) or _LOUD_END.search(core):
        return False
    return _CODE_MARKS.search(core) is None


def _plain(raw: str) -> str:
    """A line less emphasis marks, with its spaces collapsed."""
    return " ".join(_EMPHASIS_RUN.sub("", raw).split())


def _cut(title: str) -> str:
    """``title`` cut to :data:`TITLE_CHARS` at a word, with "…"."""
    if len(title) <= TITLE_CHARS:
        return title
    return title[:TITLE_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:.") + "…"


def _opens_title(rest: str) -> bool:
    """Begins as a title does: with a capital, or a quotation mark or bracket before one."""
    return rest.lstrip(_OPENING_QUOTES + "(")[:1].isupper()


def _capitalised(word: str) -> bool:
    """Begins with a capital and is not in mixed case ("Chapter", "CHAPTER")."""
    return word[:1].isupper() and (word[1:].islower() or word.isupper())

"""Front matter recognised by its shape: a table of contents and the title page before it.

A *table of contents* is a line that says only "Contents" (or "Table of Contents", as a
Markdown heading or in emphasis too) near the start of a text, followed by at least
:data:`MIN_ENTRIES` short lines of which most read as headings: numbered ("1.2 Setup",
"IV. The Storm"), led by a section word ("CHAPTER I. …", "Part Two"), ending in a page
number after a gap or dot leader, a Markdown link ("- [Install](#install)"), or in title
case. The list ends at a line that reads as prose, at a blank gap wider than the list's
own, or where an entry repeats an earlier one (the body's first chapter heading after the
list). A two-line list, or "Contents" followed by sentences, is not a table of contents.

The *title page* is what comes before such a list when every paragraph of it is short and
none reads as a sentence of prose (title, author, publisher, copyright line, dedication);
a preface or an introduction written as prose is kept. :func:`title_page` also finds a
book's title page when it has no table of contents, ending at the first chapter heading
or prose paragraph; :mod:`.boilerplate` uses that only inside a Project Gutenberg body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_ENTRIES = 3
"""Fewest entries a table of contents lists."""
HEADING_SHARE = 0.6
"""Least share of a table of contents' entries that must read as headings."""
ENTRY_CHARS = 100
"""Longest entry line (less link targets and emphasis)."""
CONTENTS_WINDOW = 5_000
"""The "Contents" line is looked for in the first this many characters of a text, or its
first tenth when that is longer."""
SCAN_CHARS = 30_000
"""How far past the window a table of contents may run."""
FRONT_CHARS = 3_000
"""Longest title page set aside."""
TITLE_PAGE_LINES = 6
TITLE_LINE_CHARS = 90

Line = tuple[int, int]
"""A line's ``[start, end)`` in the text (the line break excluded)."""

_CONTENTS = re.compile(
    r"^\s*(?:#{1,6}\s*)?[*_]*\s*(?:table\s+of\s+)?contents\s*[*_]*\s*[.:]?\s*$", re.I
)
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+|#{1,6}\s+)")
_EMPHASIS = re.compile(r"[*_`]+")
_PAGE = re.compile(r"(?:\s*(?:\.\s*){2,}|\s*…\s*|\t\s*|\s{2,})(\d{1,4}|[ivxlc]{1,7})\s*$", re.I)
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*\.?|[IVXLCDM]+\.|[A-Z]\.)(?=\s+\S)")
_SECTION = re.compile(
    r"^(chapter|part|book|section|act|scene|volume|appendix|letter|canto|stave)\b\.?\s*"
    r"(\d+|[ivxlcdm]+\b|one|two|three|four|five|six|seven|eight|nine|ten|first|second|third)?",
    re.I,
)
_OPENING = re.compile(
    r"^(preface|introduction|prologue|foreword|epilogue|afterword|glossary|index|notes?|"
    r"acknowledge?ments?|bibliography|references)\b\.?$",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]_*]*$")


@dataclass(frozen=True, slots=True)
class Found:
    """A piece of front matter: ``kind`` (``contents`` or ``title_page``), its span, and
    how many entries or lines it holds."""

    kind: str
    start: int
    end: int
    count: int


def lines_of(text: str, lo: int, hi: int) -> list[Line]:
    """The lines of ``text[lo:hi]`` as spans of ``text``."""
    out: list[Line] = []
    pos = lo
    while pos < hi:
        newline = text.find("\n", pos, hi)
        end = hi if newline == -1 else newline
        out.append((pos, end))
        pos = end + 1
    return out


def paragraphs_of(text: str, lines: list[Line]) -> list[list[Line]]:
    """Runs of non-blank lines."""
    out: list[list[Line]] = []
    current: list[Line] = []
    for start, end in lines:
        if text[start:end].strip():
            current.append((start, end))
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def contents(text: str, lo: int, hi: int) -> list[Found]:
    """The table of contents of ``text[lo:hi]`` and the title page before it, if any."""
    window = min(hi, lo + max(CONTENTS_WINDOW, (hi - lo) // 10))
    lines = lines_of(text, lo, min(hi, window + SCAN_CHARS))
    for i, (start, end) in enumerate(lines):
        if start >= window:
            break
        if not _CONTENTS.match(text[start:end]):
            continue
        listed = _entries(text, lines[i + 1 :])
        if listed is None:
            continue
        stop, count = listed
        found = [Found("contents", start, stop, count)]
        before = paragraphs_of(text, lines[:i])
        if before and all(_title_like(text, p) for p in before):
            first, last = before[0][0][0], before[-1][-1][1]
            if last - first <= FRONT_CHARS:
                found.insert(0, Found("title_page", first, last, _count_lines(before)))
        return found
    return []


def title_page(text: str, lo: int, hi: int) -> Found | None:
    """The leading paragraphs of ``text[lo:hi]`` that read as a title page (short, no
    prose), up to the first chapter heading or prose paragraph; ``None`` when there are
    none or they run past :data:`FRONT_CHARS`."""
    lines = lines_of(text, lo, min(hi, lo + FRONT_CHARS + 1_000))
    taken: list[list[Line]] = []
    for paragraph in paragraphs_of(text, lines):
        lead = _core(text[paragraph[0][0] : paragraph[0][1]])
        if _SECTION.match(lead) or _OPENING.match(lead) or not _title_like(text, paragraph):
            break
        taken.append(paragraph)
    else:
        return None  # nothing after it: the whole window is short lines, not a title page
    if not taken:
        return None
    first, last = taken[0][0][0], taken[-1][-1][1]
    if last - first > FRONT_CHARS:
        return None
    return Found("title_page", first, last, _count_lines(taken))


def _count_lines(paragraphs: list[list[Line]]) -> int:
    return sum(len(p) for p in paragraphs)


def _entries(text: str, lines: list[Line]) -> tuple[int, int] | None:
    """``(end of the last heading-like entry, entries)`` of the list after a "Contents"
    line, or ``None`` when the lines there are not a table of contents."""
    seen: set[str] = set()
    count = headings = gap = widest = 0
    stop = -1
    for start, end in lines:
        raw = text[start:end]
        if not raw.strip():
            gap += 1
            continue
        if gap > (max(2, widest + 1) if count else 3):
            break
        entry = _entry(raw)
        if entry is None or entry[1] in seen:
            break
        if count:
            widest = max(widest, gap)
        seen.add(entry[1])
        count += 1
        gap = 0
        if entry[0]:
            headings += 1
            stop = end
    if count < MIN_ENTRIES or headings < HEADING_SHARE * count:
        return None
    return stop, headings


def _core(raw: str) -> str:
    """A line less link targets, list bullets, heading marks and emphasis."""
    core = _LINK.sub(r"\1", raw)
    core = _BULLET.sub("", core)
    return " ".join(_EMPHASIS.sub("", core).split())


def _entry(raw: str) -> tuple[bool, str] | None:
    """``(reads as a heading, key)`` for a line of a table of contents; ``None`` for a
    line that cannot be one (too long, or prose). The key tells a repeated entry."""
    linked = _LINK.search(raw) is not None
    core = _core(raw)
    if not core or len(core) > ENTRY_CHARS:
        return None
    page = _PAGE.search(core)
    paged = page is not None and page.start() > 0
    label = _label(core)
    words = core.split()
    heading = linked or paged or label is not None or title_case(words)
    if not heading and (len(words) >= 8 or _SENTENCE_END.search(core)):
        return None
    return heading, label or core.lower()


def _label(core: str) -> str | None:
    """ "chapter iv" for "CHAPTER IV. The Storm", "1.2" for "1.2 Setup"; else ``None``."""
    section = _SECTION.match(core)
    if section and section.group(2):
        return f"{section.group(1)} {section.group(2)}".lower()
    numbered = _NUMBERED.match(core)
    return numbered.group(1).rstrip(".").lower() if numbered else None


def title_case(words: list[str]) -> bool:
    """Most words of four letters or more (all words, if none is) begin with a capital."""
    lettered = [w for w in words if any(c.isalpha() for c in w)]
    long = [w for w in lettered if sum(c.isalpha() for c in w) >= 4] or lettered
    if not long:
        return False
    capital = sum(1 for w in long if next(c for c in w if c.isalpha()).isupper())
    return capital >= HEADING_SHARE * len(long)


def _title_like(text: str, paragraph: list[Line]) -> bool:
    """A paragraph of a title page: a few short lines, not a sentence of prose (nor a
    Markdown heading, which the document's structure keeps)."""
    parts = [text[s:e].strip() for s, e in paragraph]
    if len(parts) > TITLE_PAGE_LINES or parts[0].startswith("#"):
        return False
    if any(len(p) > TITLE_LINE_CHARS for p in parts):
        return False
    body = " ".join(parts)
    letters = [c for c in body if c.isalpha()]
    upper = sum(c.isupper() for c in letters) / len(letters) if letters else 1.0
    prose = len(body.split()) >= 4 and _SENTENCE_END.search(body) is not None and upper < 0.5
    return not prose

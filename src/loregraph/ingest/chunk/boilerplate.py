"""Setting aside the boilerplate of common sources before a document is chunked.

What is recognised, by markers and by shape (never by knowing a source):

* **Project Gutenberg**: everything up to and including the ``*** START OF THE PROJECT
  GUTENBERG EBOOK … ***`` line (the header: title, author, release note, licence summary)
  and everything from the ``*** END OF …`` line on (the licence), with an "End of the
  Project Gutenberg …" line just before it. The header's ``Title:``, ``Author:`` and eBook
  number (or the marker's) are kept as ``metadata["gutenberg"]``.
* **Front matter** (:mod:`.frontmatter`): a table of contents near the start, with the
  title page before it; in a Gutenberg body without one, a leading title page.
* **Licence blocks** at either edge of the text: a run of paragraphs that starts with one
  holding two licence markers (a copyright line with a year, "all rights reserved",
  "licensed under", "permission is hereby granted", "without warranty", a named licence,
  an SPDX identifier…) and goes on while paragraphs mention a licence, copyright,
  warranty or permission (short headings in between are taken along).
* **Back matter** of a book: what follows a line that says only "THE END" (or "Finis")
  in the last tenth of a long text (publishers' lists of other titles).

Only the Gutenberg markers may set aside more than half of a text; the shape rules never
do (a short record, or one that is mostly a list, stays whole), and a text is never
emptied. Memories are never changed.

The stored text is what is kept: the remaining ranges of the text as read, each stripped,
joined by a blank line. Chunk offsets, character counts and the content hash are all of
that stored text. ``metadata["boilerplate"]`` lists each part set aside (kind, span in the
text as read, characters, summary), ``metadata["text_spans"]`` the ranges kept, and
``metadata["front_matter"]`` / ``metadata["licence"]`` hold the text of the title page and
table of contents, and of the licence, header and footer (each cut to
:data:`METADATA_CHARS`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from loregraph.ingest.chunk.frontmatter import Line, contents, lines_of, paragraphs_of, title_page
from loregraph.ingest.read.readlog import has_words
from loregraph.ingest.types import SourceDocument
from loregraph.models import DocKind

METADATA_CHARS = 4_000
"""Characters of set-aside text kept in the document's metadata, per key."""
EDGE_PARAGRAPHS = 400
"""Paragraphs looked at from each edge for a licence block."""
HEADING_CHARS = 80
"""A one-line paragraph this short may sit inside or before a licence block."""
BACK_MATTER_SHARE = 0.1
BACK_MATTER_MIN_CHARS = 20_000
""""THE END" counts only in the last tenth of a text at least this long."""

_START = re.compile(
    r"^[ \t]*\*{3}[ \t]*START OF (?:THE|THIS) PROJECT GUTENBERG E-?(?:BOOK|TEXT)\b"
    r"[ \t]*(?P<rest>[^\n*]*?)[ \t]*(?:\*{3}[^\n]*)?$",
    re.I | re.M,
)
_END = re.compile(
    r"^[ \t]*\*{3}[ \t]*END OF (?:THE|THIS) PROJECT GUTENBERG E-?(?:BOOK|TEXT)\b[^\n]*$",
    re.I | re.M,
)
_END_LINE = re.compile(r"^[ \t]*End of (?:the )?Project Gutenberg\b[^\n]*$", re.I | re.M)
_FIELD = re.compile(r"^[ \t]*(Title|Author|Language)[ \t]*:[ \t]*(\S[^\n]*?)[ \t\r]*$", re.I | re.M)
_EBOOK = re.compile(r"\bE-?(?:Book|Text)[ \t]*#[ \t]*(\d+)", re.I)
_THE_END = re.compile(r"^[ \t]*[*_]*(?:the end|finis)[*_]*\.?[ \t\r]*$", re.I | re.M)
_MARKERS = tuple(
    re.compile(p, re.I)
    for p in (
        r"(?:copyright|©)\W{0,4}(?:\(c\)\W{0,3})?\d{4}",
        r"\ball rights reserved\b",
        r"\bpermission is hereby granted\b",
        r"\blicen[cs]ed under\b",
        r"\b(?:gnu|apache|mit|bsd|mozilla|eclipse)\b[^\n]{0,40}\blicen[cs]e\b",
        r"\bcreative commons\b",
        r"\bspdx-license-identifier\b",
        r"\bwithout (?:any )?warrant(?:y|ies)\b",
        r"\bprovided\W{1,3}as is\b",
        r"\bredistribution and use in source and binary forms\b",
        r"\bterms of (?:the|this)\b[^\n]{0,40}\blicen[cs]e\b",
    )
)
_LICENCE_WORD = re.compile(
    r"\b(?:licen[cs]|copyright|©|warrant|permission|permitted|trademark|redistribut|liabilit)",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of the text as read that is set aside: its ``kind``, span and a summary."""

    kind: str
    start: int
    end: int
    summary: str

    def to_dict(self) -> dict[str, Any]:
        """The part as JSON-ready metadata."""
        return {
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "chars": self.end - self.start,
            "summary": self.summary,
        }


@dataclass(slots=True)
class Boilerplate:
    """What :func:`find_boilerplate` found: the parts set aside, the ranges kept, the
    stored text, and what a Gutenberg header says (title, author, ebook, language)."""

    parts: list[Part]
    kept: list[Line]
    text: str
    gutenberg: dict[str, str]

    def metadata(self, original: str) -> dict[str, Any]:
        """The document metadata describing what was set aside (module docstring)."""
        out: dict[str, Any] = {
            "boilerplate": [p.to_dict() for p in self.parts],
            "text_spans": [[s, e] for s, e in self.kept],
        }
        front = [p for p in self.parts if p.kind in ("title_page", "contents")]
        licence = [p for p in self.parts if p.kind.startswith(("gutenberg", "licence"))]
        for key, parts in (("front_matter", front), ("licence", licence)):
            if parts:
                out[key] = _capped("\n\n".join(_tidy(original[p.start : p.end]) for p in parts))
        if self.gutenberg:
            out["gutenberg"] = dict(self.gutenberg)
        return out


def set_aside(document: SourceDocument) -> SourceDocument:
    """``document`` with its boilerplate set aside (a new document), or itself when it has
    none or is a memory."""
    if document.kind != DocKind.DOCUMENT:
        return document
    found = find_boilerplate(document.text)
    if found is None:
        return document
    metadata = {**document.metadata, **found.metadata(document.text)}
    return dataclasses.replace(document, text=found.text, metadata=metadata)


def find_boilerplate(text: str) -> Boilerplate | None:
    """The boilerplate of ``text`` and the text that remains; ``None`` when there is none
    (or setting it aside would leave no words)."""
    parts, lo, hi, info = _gutenberg(text)
    shaped = _shaped(text, lo, hi, gutenberg=bool(parts))
    if 2 * sum(p.end - p.start for p in shaped) > hi - lo:
        shaped = []
    parts = sorted(parts + shaped, key=lambda p: p.start)
    if not parts:
        return None
    kept: list[Line] = []
    pos = 0
    for part in [*parts, Part("", len(text), len(text), "")]:
        span = _stripped(text, pos, part.start)
        if span is not None and has_words(text[span[0] : span[1]]):
            kept.append(span)
        pos = max(pos, part.end)
    if not kept:
        return None
    stored = "\n\n".join(text[s:e] for s, e in kept)
    return Boilerplate(parts, kept, stored, info)


def _gutenberg(text: str) -> tuple[list[Part], int, int, dict[str, str]]:
    """The Gutenberg header and footer parts, the body's span and the header's fields."""
    parts: list[Part] = []
    lo, hi = 0, len(text)
    info: dict[str, str] = {}
    start = _START.search(text)
    if start is not None:
        lo = start.end()
        header = text[: start.start()]
        for match in _FIELD.finditer(header):
            info.setdefault(match.group(1).lower(), match.group(2))
        number = _EBOOK.search(header)
        rest = start.group("rest").strip()
        if number is not None:
            info["ebook"] = number.group(1)
        elif rest.isdigit():
            info["ebook"] = rest
        elif rest:
            info.setdefault("title", rest)
        named = f" ({', '.join(f'{k} {v}' for k, v in info.items())})" if info else ""
        parts.append(Part("gutenberg_header", 0, lo, f"Project Gutenberg header{named}"))
    end = _END.search(text, lo)
    if end is not None:
        hi = end.start()
        last = _last(_END_LINE, text, max(lo, hi - 2_000), hi)
        if last is not None and not has_words(text[last.end() : hi]):
            hi = last.start()
        summary = f"Project Gutenberg end marker and licence ({len(text) - hi:,} characters)"
        parts.append(Part("gutenberg_footer", hi, len(text), summary))
    if hi <= lo or not has_words(text[lo:hi]):
        return [], 0, len(text), {}
    return parts, lo, hi, info


def _shaped(text: str, lo: int, hi: int, *, gutenberg: bool) -> list[Part]:
    """Parts recognised by shape inside the body ``text[lo:hi]``."""
    parts: list[Part] = []
    back = _back_matter(text, lo, hi)
    if back is not None:
        parts.append(back)
        hi = back.start
    front = contents(text, lo, hi)
    if not front and gutenberg:
        page = title_page(text, lo, hi)
        front = [page] if page is not None else []
    for found in front:
        what = "entries" if found.kind == "contents" else "lines"
        label = "table of contents" if found.kind == "contents" else "title page"
        summary = f"{label} ({found.count} {what})"
        parts.append(Part(found.kind, found.start, found.end, summary))
        lo = max(lo, found.end)
    paragraphs = paragraphs_of(text, lines_of(text, lo, hi))
    leading = _licence_run(text, paragraphs[:EDGE_PARAGRAPHS])
    if leading is not None:
        parts.append(leading)
    tail = paragraphs[-EDGE_PARAGRAPHS:]
    trailing = _licence_run(text, tail[::-1], reverse=True)
    if trailing is not None and (leading is None or trailing.start >= leading.end):
        parts.append(trailing)
    return parts


def _back_matter(text: str, lo: int, hi: int) -> Part | None:
    if hi - lo < BACK_MATTER_MIN_CHARS:
        return None
    last = _last(_THE_END, text, hi - int((hi - lo) * BACK_MATTER_SHARE), hi)
    if last is None or not has_words(text[last.end() : hi]):
        return None
    start = last.end()
    return Part("back_matter", start, hi, f"after the end of the book ({hi - start:,} characters)")


def _licence_run(text: str, paragraphs: list[list[Line]], *, reverse: bool = False) -> Part | None:
    """A licence block at the start of ``paragraphs`` (given from an edge inwards): it
    begins with a paragraph of two licence markers, at most two short heading lines away
    from the edge (or one short licence heading before it), and goes on while paragraphs
    mention a licence (or are short headings)."""
    texts = [text[p[0][0] : p[-1][1]] for p in paragraphs]
    begin = next(
        (i for i, t in enumerate(texts[:3]) if _strong(t)),
        None,
    )
    if begin is None or any(not _heading(t) for t in texts[:begin]):
        return None
    first = begin
    if reverse:
        first = 0  # a trailing block must reach the end of the text
    elif begin and _LICENCE_WORD.search(texts[begin - 1]):
        first = begin - 1
    last = begin
    for i in range(begin + 1, len(texts)):
        if _LICENCE_WORD.search(texts[i]):
            last = i
        elif not _heading(texts[i]):
            break
    if reverse:
        heading = texts[last + 1] if last + 1 < len(texts) else ""
        if _heading(heading) and _LICENCE_WORD.search(heading):
            last += 1
        spans = [paragraphs[last], paragraphs[first]]
    else:
        spans = [paragraphs[first], paragraphs[last]]
    start, end = spans[0][0][0], spans[1][-1][1]
    markers = sum(1 for t in texts[min(first, last) : max(first, last) + 1] if _strong(t))
    summary = f"licence ({end - start:,} characters, {markers} with licence terms)"
    return Part("licence", start, end, summary)


def _last(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text[lo:hi]``."""
    found = None
    for found in pattern.finditer(text, lo, hi):  # noqa: B007 - the last one is wanted
        pass
    return found


def _strong(paragraph: str) -> bool:
    return sum(1 for marker in _MARKERS if marker.search(paragraph)) >= 2


def _heading(paragraph: str) -> bool:
    return "\n" not in paragraph.strip() and len(paragraph.strip()) <= HEADING_CHARS


def _stripped(text: str, start: int, end: int) -> Line | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _tidy(value: str) -> str:
    """Lines stripped (a title page is centred with spaces), blank runs made one."""
    lines = [line.strip() for line in value.strip().splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def _capped(value: str) -> str:
    return value if len(value) <= METADATA_CHARS else value[: METADATA_CHARS - 1] + "…"

"""The section a passage is in: the heading path at its start, read from its document.

At ingest a document's headings are kept in ``metadata["sections"]`` as
``[[start, level, title], ...]`` (offsets in the stored text; a smaller level is a larger
division). The path at an offset is the nearest heading of each level above it, larger
levels first: "CHAPTER IV › JONATHAN HARKER'S JOURNAL". A passage that opens with a
heading opens with the headings right after it too (a chapter line, then the title of its
first entry): its path is the last of them's. A heading that only repeats the document's
title is left out of the path. Documents stored without sections (short
records, or documents ingested before sections were kept) have no path: ``""``.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import TypeGuard

from loregraph.models import CODE_LINES, Document
from loregraph.retrieve.results.result import Passage

SEPARATOR = " › "
"""Between the parts of a heading path, and between a document's title and its path."""
OPENING_SLACK = 16
"""Characters of markup and blank lines a heading may take beyond its title: a heading
that starts within them after another opens the same passages."""


class SectionIndex:
    """A document's heading paths, looked up by offset (a binary search).

    ``raw`` is the metadata value; entries that are not ``[int, int, str]`` are ignored,
    so a value of another shape (a record's own ``sections`` field) gives no paths.
    """

    def __init__(self, raw: object, title: str = "") -> None:
        entries = sorted(_entries(raw))
        own = _key(title)
        self.starts: list[int] = []
        self.paths: list[str] = []
        self.reach: list[int] = []
        stack: list[tuple[int, str]] = []
        for start, level, heading in entries:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
            self.starts.append(start)
            self.reach.append(start + len(heading) + OPENING_SLACK)
            parts = [h for _, h in stack if _key(h) != own]
            self.paths.append(SEPARATOR.join(parts))

    def path(self, offset: int) -> str:
        """The heading path at ``offset`` in the document's stored text (``""`` before the
        first heading); at a heading's start, that of the headings right after it."""
        i = bisect.bisect_right(self.starts, offset) - 1
        if i >= 0 and self.starts[i] == offset:
            while i + 1 < len(self.starts) and self.starts[i + 1] <= self.reach[i]:
                i += 1
        return self.paths[i] if i >= 0 else ""


def section_index(document: Document) -> SectionIndex:
    """The heading paths of ``document`` (empty when it has no sections)."""
    return SectionIndex(document.metadata.get("sections"), document.title)


def add_sections(passages: Sequence[Passage], documents: Mapping[str, Document]) -> None:
    """Set each passage's ``section`` to the heading path at its start (in place; one
    index per document)."""
    indexes: dict[str, SectionIndex] = {}
    for passage in passages:
        document = documents.get(passage.document_id)
        if document is None or "sections" not in document.metadata:
            continue
        index = indexes.get(document.id)
        if index is None:
            index = indexes[document.id] = section_index(document)
        passage.section = index.path(passage.start)


def add_lines(passages: Sequence[Passage], documents: Mapping[str, Document]) -> None:
    """Set the ``lines`` of each passage of a source file (in place), from the line its
    document notes each chunk starts on (:data:`~loregraph.models.CODE_LINES`)."""
    for passage in passages:
        document = documents.get(passage.document_id)
        starts = document.metadata.get(CODE_LINES) if document is not None else None
        if isinstance(starts, list) and 0 <= passage.seq < len(starts):
            first = int(starts[passage.seq])
            passage.lines = (first, first + passage.text.rstrip("\n").count("\n"))


def located(title: str, section: str) -> str:
    """``Title › Section path``, or the title alone when there is no section."""
    return f"{title}{SEPARATOR}{section}" if section else title


def source_line(title: str, section: str, seq: int, start: int, end: int) -> str:
    """``Title › Section, chunk k (characters a–b)``: where a passage or a quote is."""
    return f"{located(title, section)}, chunk {seq} (characters {start}–{end})"


def _entries(raw: object) -> list[tuple[int, int, str]]:
    if not isinstance(raw, list):
        return []
    out: list[tuple[int, int, str]] = []
    for item in raw:
        if not isinstance(item, list | tuple) or len(item) != 3:
            continue
        start, level, title = item
        if _integer(start) and _integer(level) and isinstance(title, str) and title.strip():
            out.append((start, level, " ".join(title.split())))
    return out


def _integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _key(title: str) -> str:
    """A title compared loosely: case, spaces and trailing punctuation aside."""
    return " ".join(title.casefold().split()).rstrip(" .:")

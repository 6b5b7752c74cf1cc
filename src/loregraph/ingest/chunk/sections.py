"""The sections of a document: its headings, in order, with their levels.

The text is read as blocks: paragraphs (runs of non-blank lines) and markdown ATX headings
(``#`` to ``######``, at most three spaces in, each a block of its own, at its own level).
Lines inside a fenced code block (```` ``` ```` or ``~~~``) and a YAML block at the very
start are left out. Every other paragraph is a heading or not by its shape
(:mod:`.headings`: setext, divisions such as "CHAPTER IV", numbered headings outside
markdown, entry headings in capitals or emphasis). Then, over the whole text:

* a run of :data:`LIST_RUN` or more consecutive paragraphs of one shape is a list (a table
  of contents, a list of steps), not headings;
* a heading found by its shape in the last paragraph titles nothing (a "See also" line)
  and is dropped, and so is an entry heading directly followed by a larger heading;
* an entry heading directly followed by another is dropped when it is a line in capitals
  ending in a full stop (a name signing a letter), else the two are one heading
  ("LOG OF THE SHIP — From A to B").

Levels nest: markdown headings at their level (1-6); divisions at 1 (part, book), 2
(chapter) or 3 (section, scene); numbered headings one below their depth; entry headings
at 7, below all of these.

The sections are kept in ``metadata["sections"]`` as ``[[start, level, title], ...]``:
``start`` is the offset of the heading's first character in the stored text (after the
boilerplate is set aside), ``level`` its level, ``title`` its text less markup. At most
:data:`MAX_SECTIONS` are kept (the larger divisions first, then the earlier ones). The
chunker starts a chunk at each of them.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from loregraph.ingest.chunk.frontmatter import Line, lines_of
from loregraph.ingest.chunk.headings import heading_title, join_titles, paragraph_heading
from loregraph.ingest.types import SourceDocument
from loregraph.models import DocKind

MAX_SECTIONS = 1_000
"""Most sections kept per document: the larger divisions first, then the earlier ones
(a book's chapters and entries fit; a manual converted to one document keeps its upper
levels). Thirty-odd characters each, so at most about 40 KB of metadata."""
LIST_RUN = 3
"""This many consecutive paragraphs of one shape are a list, not headings."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_YAML_FENCE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")


@dataclass(frozen=True, slots=True)
class Section:
    """A heading: where it starts in the text, its nesting level and its title."""

    start: int
    level: int
    title: str

    def to_list(self) -> list[Any]:
        """``[start, level, title]``, the compact form kept in metadata."""
        return [self.start, self.level, self.title]


def with_sections(document: SourceDocument) -> tuple[SourceDocument, list[int]]:
    """``document`` with its sections in ``metadata["sections"]``, and their starts.

    Memories, documents without headings, and documents whose reader already put a
    ``sections`` key in the metadata (a record's own field) are returned unchanged, with
    no starts.
    """
    if document.kind != DocKind.DOCUMENT or "sections" in document.metadata:
        return document, []
    sections = capped(find_sections(document.text))
    if not sections:
        return document, []
    metadata = {**document.metadata, "sections": [s.to_list() for s in sections]}
    return dataclasses.replace(document, metadata=metadata), [s.start for s in sections]


def capped(sections: list[Section], limit: int = MAX_SECTIONS) -> list[Section]:
    """At most ``limit`` sections: the larger divisions first, then the earlier ones, in
    text order."""
    if len(sections) <= limit:
        return sections
    kept = sorted(sections, key=lambda s: (s.level, s.start))[:limit]
    return sorted(kept, key=lambda s: s.start)


def find_sections(text: str) -> list[Section]:
    """The headings of ``text`` in order (see the module docstring for the rules)."""
    found: list[_Found] = []
    blocks = _blocks(text)
    markdown = any(isinstance(block, Section) for block in blocks)
    for index, block in enumerate(blocks):
        if isinstance(block, Section):
            found.append(_Found(index, "markdown", block))
            continue
        raws = [text[s:e].strip() for s, e in block]
        heading = paragraph_heading(raws, numbered=not markdown)
        if heading is not None:
            line = text[block[0][0] : block[0][1]]
            start = block[0][0] + len(line) - len(line.lstrip())
            section = Section(start, heading.level, heading.title)
            found.append(_Found(index, heading.shape, section, heading.closing))
    return _settled(_without_lists(found), len(blocks))


@dataclass(slots=True)
class _Found:
    """A heading found in paragraph ``index``, by which ``shape`` of rule; ``closing``
    marks a capitals line ending in a full stop (a name signing a letter, or a heading)."""

    index: int
    shape: str
    section: Section
    closing: bool = False


def _blocks(text: str) -> list[Section | list[Line]]:
    """The text's paragraphs (runs of lines), with ATX headings as sections of their own;
    code blocks and a leading YAML block are left out."""
    blocks: list[Section | list[Line]] = []
    current: list[Line] = []
    fence = ""
    lines = lines_of(text, 0, len(text))
    skip = _yaml_lines(text, lines)
    for start, end in lines[skip:]:
        raw = text[start:end].rstrip("\r")
        opening = _FENCE.match(raw)
        if fence or opening:
            if current:
                blocks.append(current)
                current = []
            if not fence and opening is not None:
                fence = opening.group(1)
            elif raw.strip().startswith(fence) and not raw.strip().strip(fence[0]):
                fence = ""
            continue
        if not raw.strip():
            if current:
                blocks.append(current)
                current = []
            continue
        atx = _ATX.match(raw)
        if atx is not None:
            if current:
                blocks.append(current)
                current = []
            title = heading_title(atx.group(2))
            if title:
                offset = start + len(raw) - len(raw.lstrip())
                blocks.append(Section(offset, len(atx.group(1)), title))
            continue
        current.append((start, end))
    if current:
        blocks.append(current)
    return blocks


def _yaml_lines(text: str, lines: list[Line]) -> int:
    """How many lines a YAML block at the very start of the text takes (0 if none)."""
    if not lines or text[lines[0][0] : lines[0][1]].rstrip() != "---":
        return 0
    for i, (start, end) in enumerate(lines[1:], start=1):
        if _YAML_FENCE.match(text[start:end]):
            return i + 1
    return 0


def _without_lists(found: list[_Found]) -> list[_Found]:
    """``found`` less runs of :data:`LIST_RUN` or more consecutive paragraphs of one shape
    (markdown headings are always kept)."""
    keep = [True] * len(found)
    i = 0
    while i < len(found):
        j = i
        while (
            j + 1 < len(found)
            and found[j + 1].index == found[j].index + 1
            and found[j + 1].shape == found[i].shape
        ):
            j += 1
        if j - i + 1 >= LIST_RUN and found[i].shape not in ("markdown", "setext"):
            keep[i : j + 1] = [False] * (j - i + 1)
        i = j + 1
    return [f for f, k in zip(found, keep, strict=True) if k]


def _settled(found: list[_Found], blocks: int) -> list[Section]:
    """The sections, less headings that title nothing, two adjacent entries as one (see
    the module docstring)."""
    out: list[Section] = []
    carry: Section | None = None
    for i, item in enumerate(found):
        section = item.section
        if carry is not None:
            title = join_titles(carry.title, section.title)
            section = Section(carry.start, section.level, title)
            carry = None
        if item.shape in ("markdown", "setext"):
            out.append(section)
            continue
        if item.index == blocks - 1:
            continue
        if item.shape != "entry":
            out.append(section)
            continue
        following = found[i + 1] if i + 1 < len(found) else None
        if following is None or following.index != item.index + 1:
            out.append(section)
        elif following.shape == "entry":
            carry = None if item.closing else section
        # else: directly followed by a larger heading, it titles nothing
    return out

"""Lists in a document's text: where one starts, how far it runs, and each item's head.

Markdown, and the text the readers convert HTML manuals into, writes a list as lines that
open with a marker (``- ``, ``* ``, ``+ ``, ``1. ``, ``2) ``), and a definition list as a
term line followed by a line that opens with ``:`` (a line ``-F format``, then a line
``:   Selects the format of the output.``). An item goes on over the lines indented deeper
than its first line; the list ends at the first line indented less than its items, at a
heading, or at a paragraph level with them that is neither an item nor a definition.

A sentence that announces a list ("The parser stage consists of two parts:", "Here we give a
short overview of the stages a query has to pass") is followed by it, or by the rest of a
line that ends with a colon and then by it, within :data:`LEAD_GAP` characters.
:func:`read_list` gives the head of each item (its marker or term, and the first sentence
of its text), which is what a reader scans to learn what the list holds; ``open`` tells that
the text ended inside the list, so the list may go on in the text that follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from loregraph.text.sentences import split_sentences

LEAD_GAP = 160
"""How far after a sentence (in characters) the list it announces may start."""
ITEM_HEAD_CHARS = 160
"""The longest item head, in characters (cut at a word)."""

_MARKER = re.compile(r"(?:[-*+]|\d{1,3}[.)])(?:[ \t]+(?=\S)|$)")
_BREAK = re.compile(r"[-*_ \t]+")
"""A thematic break (``* * *``, ``---``): no list item."""


@dataclass(frozen=True, slots=True)
class ListItem:
    """One item of a list: where its first line starts, and its head on one line."""

    start: int
    head: str


@dataclass(frozen=True, slots=True)
class ListRun:
    """The items of a list read from a text, where the reading stopped (``end``, the end of
    the list's last line), and whether the text ended inside the list (``open``)."""

    items: tuple[ListItem, ...]
    end: int
    open: bool


def _lines(text: str, start: int) -> Iterator[tuple[int, str]]:
    pos = start
    while pos < len(text):
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline
        yield pos, text[pos:end]
        pos = end + 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _line_at(text: str, offset: int) -> tuple[int, str]:
    """The start and text of the line holding ``offset``."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, text[start : len(text) if end < 0 else end]


def _is_term(text: str, start: int, line: str) -> bool:
    """Whether the line at ``start`` is a definition list's term: the next line that is not
    blank opens with ``:`` at the same indent."""
    for _, following in _lines(text, start + len(line) + 1):
        if following.strip():
            return following.lstrip().startswith(":") and _indent(following) == _indent(line)
    return False


def _marker(stripped: str) -> re.Match[str] | None:
    """The list marker opening a stripped line (none for a thematic break)."""
    return None if _BREAK.fullmatch(stripped) else _MARKER.match(stripped)


def _opens_item(text: str, start: int, line: str) -> bool:
    return bool(_marker(line.strip())) or _is_term(text, start, line)


def _item_text(text: str, start: int, base: int) -> str:
    """An item's first paragraph from ``start``: up to a blank line or a line indented no
    deeper than the list (``base``), so a head wrapped over indented lines stays whole."""
    first = True
    end = start
    for line_start, line in _lines(text, start):
        if not first and (not line.strip() or _indent(line) <= base):
            break
        first = False
        end = line_start + len(line)
    return text[start:end]


def _first_sentence(text: str) -> str:
    spans = split_sentences(text[:800])
    sentence = " ".join(text[: spans[0][1]].split()) if spans else ""
    if len(sentence) <= ITEM_HEAD_CHARS:
        return sentence
    cut = sentence.rfind(" ", 0, ITEM_HEAD_CHARS)
    return sentence[: cut if cut > 0 else ITEM_HEAD_CHARS]


def list_after(text: str, offset: int) -> int | None:
    """Where the list that follows ``offset`` starts (the offset of its first item's line):
    a list whose first line, or the line ending with a colon that leads into it, starts
    within :data:`LEAD_GAP` characters; ``None`` when no list follows."""
    lead_in = False
    for start, line in _lines(text, offset):
        stripped = line.strip()
        if not stripped:
            continue
        if not lead_in and start - offset > LEAD_GAP:
            return None
        if _opens_item(text, start, line):
            return start
        if lead_in or not stripped.endswith(":"):
            return None
        lead_in = True
    return None


def read_list(text: str, start: int) -> ListRun:
    """The items of the list whose first item's line starts at ``start``."""
    items: list[ListItem] = []
    base: int | None = None
    end = start
    for line_start, line in _lines(text, start):
        stripped = line.strip()
        if not stripped:
            continue
        indent = _indent(line)
        base = indent if base is None else base
        if indent < base or stripped.startswith("#"):
            break  # a heading, or a comment line of code in an item: the list is not read on
        if indent == base:
            item = _item_at(text, line_start, line, base, items)
            if item is None:
                break
            if item.start == line_start:
                items.append(item)
            else:
                items[-1] = item
        end = line_start + len(line)
    open_end = end >= len(text.rstrip())  # the text ends inside the list: it may go on
    return ListRun(tuple(items), end, open_end)


def _item_at(
    text: str, line_start: int, line: str, base: int, items: list[ListItem]
) -> ListItem | None:
    """The item a line at the list's indent opens (or the last item, with the definition
    the line gives it); ``None`` when the line ends the list."""
    stripped = line.strip()
    marker = _marker(stripped)
    body_start = line_start + _indent(line)
    if marker:
        body = _first_sentence(_item_text(text, body_start + marker.end(), base))
        return ListItem(line_start, f"{stripped[: marker.end()].strip()} {body}".strip())
    if stripped.startswith(":") and items:
        definition = _first_sentence(_item_text(text, body_start + 1, base).lstrip())
        return ListItem(items[-1].start, f"{items[-1].head} : {definition}")
    if _is_term(text, line_start, line):
        return ListItem(line_start, " ".join(stripped.split()))
    return None


def ends_in_list(text: str) -> bool:
    """Whether ``text`` ends inside a list (so the list may go on in what follows it)."""
    last: int | None = None
    for start, line in _lines(text, 0):
        if line.strip() and _opens_item(text, start, line):
            last = start
    return last is not None and read_list(text, last).open


def announces(text: str, sentence_start: int, list_start: int) -> bool:
    """Whether the sentence at ``sentence_start`` announces the list at ``list_start``: the
    list is nested inside the sentence's item when the sentence is an item (an option whose
    values are listed), and not indented less than the sentence otherwise. An item, or a
    paragraph inside one, is followed by its siblings, not by what it announces."""
    line_start, line = _line_at(text, sentence_start)
    is_item = line.lstrip().startswith(":") or _opens_item(text, line_start, line)
    own, listed = _indent(line), _indent(_line_at(text, list_start)[1])
    return listed > own if is_item else listed >= own

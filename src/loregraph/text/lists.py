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

_MARKER = re.compile(r"(?:[-*+]|\d{1,3}[.)])[ \t]+(?=\S)")


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


def _opens_item(text: str, start: int, line: str) -> bool:
    stripped = line.strip()
    return bool(_MARKER.match(stripped)) or _is_term(text, start, line)


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
            break
        if line_start + len(line) >= len(text):
            return ListRun(tuple(items), end, True)  # the text was cut inside the list
        if indent == base:
            marker = _MARKER.match(stripped)
            if marker:
                body = _first_sentence(stripped[marker.end() :])
                items.append(ListItem(line_start, f"{stripped[: marker.end()]}{body}"))
            elif stripped.startswith(":") and items:
                last = items[-1]
                definition = _first_sentence(stripped[1:].lstrip())
                items[-1] = ListItem(last.start, f"{last.head} : {definition}")
            elif _is_term(text, line_start, line):
                items.append(ListItem(line_start, " ".join(stripped.split())))
            else:
                break
        end = line_start + len(line)
    return ListRun(tuple(items), end, False)


def ends_in_list(text: str) -> bool:
    """Whether ``text`` ends inside a list (so the list may go on in what follows it)."""
    last: int | None = None
    for start, line in _lines(text, 0):
        if line.strip() and _opens_item(text, start, line):
            last = start
    return last is not None and read_list(text, last).open


def announces(text: str, sentence_start: int, list_start: int) -> bool:
    """Whether the sentence at ``sentence_start`` announces the list at ``list_start``: it is
    no item of a list, or the list is nested inside its item (an option whose values are
    listed). A sentence that is itself an item is followed by its siblings, not by what it
    announces."""
    line_start, line = _line_at(text, sentence_start)
    is_item = line.lstrip().startswith(":") or _opens_item(text, line_start, line)
    return not is_item or _indent(_line_at(text, list_start)[1]) > _indent(line)

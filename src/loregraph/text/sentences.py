"""Sentence spans of a text: where sentences end, without ending at abbreviations or initials."""

from __future__ import annotations

import re

_ABBREVIATIONS = """
    dr mr mrs ms mx st prof jr sr vs etc eg ie e.g i.e no nos mt capt col gen lt sgt rev hon
    fr messrs mme mlle dept fig figs vol vols ch chap ca cf inc ltd co corp jan feb mar apr
    jun jul aug sep sept oct nov dec approx esp al op pp ed eds est govt univ
"""
ABBREVIATIONS = frozenset(_ABBREVIATIONS.split())
"""Words that end with a period without ending the sentence (``Dr.``, ``Mrs.``, ``e.g.``)."""

_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|\n[ \t]*\n")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    mark = match.group(0)
    if mark.startswith("\n"):
        return True
    if mark[0] == "." and len(mark.rstrip("\"'”’)]")) == 1:
        before = _WORD_BEFORE.search(text, max(0, match.start() - 32), match.start())
        if before:
            word = before.group(1).casefold()
            if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
                return False
            if len(word) == 1 and word.isalpha():  # an initial: "J. Smith"
                return False
    nxt = _NEXT_CHAR.match(text, match.end())
    return not (nxt and nxt.group(1).islower())  # '"Is it so?" she asked.' is one


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text``, whitespace trimmed, in order.

    Ends at ``.``, ``!``, ``?`` (with closing quotes/brackets) followed by space, and at
    blank lines; not after common abbreviations (``Dr.``, ``Mrs.``), single initials or
    when the next word starts in lower case.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        if not _is_boundary(text, match):
            continue
        end = match.end() if not match.group(0).startswith("\n") else match.start()
        spans.append((start, end))
        start = match.end()
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and any(ch.isalnum() for ch in text[a:b]):
            out.append((a, b))
    return out

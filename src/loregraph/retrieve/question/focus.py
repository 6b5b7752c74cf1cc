"""Focused passages: the sentences of a passage that answer the question, not the whole chunk.

A chunk of a long document holds a thousand characters of which a question needs a few
sentences. A context that shows whole chunks spends most of its budget on text around the
answer; one that shows the focused part of each chunk shows twice as many places for the
same tokens. The focus of a passage is its best sentence (the one holding the most weight
of the question's terms, each weighing ``1 / log2(2 + df)`` as in
:mod:`loregraph.retrieve.question.relevance`) with up to :data:`WINDOW` sentences on each side, the
following sentence first (an answer more often follows the sentence that names the
question's words than precedes it), within :data:`MAX_CHARS` characters.

The focused passage keeps exact offsets into its document, so it is cited precisely.
A passage of at most :data:`MAX_CHARS` characters (a short record) is shown whole, and so
are the first passages of a ranking when the context can afford them
(:func:`focused_passages`): the best-ranked chunks are the likeliest to hold the answer
somewhere, and a focus that picks the wrong sentences there loses it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence

from loregraph.retrieve.results.result import Passage
from loregraph.retrieve.results.terms import Focus
from loregraph.text.lists import ListItem, ListRun, announces, list_after, read_list
from loregraph.text.sentences import split_sentences
from loregraph.text.tokens import count_tokens

WINDOW = 2
"""Sentences kept on each side of the best one (measured on the long-document questions of
``bench/longdoc.py``: 1 loses the answer that follows, 3 spends tokens on little)."""

MAX_CHARS = 700
"""The longest focused excerpt, in characters."""

ELISION = "…"
"""Between a passage shown whole and the further items of its list that follow it."""


def _window(spans: Sequence[tuple[int, int]], best: int, max_chars: int) -> tuple[int, int]:
    """The sentence indices ``[lo, hi]`` around ``best`` that fit in ``max_chars``."""
    lo = hi = best
    for step in range(1, WINDOW + 1):
        for candidate in (best + step, best - step):
            if not 0 <= candidate < len(spans):
                continue
            new_lo, new_hi = min(lo, candidate), max(hi, candidate)
            if spans[new_hi][1] - spans[new_lo][0] > max_chars:
                continue
            lo, hi = new_lo, new_hi
    return lo, hi


def _best_sentence(text: str, focus: Focus) -> tuple[list[tuple[int, int]], int] | None:
    """The sentence spans of ``text`` and the index of the one that best matches ``focus``;
    ``None`` when no sentence holds a term of the question."""
    spans = [(a, b) for a, b in split_sentences(text) if text[a:b].strip()]
    if not spans:
        return None
    scores = [focus.score(text[a:b]) for a, b in spans]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    return (spans, best) if scores[best] > 0 else None


def _announced_list(passage: Passage, sentence: tuple[int, int]) -> tuple[int, str, ListRun]:
    """The list the sentence announces (its start, the text it was read from, and its run),
    read on into the passage's ``following`` text when the chunk ends inside it; a run of
    no items when the sentence announces none. A list right under the sentence's first line
    counts too ("…has to pass:" then "1. …" with no blank line: one sentence for the
    splitter)."""
    text = passage.text
    line_end = text.find("\n", sentence[0], sentence[1])
    at = list_after(text, line_end) if line_end >= 0 else None
    at = list_after(text, sentence[1]) if at is None else at
    if at is None or not announces(text, sentence[0], at):
        return 0, text, ListRun((), 0, False)
    run = read_list(text, at)
    if run.open and passage.following:
        text = text + passage.following
        run = read_list(text, at)
    return at, text, run


def _heads(items: Sequence[ListItem], room: int) -> list[str]:
    """The first item heads that fit in ``room`` characters (one at least)."""
    heads: list[str] = []
    for item in items:
        room -= len(item.head) + 1
        if heads and room < 0:
            break
        heads.append(item.head)
    return heads


Shown = tuple[Passage, tuple[int, int]]
"""A focused passage, and the span of its document it shows in full (an outline shows only
its lead sentence in full: the items' bodies are left for other passages to show)."""


def _outlined(passage: Passage, sentence: tuple[int, int], max_chars: int) -> Shown | None:
    """The sentence that announces a list, then the heads of the list's items, within
    ``max_chars``; ``None`` when the sentence announces no list of two or more items or is
    itself longer than ``max_chars``."""
    at, text, run = _announced_list(passage, sentence)
    lead = " ".join(text[sentence[0] : at].split())
    if len(run.items) < 2 or len(lead) > max_chars:
        return None
    excerpt = " ".join([lead, *_heads(run.items, max_chars - len(lead))])
    start = passage.start + sentence[0]
    outlined = dataclasses.replace(passage, text=excerpt, start=start, end=passage.start + run.end)
    return outlined, (start, passage.start + at)


def _focused(passage: Passage, focus: Focus, max_chars: int) -> Shown:
    """:func:`focus_passage`, with the span it shows in full."""
    text = passage.text
    found = _best_sentence(text, focus) if len(text) > max_chars and focus.terms else None
    if found is None:
        return passage, (passage.start, passage.end)
    spans, best = found
    outlined = _outlined(passage, spans[best], max_chars)
    if outlined is not None:
        return outlined
    lo, hi = _window(spans, best, max_chars)
    start, end = spans[lo][0], spans[hi][1]
    if end - start > max_chars:  # one sentence longer than the limit
        end = start + max_chars
        cut = text.rfind(" ", start, end)
        end = cut if cut > start else end
    excerpt = " ".join(text[start:end].split())
    start, end = passage.start + start, passage.start + end
    return dataclasses.replace(passage, text=excerpt, start=start, end=end), (start, end)


def focus_passage(passage: Passage, focus: Focus, max_chars: int = MAX_CHARS) -> Passage:
    """``passage`` cut to its focused sentences (whole when short or nothing matches), or to
    the sentence that announces a list and the heads of its items."""
    return _focused(passage, focus, max_chars)[0]


def _whole(passage: Passage, focus: Focus, max_chars: int) -> Shown:
    """``passage`` whole, followed by the heads of the further items (within ``max_chars``)
    of the list its best sentence announces when the chunk ends inside that list; with the
    span it shows in full (the chunk's)."""
    found = _best_sentence(passage.text, focus) if passage.following and focus.terms else None
    chunk = (passage.start, passage.end)
    if found is None:
        return passage, chunk
    spans, best = found
    _, read, run = _announced_list(passage, spans[best])
    if not run.items or len(read) == len(passage.text):  # not read on: the list ends inside
        return passage, chunk
    # the item on the chunk's last line is cut unless the chunk ends where a line does
    cut = len(passage.text) if passage.following[:1] in "\r\n" else passage.text.rfind("\n") + 1
    further = [item for item in run.items if item.start >= cut]
    if not further:
        return passage, chunk
    text = f"{passage.text.rstrip()} {ELISION} {' '.join(_heads(further, max_chars))}"
    return dataclasses.replace(passage, text=text, end=passage.start + run.end), chunk


def focused_passages(
    passages: Iterable[Passage], focus: Focus, *, whole_first: int = 0, whole_tokens: int = 0
) -> Iterator[Passage]:
    """Each passage focused, skipping one whose text is mostly shown by an earlier one
    (neighbouring chunks overlap, and their focus often falls on the same sentences).

    Each of the first ``whole_first`` passages is kept whole instead when its text counts
    at most ``whole_tokens`` tokens.
    """
    shown: dict[str, list[tuple[int, int]]] = {}
    for rank, passage in enumerate(passages):
        whole = rank < whole_first and count_tokens(passage.text) <= whole_tokens
        focused, (a, b) = (_whole if whole else _focused)(passage, focus, MAX_CHARS)
        spans = shown.setdefault(focused.document_id, [])
        covered = sum(max(0, min(end, b) - max(start, a)) for start, end in spans)
        if covered * 2 >= max(b - a, 1):
            continue
        spans.append((a, b))
        yield focused

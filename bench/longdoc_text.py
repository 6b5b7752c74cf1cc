"""Answer matching and the chunk baselines' contexts of the long-document benchmark.

A context *holds the answer* of a question when each of the question's answer groups has at
least one alternative in it, compared after :func:`normalise` (case, Markdown emphasis,
backticks, typographic quotes and runs of whitespace do not matter).

The baselines cut every document into fixed character windows (1,000 characters, 200 of
overlap), rank them, and :func:`pack` the best ones into the same token budget the engine's
context gets, counted with the engine's own token counter (``cl100k_base``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from loregraph.text.tokens import count_tokens, truncate_to_tokens

CHUNK_CHARS = 1000
CHUNK_OVERLAP = 200
SEPARATOR = "\n\n"
"""What the packed baseline context puts between two chunks."""

_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "_": None,
        "*": None,
        "`": None,
    }
)
_SPACE = re.compile(r"\s+")

Answers = Sequence[Sequence[str]]
"""A question's answer groups: every group must be matched by one of its alternatives."""


def normalise(text: str) -> str:
    """``text`` lowercased, without ``_``, ``*`` and backticks, typographic quotes made
    ASCII, every run of whitespace one space (none at either end)."""
    return _SPACE.sub(" ", text.translate(_FOLD).lower()).strip()


def holds_answer(context: str, answers: Answers) -> bool:
    """Whether every answer group has at least one alternative in ``context`` (both sides
    :func:`normalise`-d). Raises ``ValueError`` for no groups, an empty group or an
    alternative that normalises to nothing: such a question would hold in any context."""
    check_answers(answers)
    folded = normalise(context)
    return all(any(normalise(alt) in folded for alt in group) for group in answers)


def check_answers(answers: Answers) -> None:
    """Raise ``ValueError`` unless ``answers`` is a non-empty list of non-empty groups of
    alternatives that are not empty once normalised."""
    if isinstance(answers, str) or not answers:
        raise ValueError("a question needs at least one answer group")
    for group in answers:
        if isinstance(group, str) or not group:
            raise ValueError(f"an answer group must be a non-empty list of strings: {group!r}")
        for alt in group:
            if not isinstance(alt, str) or not normalise(alt):
                raise ValueError(f"empty answer alternative in {list(group)!r}")


# --------------------------------------------------------------------------- chunks
@dataclass(frozen=True, slots=True)
class Chunk:
    """A character window of one document."""

    title: str
    source: str
    start: int
    text: str


def windows(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[int]:
    """The start offsets of ``size``-character windows overlapping by ``overlap``; the last
    window ends at the end of ``text`` (no window is only overlap)."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"bad window: size {size}, overlap {overlap}")
    if not text.strip():
        return []
    step = size - overlap
    starts = [0]
    while starts[-1] + size < len(text):
        starts.append(starts[-1] + step)
    return starts


def chunk_documents(
    documents: Iterable[tuple[str, str, str]],
    size: int = CHUNK_CHARS,
    overlap: int = CHUNK_OVERLAP,
) -> list[Chunk]:
    """Every ``(source, title, text)`` document cut into windows, in document order."""
    chunks: list[Chunk] = []
    for source, title, text in documents:
        for start in windows(text, size, overlap):
            piece = text[start : start + size]
            if piece.strip():
                chunks.append(Chunk(title, source, start, piece))
    return chunks


def chunk_view(chunk: Chunk, titled: bool) -> str:
    """How a baseline indexes and shows a chunk: its text, after its document's title and a
    newline when the corpus has several documents (``titled``)."""
    return f"{chunk.title}\n{chunk.text}" if titled else chunk.text


# --------------------------------------------------------------------------- packing
def pack(texts: Iterable[str], budget: int, separator: str = SEPARATOR) -> str:
    """The ranked ``texts`` joined by ``separator`` until ``budget`` tokens are reached, the
    last one truncated so that the whole counts at most ``budget`` tokens."""
    if budget <= 0:
        return ""
    chosen: list[str] = []
    used = 0
    gap = count_tokens(separator)
    for text in texts:
        used += count_tokens(text) + (gap if chosen else 0)
        chosen.append(text)
        if used >= budget:
            break
    packed = separator.join(chosen)
    limit = budget
    while limit > 0 and count_tokens(packed) > budget:
        packed = truncate_to_tokens(packed, limit)
        limit -= 1
    return packed.rstrip()

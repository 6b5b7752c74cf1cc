"""What a stored document keeps so that its text can be rebuilt exactly: the blank text
between its chunks.

Chunks are exact slices of the stored text, without leading or trailing whitespace, and
together cover every character that is not blank (:mod:`loregraph.ingest.chunk.chunker`). What
they leave out are blank runs: before the first chunk, after the last, and between chunks
that do not overlap (a chunk that ends before a heading). The pipeline keeps those runs, in
order, in the document's metadata under :data:`BLANKS`, so they are written with the
document in its transaction and carried by every store, copy and the JSON file. The text is
then the chunks with the runs between them, checked against the document's content hash.

Documents stored before the runs were kept have no :data:`BLANKS`. Their runs are guessed
(at most :data:`MAX_TRIES` ways, each checked against the hash), which works for most short
documents; when no guess gives the hash, the error names the recovery: ingest the file
again (an unchanged document stored without its runs is processed again, and then has them).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Protocol, TypeGuard

from loregraph.errors import LoregraphError
from loregraph.models import DocStatus, Document, content_hash

BLANKS = "blanks"
"""Metadata key: the blank runs the document's chunks leave out, in text order."""
MAX_TRIES = 4096
"""At most this many ways of filling the blank runs of an older document are tried."""


class Span(Protocol):
    """A chunk as this module reads it: its place in the text and its text."""

    @property
    def seq(self) -> int: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def text(self) -> str: ...


def _pieces(chunks: Sequence[Span], length: int) -> tuple[list[str], list[tuple[int, int]]]:
    """The chunks' text without their overlaps, and the ``(piece index, length)`` of each
    blank run left between them (placeholders in the pieces), in text order."""
    pieces: list[str] = []
    gaps: list[tuple[int, int]] = []
    end = 0
    for chunk in sorted(chunks, key=lambda c: c.seq):
        if chunk.start > end:
            gaps.append((len(pieces), chunk.start - end))
            pieces.append("")
        if chunk.end > end:
            pieces.append(chunk.text[max(end - chunk.start, 0) :])
            end = chunk.end
    if end < length:
        gaps.append((len(pieces), length - end))
        pieces.append("")
    return pieces, gaps


def blank_runs(text: str, chunks: Sequence[Span]) -> list[str]:
    """The runs of ``text`` that ``chunks`` leave out, in order (what :data:`BLANKS` keeps)."""
    out: list[str] = []
    end = 0
    for chunk in sorted(chunks, key=lambda c: c.seq):
        if chunk.start > end:
            out.append(text[end : chunk.start])
        end = max(end, chunk.end)
    if end < len(text):
        out.append(text[end:])
    return out


def keeps_text(document: Document) -> bool:
    """Whether ``document`` was stored with its blank runs (its text rebuilds exactly)."""
    return isinstance(document.metadata.get(BLANKS), list)


def complete(stored: Document | None) -> TypeGuard[Document]:
    """Whether ``stored`` was written in full with its blank runs: ingest skips such a
    document when its text is unchanged, and processes one stored without them again."""
    return stored is not None and stored.status == DocStatus.DONE and keeps_text(stored)


def rebuild_text(document: Document, chunks: Sequence[Span]) -> str:
    """The document's stored text from its chunks and its kept blank runs (guessed for a
    document stored before they were kept); raises :class:`LoregraphError` when the result
    does not give back the document's content hash."""
    pieces, gaps = _pieces(chunks, document.char_count)
    if not keeps_text(document):
        return _guessed(document, pieces, gaps)
    runs = document.metadata[BLANKS]
    if [len(r) if isinstance(r, str) else -1 for r in runs] == [n for _, n in gaps]:
        for (g, _), run in zip(gaps, runs, strict=True):
            pieces[g] = run
        text = "".join(pieces)
        if content_hash(text) == document.content_hash:
            return text
    raise LoregraphError(
        f"document {document.title or document.id!r} cannot be processed again: its chunks "
        "and blank runs do not give back its text; ingest its file again"
    )


def _fills(n: int) -> list[str]:
    """Likely contents of a blank run of ``n`` characters, the likeliest first."""
    found = ["\n" * n, " " * n, " " + "\n" * (n - 1), "\n" * (n - 1) + " "]
    found += [" " * (n - 1) + "\n", "\n" + " " * (n - 1)]
    return list(dict.fromkeys(found))


def _guessed(document: Document, pieces: list[str], gaps: list[tuple[int, int]]) -> str:
    """The text of a document stored without its blank runs: the first way of filling them
    that gives back its content hash."""
    options = [_fills(n) for _, n in gaps]
    for choice in itertools.islice(itertools.product(*options), MAX_TRIES):
        for (g, _), fill in zip(gaps, choice, strict=True):
            pieces[g] = fill
        text = "".join(pieces)
        if content_hash(text) == document.content_hash:
            return text
    where = f" ({document.source})" if document.source else ""
    raise LoregraphError(
        f"document {document.title or document.id!r} cannot be processed again: an earlier "
        "loregraph stored it without the blank text between its chunks, so its text cannot "
        f"be rebuilt exactly; ingest its file{where} again, then retry"
    )

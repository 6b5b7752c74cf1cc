"""Group consecutive chunks into mega-batches of at most ``max_chars`` (default 50K chars).

One mega-batch is one LLM extraction call. Its text is the stretch of the document its
chunks cover, written once: consecutive chunks overlap (200 characters by default), and
sending the overlap twice would waste tokens and double-count mentions. With the document
text at hand (``source=``) the batch text is the exact slice ``source[first.start:last.end]``;
without it, the text is rebuilt from the chunks' offsets, and where two chunks do not touch
(the whitespace between them is not in any chunk) a single space stands in for the gap.

Batches are disjoint in chunks; the first chunk of a batch still carries its overlap with the
previous batch's last chunk, so no sentence loses its context at a batch boundary.
"""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.errors import ConfigError
from loregraph.ingest.types import MegaBatch, TextChunk

DEFAULT_MAX_CHARS = 50_000


def mega_batches(
    chunks: Sequence[TextChunk],
    max_chars: int = DEFAULT_MAX_CHARS,
    *,
    source: str | None = None,
) -> list[MegaBatch]:
    """Group ``chunks`` (in document order) greedily into batches of at most ``max_chars``.

    A chunk is added to the current batch while the batch text stays within ``max_chars``;
    a single chunk longer than ``max_chars`` gets a batch of its own.
    """
    if max_chars <= 0:
        raise ConfigError(f"mega-batch size must be positive, got {max_chars}")
    batches: list[MegaBatch] = []
    group: list[TextChunk] = []
    parts: list[str] = []
    length = 0
    for chunk in chunks:
        if group:
            part = _new_part(group[-1], chunk)
            added = chunk.end - group[-1].end if source is not None else len(part)
            if length + added > max_chars:
                batches.append(_finish(len(batches), group, parts, source))
                group, parts, length = [], [], 0
        if not group:
            part, added = chunk.text, len(chunk.text)
        group.append(chunk)
        parts.append(part)
        length += added
    if group:
        batches.append(_finish(len(batches), group, parts, source))
    return batches


def _new_part(previous: TextChunk, chunk: TextChunk) -> str:
    """What ``chunk`` adds to a batch that ends with ``previous``."""
    if chunk.start >= previous.end:
        return " " + chunk.text  # the gap held only whitespace
    return chunk.text[max(0, previous.end - chunk.start) :]


def _finish(index: int, group: list[TextChunk], parts: list[str], source: str | None) -> MegaBatch:
    text = source[group[0].start : group[-1].end] if source is not None else "".join(parts)
    return MegaBatch(index=index, chunk_seqs=[c.seq for c in group], text=text)

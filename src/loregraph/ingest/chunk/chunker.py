"""Cut a document into overlapping chunks that end and start at word boundaries.

Windows of at most ``size`` characters (or
``cl100k_base`` tokens with ``unit="tokens"``), consecutive chunks overlapping by about
``overlap``. A word is a maximal run of non-whitespace characters. Rules:

* a chunk ends at the end of a word, preferring (within the last 20 % of the window) the
  end of a paragraph, then the end of a sentence, then the last word that fits;
* the next chunk starts at the first word that begins at least ``overlap`` before the end
  of the previous one, so the real overlap is at most ``overlap`` and never splits a word;
* only a single word longer than ``size`` is cut inside (hard cut at the size limit);
* every chunk is an exact slice: ``chunk.text == text[chunk.start:chunk.end]``, without
  leading or trailing whitespace, and together the chunks cover every non-space character.

Sections (the start offsets of a document's headings, passed in as data) start chunks:

* a chunk whose window holds a section start in its later half (from
  :data:`SECTION_FROM` of the window on) ends before that heading instead;
* when a section starts a little past a chunk's window (less than ``size - overlap``
  past it), the window ends halfway to the heading, so the next chunk ends before it
  rather than starting in the overlap and running across it;
* the chunk after one that ended before a heading starts at the heading, without overlap.

A heading in the earlier half of a window (a chapter line and the title after it) stays
inside the chunk; a section start that is not the start of a word is ignored.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from loregraph.ingest.types import TextChunk
from loregraph.settings import ChunkSettings
from loregraph.text.tokens import count_tokens, token_ends

# the last character of a word (followed by whitespace)
_WORD_END = re.compile(r"\S(?=\s)")
# the first character of a word (preceded by whitespace or the start of the text)
_WORD_START = re.compile(r"(?<!\S)\S")
# a sentence terminator, with closing quotes/brackets, followed by whitespace
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
# the end of a paragraph: a word followed by a blank line
_PARAGRAPH_END = re.compile(r"\S(?=[ \t\f\v]*\r?\n[ \t\f\v]*\r?\n)")
_NON_SPACE = re.compile(r"\S")

# preferred breaks (paragraph, sentence) are looked for in the last part of the window
_PREFERRED_FROM = 0.8
# how far past a window's end the break patterns' lookaheads may need to look
_LOOKAHEAD = 16
SECTION_FROM = 0.5
"""A section start this far into a chunk's window, or further, ends the chunk before it."""


def chunk_text(
    text: str, settings: ChunkSettings | None = None, sections: Sequence[int] = ()
) -> Iterator[TextChunk]:
    """Yield the chunks of ``text``; whitespace-only text yields nothing.

    ``sections`` are the offsets where the text's sections start (module docstring).
    Deterministic: the same text, settings and sections always give the same chunks.
    """
    settings = settings or ChunkSettings()
    first = _NON_SPACE.search(text)
    if first is None:
        return
    text_end = len(text.rstrip())
    by_tokens = settings.unit == "tokens"
    ends = _TokenEnds(text) if by_tokens else None
    starts = _section_starts(text, sections)
    pos = first.start()
    prev_end = 0
    seq = 0
    while pos < text_end:  # a hard cut can end a chunk exactly at the end of the text
        limit = ends.limit(pos, settings.size) if ends is not None else pos + settings.size
        heading = _section_in(starts, pos, min(limit, text_end))
        if heading is None:
            limit = _balanced(starts, pos, limit, settings, ends)
        else:
            cut = _trimmed(text, heading)
            if cut <= prev_end:  # all before the heading is in the previous chunk
                pos = heading
                continue
            if not by_tokens or count_tokens(text[pos:cut]) <= settings.size:
                yield _chunk(text, seq, pos, cut)
                seq += 1
                pos, prev_end = heading, cut
                continue
        if text_end <= limit:
            if not by_tokens or count_tokens(text[pos:text_end]) <= settings.size:
                yield _chunk(text, seq, pos, text_end)
                return
            limit = text_end - 1
        floor = max(pos, prev_end)
        end = _break(text, pos, limit, floor)
        if by_tokens:
            while end is not None and count_tokens(text[pos:end]) > settings.size:
                end = _break(text, pos, end - 1, floor)
        if end is None:
            if pos < prev_end:
                # no word after the overlap fits with it: start again without overlap
                pos = _resume(text, prev_end)
                continue
            end = _hard_cut(text, pos, limit, settings.size if by_tokens else None)
        yield _chunk(text, seq, pos, end)
        seq += 1
        if ends is not None:
            target = ends.overlap_start(pos, end, settings.overlap)
        else:
            target = end - settings.overlap
        prev_end = end
        pos = _next_start(text, pos, end, target)


def _section_starts(text: str, sections: Sequence[int]) -> list[int]:
    """The section starts that begin a word, sorted, each once."""
    return sorted(
        {
            s
            for s in sections
            if 0 <= s < len(text) and not text[s].isspace() and (s == 0 or text[s - 1].isspace())
        }
    )


def _balanced(
    starts: list[int], pos: int, limit: int, settings: ChunkSettings, ends: _TokenEnds | None
) -> int:
    """``limit``, or a nearer one when a section starts soon after the window.

    When the next section starts within ``size - overlap`` past the window, the text
    before it is cut in two chunks of about the same size instead of a full one and a
    short one that would start in the overlap before the heading and run across it: the
    window ends halfway, and the next chunk ends before the heading.
    """
    size, overlap = settings.size, settings.overlap
    reach = ends.limit(pos, 2 * size - overlap) if ends is not None else pos + 2 * size - overlap
    i = bisect.bisect_right(starts, limit)
    if i == len(starts) or starts[i] > reach:
        return limit
    if ends is None:
        return min(limit, pos + (starts[i] - pos + overlap + 1) // 2)
    return min(limit, ends.limit(pos, (ends.count(pos, starts[i]) + overlap + 1) // 2))


def _trimmed(text: str, end: int) -> int:
    """``end`` moved back over the whitespace before it."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


def _section_in(starts: list[int], pos: int, window_end: int) -> int | None:
    """The first section start in the later part of the window ``(pos, window_end]``."""
    lo = pos + max(1, int((window_end - pos) * SECTION_FROM))
    i = bisect.bisect_left(starts, lo)
    return starts[i] if i < len(starts) and starts[i] <= window_end else None


def _chunk(text: str, seq: int, start: int, end: int) -> TextChunk:
    piece = text[start:end]
    return TextChunk(seq=seq, start=start, end=end, text=piece, token_count=count_tokens(piece))


def _last_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """The largest ``match.end()`` in ``[lo, hi]`` (lookaheads may see past ``hi``)."""
    best: int | None = None
    for match in pattern.finditer(text, max(0, lo - 1), hi + _LOOKAHEAD):
        end = match.end()
        if end > hi:
            break
        if end >= lo:
            best = end
    return best


def _break(text: str, pos: int, limit: int, floor: int) -> int | None:
    """The best word end in ``(floor, limit]`` for a chunk starting at ``pos``, if any.

    ``text[pos:limit]`` is known not to reach the end of the text.
    """
    if limit <= floor:
        return None
    preferred_from = max(floor + 1, pos + int((limit - pos) * _PREFERRED_FROM))
    for pattern in (_PARAGRAPH_END, _SENTENCE_END):
        found = _last_end(pattern, text, preferred_from, limit)
        if found is not None:
            return found
    return _last_end(_WORD_END, text, floor + 1, limit)


def _hard_cut(text: str, pos: int, limit: int, max_tokens: int | None) -> int:
    """Cut a single overlong word at the window's limit (within ``max_tokens`` if given)."""
    end = max(limit, pos + 1)
    if max_tokens is not None:
        while end > pos + 1 and count_tokens(text[pos:end]) > max_tokens:
            end -= max(1, (end - pos) // 8)
    return end


def _resume(text: str, prev_end: int) -> int:
    """Where to start when dropping the overlap after a chunk ending at ``prev_end``."""
    if not text[prev_end].isspace():
        return prev_end  # the previous chunk was cut inside an overlong word
    following = _NON_SPACE.search(text, prev_end)
    return following.start() if following is not None else len(text)


class _TokenEnds:
    """Token boundaries of a whole text, encoded once.

    A window's token limit and an overlap's start are read from the boundaries of the whole
    text (a binary search) instead of re-encoding each window. A chunk's own tokens can
    differ from the whole text's at its first word, so the caller still checks every chunk
    with an exact count and shortens it if needed.
    """

    def __init__(self, text: str) -> None:
        self.ends = token_ends(text)
        self.length = len(text)

    def limit(self, pos: int, size: int) -> int:
        """The largest end such that ``text[pos:end]`` holds about ``size`` tokens."""
        first = bisect.bisect_right(self.ends, pos)
        last = first + size - 1
        if last >= len(self.ends):
            return self.length
        return max(pos + 1, self.ends[last])

    def count(self, pos: int, end: int) -> int:
        """About how many tokens ``text[pos:end]`` holds."""
        return bisect.bisect_right(self.ends, end) - bisect.bisect_right(self.ends, pos)

    def overlap_start(self, pos: int, end: int, overlap: int) -> int:
        """Where the last ``overlap`` tokens of ``text[pos:end]`` begin."""
        if overlap <= 0:
            return end
        last = bisect.bisect_right(self.ends, end) - 1
        start = last - overlap
        if start < 0 or self.ends[start] <= pos:
            return pos
        return self.ends[start]


def _next_start(text: str, pos: int, end: int, target: int) -> int:
    """Where the chunk after ``text[pos:end]`` starts, given the overlap target."""
    target = max(target, pos + 1)
    if target < end:
        match = _WORD_START.search(text, target, end)
        if match is not None:
            return match.start()
    if end < len(text) and not text[end].isspace():
        # the previous chunk cut inside an overlong word: continue inside it
        return min(target, end)
    following = _NON_SPACE.search(text, end)
    return following.start() if following is not None else len(text)

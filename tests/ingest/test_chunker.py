"""The chunker: exact slices, full coverage, bounded size and overlap, word boundaries."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from loregraph.ingest.chunk.chunker import SECTION_FROM, chunk_text
from loregraph.ingest.types import TextChunk
from loregraph.settings import ChunkSettings
from loregraph.text.tokens import count_tokens

WORDS = st.text(alphabet="abcdeé🧛.,!?'\"", min_size=1, max_size=14)
SPACES = st.sampled_from([" ", " ", " ", "\n", "\n\n", "  ", "\t", "\u00a0", " \r\n"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Word-and-space texts, sometimes with an overlong word or a whitespace margin."""
    parts = [draw(SPACES) if draw(st.booleans()) else ""]
    for _ in range(draw(st.integers(0, 120))):
        parts.append(draw(WORDS))
        parts.append(draw(SPACES))
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "x" * draw(st.integers(40, 130)))
    return "".join(parts)


CHAR_SETTINGS = st.builds(
    lambda size, frac: ChunkSettings(size=size, overlap=int(size * frac)),
    st.integers(20, 120),
    st.floats(0.0, 0.5),
)


def _word_at(text: str, index: int) -> str:
    """The whitespace-delimited word that contains ``text[index]``."""
    start = index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = index
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def _check_common(text: str, chunks: list[TextChunk]) -> None:
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    covered = [False] * len(text)
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.text and chunk.text == chunk.text.strip()
        assert chunk.token_count == count_tokens(chunk.text)
        for i in range(chunk.start, chunk.end):
            covered[i] = True
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert missing == []
    for before, after in itertools.pairwise(chunks):
        assert before.start < after.start
        assert before.end < after.end


@settings(max_examples=150, deadline=None)
@given(documents(), CHAR_SETTINGS)
def test_char_chunks_are_exact_bounded_and_cover_the_text(
    text: str, chunk_settings: ChunkSettings
) -> None:
    chunks = list(chunk_text(text, chunk_settings))
    _check_common(text, chunks)
    for chunk in chunks:
        assert len(chunk.text) <= chunk_settings.size
    for before, after in itertools.pairwise(chunks):
        assert before.end - after.start <= chunk_settings.overlap


@settings(max_examples=150, deadline=None)
@given(documents(), CHAR_SETTINGS)
def test_chunks_cut_inside_a_word_only_when_it_is_longer_than_the_size(
    text: str, chunk_settings: ChunkSettings
) -> None:
    for chunk in chunk_text(text, chunk_settings):
        if chunk.start > 0 and not text[chunk.start - 1].isspace():
            assert len(_word_at(text, chunk.start)) > chunk_settings.size
        if chunk.end < len(text) and not text[chunk.end].isspace():
            assert len(_word_at(text, chunk.end - 1)) > chunk_settings.size


@settings(max_examples=60, deadline=None)
@given(documents(), st.integers(8, 40), st.floats(0.0, 0.5))
def test_token_chunks_are_bounded_in_tokens(text: str, size: int, frac: float) -> None:
    chunk_settings = ChunkSettings(size=size, overlap=int(size * frac), unit="tokens")
    chunks = list(chunk_text(text, chunk_settings))
    _check_common(text, chunks)
    for chunk in chunks:
        inside_word = chunk.end < len(text) and not text[chunk.end].isspace()
        if not inside_word:
            assert chunk.token_count <= size


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=400), CHAR_SETTINGS)
def test_any_text_is_covered_deterministically(text: str, chunk_settings: ChunkSettings) -> None:
    first = list(chunk_text(text, chunk_settings))
    _check_common(text, first)
    assert first == list(chunk_text(text, chunk_settings))


def test_whitespace_only_text_has_no_chunks() -> None:
    assert list(chunk_text("")) == []
    assert list(chunk_text(" \n\t\u00a0 \r\n")) == []


def test_short_text_is_one_stripped_chunk() -> None:
    (chunk,) = chunk_text("\n  Count Dracula lives in a castle.  \n")
    assert chunk.text == "Count Dracula lives in a castle."
    assert (chunk.seq, chunk.start, chunk.end) == (0, 3, 35)
    assert chunk.token_count == count_tokens(chunk.text)


def test_seed_defaults_on_prose_give_overlapping_word_aligned_chunks() -> None:
    sentence = "The travellers crossed the pass before the snow came down on the road. "
    text = sentence * 200  # 14,200 characters
    chunks = list(chunk_text(text))
    assert 15 <= len(chunks) <= 22
    for chunk in chunks:
        assert len(chunk.text) <= 1000
        # a sentence end is preferred when one is near the window's end
        assert chunk.text.endswith(".")
        assert chunk.start == 0 or text[chunk.start - 1] == " "
    for before, after in itertools.pairwise(chunks):
        assert 150 <= before.end - after.start <= 200


def test_paragraph_end_is_preferred_to_a_later_sentence_end() -> None:
    text = "word " * 170 + "end of the paragraph.\n\n" + "Next sentence. " * 20
    first = next(chunk_text(text, ChunkSettings(size=1000, overlap=0)))
    assert first.text.endswith("end of the paragraph.")


def test_overlong_word_is_cut_at_the_size() -> None:
    text = "short " + "y" * 250 + " tail"
    chunks = list(chunk_text(text, ChunkSettings(size=100, overlap=20)))
    _check_common(text, chunks)
    assert chunks[0].text == "short"
    assert all(len(c.text) <= 100 for c in chunks)
    assert all(set(c.text) == {"y"} for c in chunks[1:-1])
    assert chunks[-1].text.endswith("y tail")


def test_token_unit_counts_cl100k_tokens() -> None:
    text = "Lucy wrote a long letter to Mina about her three suitors. " * 40
    chunks = list(chunk_text(text, ChunkSettings(size=50, overlap=10, unit="tokens")))
    assert len(chunks) > 5
    assert all(c.token_count <= 50 for c in chunks)
    assert max(c.token_count for c in chunks) >= 40


def _word_starts(text: str) -> list[int]:
    return [
        i for i, ch in enumerate(text) if not ch.isspace() and (i == 0 or text[i - 1].isspace())
    ]


@settings(max_examples=150, deadline=None)
@given(documents(), CHAR_SETTINGS, st.data())
def test_sections_keep_every_invariant_and_start_chunks(
    text: str, chunk_settings: ChunkSettings, data: st.DataObject
) -> None:
    """With section starts (some not at a word start, to be ignored), the chunks are still
    exact, bounded, covering and overlapping as before, and no chunk holds a section start
    in the later part of its window."""
    offsets = st.integers(-5, len(text) + 5)
    starts = data.draw(st.lists(st.one_of(st.sampled_from(_word_starts(text) or [0]), offsets)))
    chunks = list(chunk_text(text, chunk_settings, starts))
    _check_common(text, chunks)
    assert chunks == list(chunk_text(text, chunk_settings, starts))
    for chunk in chunks:
        assert len(chunk.text) <= chunk_settings.size
    for before, after in itertools.pairwise(chunks):
        assert before.end - after.start <= chunk_settings.overlap
    valid = set(_word_starts(text)) & set(starts)
    text_end = len(text.rstrip())
    for chunk in chunks:
        window = min(chunk.start + chunk_settings.size, text_end) - chunk.start
        later = chunk.start + max(1, int(window * SECTION_FROM))
        assert not [s for s in valid if later <= s < chunk.end]


def test_a_chunk_ends_before_a_heading_in_the_later_part_of_its_window() -> None:
    prose = "The road went on through the hills and the night came down. " * 10  # 610 chars
    text = f"CHAPTER I\n\n{prose}\n\nCHAPTER II\n\n{prose}\n\nCHAPTER III\n\n{prose}"
    heads = [text.index(f"CHAPTER {n}\n") for n in ("I", "II", "III")]
    chunks = list(chunk_text(text, ChunkSettings(size=1000, overlap=200), heads))
    _check_common(text, chunks)
    assert [c.start for c in chunks] == heads
    assert all(c.text.startswith("CHAPTER") for c in chunks)
    assert chunks[0].text.endswith("came down.")


def test_a_heading_early_in_a_window_does_not_make_a_tiny_chunk() -> None:
    prose = "Lucy wrote to Mina about the three men who asked her to marry them. " * 20
    text = f"Intro line.\n\nCHAPTER I\n\n{prose}"
    head = text.index("CHAPTER I")  # 13 characters in: the earlier part of the window
    chunks = list(chunk_text(text, ChunkSettings(size=1000, overlap=200), [head]))
    assert chunks[0].start == 0 and chunks[0].end > head
    assert chunks == list(chunk_text(text, ChunkSettings(size=1000, overlap=200)))


def test_a_heading_just_past_a_window_splits_the_text_before_it_in_two() -> None:
    paragraph = "word " * 199 + "end."  # 999 characters: the heading is past the window
    text = f"{paragraph}\n\nLOG OF THE SHIP\n\n{paragraph}"
    head = text.index("LOG OF THE SHIP")
    assert head > 1000
    plain = list(chunk_text(text, ChunkSettings(size=1000, overlap=200)))
    assert plain[1].start < head < plain[1].end  # without sections, one runs across it
    chunks = list(chunk_text(text, ChunkSettings(size=1000, overlap=200), [head]))
    _check_common(text, chunks)
    assert chunks[2].start == head
    assert chunks[1].end == len(paragraph)
    assert all(len(c.text) >= 500 for c in chunks[:2])  # two halves, not a full and a scrap


def test_token_chunks_end_before_headings_too() -> None:
    prose = "Lucy wrote a long letter to Mina about her three suitors. " * 6  # ~66 tokens
    text = f"PART ONE\n\n{prose}\n\nPART TWO\n\n{prose}"
    heads = [0, text.index("PART TWO")]
    chunks = list(chunk_text(text, ChunkSettings(size=100, overlap=20, unit="tokens"), heads))
    _check_common(text, chunks)
    assert [c.start for c in chunks] == heads
    assert all(c.token_count <= 100 for c in chunks)

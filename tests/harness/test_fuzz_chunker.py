"""Fuzz the chunker with any text and any valid settings: no exception, and the chunks are
exact, non-empty, ordered, bounded slices that together cover every non-space character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from loregraph.errors import ConfigError
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.settings import ChunkSettings
from loregraph.text.tokens import count_tokens

from .fuzzing import fuzz, tally
from .strategies import ANY_CHAR, TEXT, WORDISH

SPACES = st.sampled_from([" ", "  ", "\n", "\n\n", "\r\n", "\r\n\r\n", "\t", "\u00a0", "\u2028"])
DOCUMENT = st.one_of(
    TEXT,
    st.lists(st.one_of(WORDISH, SPACES, st.text(ANY_CHAR, max_size=12)), max_size=80).map("".join),
    st.lists(
        st.tuples(st.lists(WORDISH, min_size=1, max_size=30).map(" ".join), SPACES), max_size=12
    ).map(lambda parts: "".join(a + b for a, b in parts)),
    st.text(st.sampled_from("ab .\n"), max_size=600),
)
"""Documents: words, sentences and paragraphs with every kind of whitespace, runs of a few
characters, long words, and arbitrary code points."""


@st.composite
def chunk_settings(draw: st.DrawFn, unit: str) -> ChunkSettings:
    size = draw(st.integers(1, 60) if unit == "tokens" else st.integers(1, 400))
    overlap = draw(st.integers(0, size - 1))
    return ChunkSettings(size=size, overlap=overlap, unit=unit)  # type: ignore[arg-type]


def _check(text: str, settings: ChunkSettings) -> None:
    chunks = list(chunk_text(text, settings))
    assert chunks == list(chunk_text(text, settings)), "chunking is not deterministic"
    covered = bytearray(len(text))
    previous = None
    for index, chunk in enumerate(chunks):
        assert chunk.seq == index
        assert 0 <= chunk.start < chunk.end <= len(text)
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.text.strip(), "an empty or blank chunk"
        assert chunk.text == chunk.text.strip(), "a chunk starts or ends with whitespace"
        assert chunk.token_count == count_tokens(chunk.text)
        if settings.unit == "chars":
            assert len(chunk.text) <= settings.size
        else:
            # one code point (up to 4 UTF-8 bytes) can be more tokens than a tiny size
            assert chunk.token_count <= settings.size or len(chunk.text) == 1
        if previous is not None:
            assert chunk.start > previous.start and chunk.end > previous.end
            if settings.unit == "chars":
                assert chunk.start >= previous.end - settings.overlap, "overlap too large"
        covered[chunk.start : chunk.end] = b"\x01" * (chunk.end - chunk.start)
        previous = chunk
    uncovered = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not uncovered, f"characters at {uncovered[:5]} are in no chunk"


@fuzz(1800)
@given(text=DOCUMENT, settings=chunk_settings("chars"))
def test_character_chunks_are_exact_bounded_and_cover_the_text(
    text: str, settings: ChunkSettings
) -> None:
    tally("chunk_text chars")
    _check(text, settings)


@fuzz(400)
@given(text=DOCUMENT, settings=chunk_settings("tokens"))
def test_token_chunks_are_exact_bounded_and_cover_the_text(
    text: str, settings: ChunkSettings
) -> None:
    tally("chunk_text tokens")
    _check(text, settings)


@fuzz(200)
@given(
    size=st.integers(-5, 5),
    overlap=st.integers(-5, 10),
    unit=st.sampled_from(["chars", "tokens", "words", ""]),
)
def test_invalid_settings_are_a_config_error(size: int, overlap: int, unit: str) -> None:
    tally("chunk settings")
    try:
        settings = ChunkSettings(size=size, overlap=overlap, unit=unit)  # type: ignore[arg-type]
    except ConfigError as exc:
        assert str(exc).strip()
        return
    assert size > 0 and 0 <= overlap < size and unit in ("chars", "tokens")
    list(chunk_text("Jonathan Harker went to Bistritz.", settings))

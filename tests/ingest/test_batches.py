"""Mega-batches: consecutive chunks, bounded size, overlap written once."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loregraph.errors import ConfigError
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.batches import mega_batches
from loregraph.ingest.types import TextChunk
from loregraph.settings import ChunkSettings

PROSE = (
    "The coach left the inn at dusk, and the driver would not speak of the castle. "
    "Snow lay on the pass; wolves howled somewhere below the road.\n\n"
)


def _doc(repeat: int) -> str:
    return PROSE * repeat


def test_batches_partition_the_chunks_in_order() -> None:
    text = _doc(300)  # about 43K characters
    chunks = list(chunk_text(text))
    batches = mega_batches(chunks, max_chars=10_000)
    assert [b.index for b in batches] == list(range(len(batches)))
    assert [s for b in batches for s in b.chunk_seqs] == [c.seq for c in chunks]
    assert all(len(b.text) <= 10_000 for b in batches)
    assert 5 <= len(batches) <= 6


def test_batch_text_is_the_covered_stretch_without_repeated_overlap() -> None:
    text = _doc(300)
    chunks = list(chunk_text(text))
    by_seq = {c.seq: c for c in chunks}
    for batch in mega_batches(chunks, max_chars=10_000, source=text):
        first, last = by_seq[batch.chunk_seqs[0]], by_seq[batch.chunk_seqs[-1]]
        assert batch.text == text[first.start : last.end]
    # without the source, the rebuilt text equals the slice when chunks overlap
    for batch in mega_batches(chunks, max_chars=10_000):
        first, last = by_seq[batch.chunk_seqs[0]], by_seq[batch.chunk_seqs[-1]]
        assert batch.text == text[first.start : last.end]


def test_chunks_that_do_not_touch_are_joined_by_one_space() -> None:
    chunks = [
        TextChunk(seq=0, start=0, end=5, text="Hello"),
        TextChunk(seq=1, start=8, end=13, text="world"),
    ]
    (batch,) = mega_batches(chunks, max_chars=100)
    assert batch.text == "Hello world"
    (exact,) = mega_batches(chunks, max_chars=100, source="Hello\n\n\nworld")
    assert exact.text == "Hello\n\n\nworld"


def test_a_chunk_longer_than_the_limit_gets_its_own_batch() -> None:
    chunks = [
        TextChunk(seq=0, start=0, end=3, text="abc"),
        TextChunk(seq=1, start=4, end=24, text="x" * 20),
        TextChunk(seq=2, start=25, end=28, text="def"),
    ]
    batches = mega_batches(chunks, max_chars=10)
    assert [b.chunk_seqs for b in batches] == [[0], [1], [2]]


def test_empty_input_gives_no_batches() -> None:
    assert mega_batches([]) == []


def test_rejects_non_positive_limit() -> None:
    with pytest.raises(ConfigError):
        mega_batches([], max_chars=0)


def test_seed_defaults_give_about_eighteen_batches_for_a_novel_sized_text() -> None:
    text = _doc(6000)  # about 860K characters, like Dracula
    batches = mega_batches(list(chunk_text(text)), ChunkSettings().mega_batch_chars)
    assert 17 <= len(batches) <= 19
    assert sum(len(b.text) for b in batches) < len(text) * 1.01


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["alpha", "beta.", "gamma\n\n", "delta,"]), max_size=300),
    st.integers(20, 200),
    st.integers(10, 400),
)
def test_batches_are_bounded_and_consecutive(words: list[str], size: int, limit: int) -> None:
    text = " ".join(words)
    chunks = list(chunk_text(text, ChunkSettings(size=size, overlap=size // 4)))
    batches = mega_batches(chunks, max_chars=limit, source=text)
    assert [s for b in batches for s in b.chunk_seqs] == [c.seq for c in chunks]
    for batch in batches:
        assert len(batch.text) <= limit or len(batch.chunk_seqs) == 1
    for a, b in itertools.pairwise(batches):
        assert b.chunk_seqs[0] == a.chunk_seqs[-1] + 1

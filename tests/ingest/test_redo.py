"""A stored document's text rebuilt from its chunks, exactly or not at all."""

from __future__ import annotations

import pytest

from loregraph.errors import LoregraphError
from loregraph.ingest.chunker import chunk_text
from loregraph.ingest.redo import rebuild_text
from loregraph.models import Chunk, Document, content_hash
from loregraph.settings import ChunkSettings


def _stored(text: str, size: int = 60) -> tuple[Document, list[Chunk]]:
    doc = Document("doc", "T", content_hash(text), char_count=len(text))
    settings = ChunkSettings(size=size, overlap=10)
    chunks = [
        Chunk(f"c{c.seq}", "doc", c.seq, c.start, c.end, c.text)
        for c in chunk_text(
            text, settings, sections=[i for i in range(len(text)) if text.startswith("CHAPTER", i)]
        )
    ]
    return doc, chunks


@pytest.mark.parametrize(
    "text",
    [
        "One sentence here. " * 12,
        "CHAPTER I\n\nJonathan went east by train. " * 3 + "\n\nCHAPTER II\n\nHe came to a castle.",
        "  leading blank space, a trailing newline.\n",
        "Blank space of many kinds. " * 3 + "\n\n\nCHAPTER II\n\nThe end. \n",
    ],
)
def test_text_is_rebuilt_exactly(text: str) -> None:
    doc, chunks = _stored(text)
    assert rebuild_text(doc, chunks) == text


def test_blank_runs_that_cannot_be_told_are_refused() -> None:
    text = "CHAPTER I\n\nJonathan went east by train. " * 3 + "\n \t \nCHAPTER II\n\nA castle."
    doc, chunks = _stored(text)
    covered = "".join(c.text for c in chunks)
    assert "\t" not in covered  # the gap is between chunks
    with pytest.raises(LoregraphError, match="cannot be rebuilt"):
        rebuild_text(doc, chunks)

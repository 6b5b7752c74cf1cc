"""A stored document's text rebuilt from its chunks and kept blank runs, exactly or not at all."""

from __future__ import annotations

import dataclasses

import pytest

from loregraph.errors import LoregraphError
from loregraph.ingest.chunk.blanks import BLANKS, blank_runs, complete, rebuild_text
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.models import Chunk, DocStatus, Document, content_hash
from loregraph.settings import ChunkSettings

ODD_GAP = "CHAPTER I\n\nJonathan went east by train. " * 3 + "\n \t \nCHAPTER II\n\nA castle."
"""A text whose chunks leave out a blank run no guess fills (a tab between two spaces)."""


def _stored(text: str, size: int = 60, *, kept: bool = True) -> tuple[Document, list[Chunk]]:
    settings = ChunkSettings(size=size, overlap=10)
    sections = [i for i in range(len(text)) if text.startswith("CHAPTER", i)]
    chunks = [
        Chunk(f"c{c.seq}", "doc", c.seq, c.start, c.end, c.text)
        for c in chunk_text(text, settings, sections=sections)
    ]
    metadata = {BLANKS: blank_runs(text, chunks)} if kept else {}
    doc = Document(
        "doc", "T", content_hash(text), source="/notes/t.md", metadata=metadata,
        status=DocStatus.DONE, char_count=len(text),
    )  # fmt: skip
    return doc, chunks


TEXTS = [
    "One sentence here. " * 12,
    "CHAPTER I\n\nJonathan went east by train. " * 3 + "\n\nCHAPTER II\n\nHe came to a castle.",
    "  leading blank space, a trailing newline.\n",
    "Blank space of many kinds. " * 3 + "\n\n\nCHAPTER II\n\nThe end. \n",
    ODD_GAP,
    "\r\n\t" + ODD_GAP.replace("\n\n", "\r\n   \r\n") + " \u00a0\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_text_is_rebuilt_exactly(text: str) -> None:
    doc, chunks = _stored(text)
    assert complete(doc)
    assert rebuild_text(doc, chunks) == text


@pytest.mark.parametrize("text", [t for t in TEXTS if "\t" not in t])
def test_an_older_document_is_rebuilt_by_guessing_its_blank_runs(text: str) -> None:
    doc, chunks = _stored(text, kept=False)
    assert not complete(doc)
    assert rebuild_text(doc, chunks) == text


def test_the_blank_runs_are_what_the_chunks_leave_out() -> None:
    doc, chunks = _stored(ODD_GAP)
    runs = doc.metadata[BLANKS]
    assert runs and all(not r.strip() for r in runs)
    assert any("\t" in r for r in runs)
    assert not any("\t" in c.text for c in chunks)


def test_an_older_document_whose_runs_cannot_be_guessed_names_the_recovery() -> None:
    doc, chunks = _stored(ODD_GAP, kept=False)
    assert not complete(doc)  # ingest processes it again rather than skipping it
    with pytest.raises(LoregraphError) as caught:
        rebuild_text(doc, chunks)
    message = str(caught.value)
    assert "earlier loregraph" in message
    assert "ingest its file (/notes/t.md) again, then retry" in message
    assert "\n" not in message


def test_runs_that_do_not_give_back_the_text_are_refused() -> None:
    doc, chunks = _stored(ODD_GAP)
    runs = [r.replace("\t", " ") for r in doc.metadata[BLANKS]]
    with pytest.raises(LoregraphError, match="do not give back its text"):
        rebuild_text(dataclasses.replace(doc, metadata={BLANKS: runs}), chunks)
    with pytest.raises(LoregraphError, match="do not give back its text"):
        rebuild_text(dataclasses.replace(doc, metadata={BLANKS: runs[:-1]}), chunks)

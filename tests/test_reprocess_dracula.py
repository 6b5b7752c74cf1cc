"""Acceptance: merges, undos, renames and backfill on a whole book, the full Dracula text in
one document (as `make demo` stores it). Each processes the book again from what the store
keeps: its chunks and the blank runs between them (`ingest/chunk/blanks.py`). The whole text's
blank runs are not all alike (one holds 25 spaces), which the old guess from at most 4,096
combinations could not rebuild. Built with hashed embeddings for speed: what is under test,
the exact text, does not depend on the embedder. Compared as in `test_unmerge_dracula.py`:
the JSON export (relation ``created_at`` left out) and every document's mentions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import loregraph
from graph_state import graph_state
from loregraph.embed.hashing import HashingEmbedder
from loregraph.engine.backfill import BackfillReport
from loregraph.engine.merge_views import MergeView
from loregraph.ingest.chunk.blanks import BLANKS, rebuild_text
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.pipeline import EXTRACTED_BY
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.settings import ExtractionSettings

DRACULA = Path(loregraph.__file__).parent / "data" / "dracula.txt"
KEPT, MERGED, NEW_NAME = "Jack Seward", "Dr. Seward", "Jack Seward of Purfleet"


class Renamed:
    """The offline extractor under another name: backfill processes every document again."""

    name = "offline-spacy-again"

    def __init__(self) -> None:
        self.inner = OfflineExtractor(ExtractionSettings())

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        return await self.inner.extract(document, chunks)


@dataclass
class Book:
    """What the operations on the book did, in order."""

    text: str
    """The document's text rebuilt from the store."""
    blanks: list[str]
    before: dict[str, Any]
    merge: MergeView
    merged: dict[str, Any]
    restored: dict[str, Any]
    renamed: str
    backfill: BackfillReport
    backfilled: dict[str, Any]
    extracted_by: str


def _open(db: Path, extractor: Any = None) -> loregraph.Graph:
    return loregraph.open(db, embedder=HashingEmbedder(dim=64), extractor=extractor)


def _names(state: dict[str, Any]) -> set[str]:
    return {e["name"] for e in state["entities"]}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Book:
    tmp = tmp_path_factory.mktemp("book")
    graph = _open(tmp / "dracula.db")
    try:
        assert graph.ingest(str(DRACULA)).ok
        (doc,) = graph.documents()
        bundle = graph._run(graph.store.read_bundle(doc.id))
        assert bundle is not None
        text = rebuild_text(bundle.document, bundle.chunks)
        before = graph_state(graph, tmp)
        merge = graph.corrections.merge(KEPT, MERGED, by="test")
        merged = graph_state(graph, tmp)
        graph.corrections.unmerge(merge.id, by="test")
        restored = graph_state(graph, tmp)
        renamed = graph.corrections.rename(KEPT, NEW_NAME, by="test").name
    finally:
        graph.close()
    graph = _open(tmp / "dracula.db", Renamed())
    try:
        report = graph.backfill()
        backfilled = graph_state(graph, tmp)
        (doc,) = graph.documents()
    finally:
        graph.close()
    blanks = bundle.document.metadata[BLANKS]
    return Book(
        text, blanks, before, merge, merged, restored, renamed, report, backfilled,
        doc.metadata[EXTRACTED_BY],
    )  # fmt: skip


def test_the_book_is_rebuilt_exactly_from_the_store(book: Book) -> None:
    assert len(book.text) > 800_000
    assert "".join(book.blanks).strip() == ""
    assert any(" " * 20 in run for run in book.blanks)  # a run no guess filled


def test_a_hand_merge_joins_the_two_names(book: Book) -> None:
    assert {KEPT, MERGED} <= _names(book.before)
    assert KEPT in _names(book.merged) and MERGED not in _names(book.merged)
    kept = next(e for e in book.merged["entities"] if e["name"] == KEPT)
    assert MERGED in kept["aliases"]
    assert len(book.merged["entities"]) == len(book.before["entities"]) - 1


def test_undoing_it_gives_back_the_graph_of_before(book: Book) -> None:
    assert book.restored == book.before


def test_a_rename_keeps_the_entity(book: Book) -> None:
    assert book.renamed == NEW_NAME


def test_backfill_processes_the_book_again(book: Book) -> None:
    assert book.backfill.ok and book.backfill.processed == 1
    assert book.extracted_by == Renamed.name
    assert len(book.backfilled["entities"]) == len(book.restored["entities"])
    assert len(book.backfilled["relations"]) == len(book.restored["relations"])

"""Each document is committed as soon as it is done: a long document never waits for the
documents after it, so a killed ingest keeps every document finished before the kill."""

from __future__ import annotations

from pathlib import Path

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.pipeline import BATCH_CHARS, IngestPipeline
from loregraph.ingest.types import (
    CandidateEntity,
    ExtractionResult,
    Occurrence,
    SourceDocument,
    TextChunk,
)
from loregraph.models import DocumentBundle
from loregraph.settings import Settings
from loregraph.store.sqlite import SqliteStore


class RecordingExtractor:
    """Finds one entity per document and records when it was asked."""

    def __init__(self, events: list[str]) -> None:
        self.events = events

    async def extract(self, source: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        self.events.append(f"extract {source.title}")
        name = source.title.capitalize()
        return ExtractionResult(
            entities=[CandidateEntity(name, "PERSON", occurrences=[Occurrence(0, name)])]
        )


class RecordingStore(SqliteStore):
    def __init__(self, path: Path, events: list[str]) -> None:
        super().__init__(path)
        self.events = events

    async def write_document(self, bundle: DocumentBundle) -> None:
        await super().write_document(bundle)
        self.events.append(f"commit {bundle.document.title}")


async def test_long_documents_are_committed_one_by_one_before_the_next_is_extracted(
    tmp_path: Path,
) -> None:
    events: list[str] = []
    size = BATCH_CHARS * 3 // 5  # two of them would not fit in one batch
    sources = [
        SourceDocument(title=name, text=f"{name.capitalize()} walked. " * (size // 12), source=name)
        for name in ("alpha", "beta", "gamma")
    ]
    async with RecordingStore(tmp_path / "kg.db", events) as store:
        pipeline = IngestPipeline(store, RecordingExtractor(events), HashingEmbedder(), Settings())
        report = await pipeline.ingest(sources)
    assert report.ingested == 3
    assert events == [
        "extract alpha",
        "commit alpha",
        "extract beta",
        "commit beta",
        "extract gamma",
        "commit gamma",
    ]


async def test_short_records_still_share_a_batch(tmp_path: Path) -> None:
    events: list[str] = []
    sources = [
        SourceDocument(title=f"r{i}", text=f"Record number {i} about Whitby.", source=f"r{i}")
        for i in range(5)
    ]
    async with RecordingStore(tmp_path / "kg.db", events) as store:
        pipeline = IngestPipeline(store, RecordingExtractor(events), HashingEmbedder(), Settings())
        await pipeline.ingest(sources)
    extracts = [e for e in events if e.startswith("extract")]
    assert events[: len(extracts)] == extracts  # all extracted first, in one batch
    assert events[len(extracts) :] == [f"commit r{i}" for i in range(5)]

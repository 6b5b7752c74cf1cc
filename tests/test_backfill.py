"""Backfill: stored documents extracted again with the current extractor, idempotent,
resumable, rate-limited, one document's failure reported and the others done."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.engine.backfill import Pace
from loregraph.errors import InputError, LoregraphError
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.pipeline import EXTRACTED_BY
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.settings import ExtractionSettings
from loregraph.store.sqlite import SqliteStore

TEXTS = {
    "Whitby": "Mina Harker walked along the cliffs at Whitby with Lucy Westenra.",
    "Letters": "Jonathan Harker wrote to Mina Harker from Budapest after his illness.",
    "Proposals": "Arthur Holmwood and Quincey Morris both proposed to Lucy Westenra in London.",
    "Asylum": "Doctor John Seward ran the asylum at Purfleet where Renfield was kept.",
    "Castle": "Count Dracula kept Jonathan Harker in his castle in Transylvania.",
}


class Stop(BaseException):
    """An interruption (as a Ctrl-C or a killed task would be) in the middle of a run."""


class Renamed:
    """The offline extractor under another identity, counting its calls; ``fail(title)``
    says how the call for a document goes wrong (``None``: it does not)."""

    def __init__(self, name: str, fail: Callable[[str], BaseException | None] = lambda t: None):
        self.name = name
        self.inner = OfflineExtractor(ExtractionSettings())
        self.calls: list[str] = []
        self.fail = fail

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        self.calls.append(document.title)
        error = self.fail(document.title)
        if error is not None:
            raise error
        return await self.inner.extract(document, chunks)


class FakeClock:
    """A clock that only moves when slept on (or moved by hand)."""

    def __init__(self) -> None:
        self.time = 100.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.time += seconds


@pytest.fixture()
async def path(tmp_path: Path) -> AsyncIterator[Path]:
    """A store holding the five documents, ingested with the offline extractor."""
    db = tmp_path / "g.db"
    graph = AsyncGraph(SqliteStore(db), embedder=HashingEmbedder(dim=64))
    for title, text in TEXTS.items():
        await graph.ingest_text(text, title=title)
    await graph.close()
    yield db


def _graph(db: Path, extractor: Any) -> AsyncGraph:
    return AsyncGraph(SqliteStore(db), embedder=HashingEmbedder(dim=64), extractor=extractor)


async def _extracted_by(graph: AsyncGraph) -> dict[str, str]:
    return {d.title: d.metadata.get(EXTRACTED_BY, "") for d in await graph.documents()}


async def _shape(graph: AsyncGraph, title: str) -> tuple[Any, ...]:
    """What a document holds in the store (its metadata, chunks, entities, relations)."""
    doc = next(d for d in await graph.documents() if d.title == title)
    bundle = await graph.store.read_bundle(doc.id)
    assert bundle is not None
    return (
        bundle.document.metadata,
        [(c.id, c.text) for c in bundle.chunks],
        sorted((w.entity.id, tuple(sorted(w.entity.aliases))) for w in bundle.entities),
        sorted((m.entity_id, m.chunk_id, m.count) for m in bundle.mentions),
        sorted(r.id for r in bundle.relations),
    )


async def test_ingest_records_the_extractor_and_backfill_is_idempotent(path: Path) -> None:
    graph = _graph(path, None)
    try:
        assert set((await _extracted_by(graph)).values()) == {"offline-spacy"}
        same = await graph.backfill()
        assert (same.processed, same.current, same.documents) == (0, 5, 5)
        before = await graph.stats()
    finally:
        await graph.close()

    other = Renamed("other-extractor")
    graph = _graph(path, other)
    try:
        report = await graph.backfill()
        assert report.ok and report.processed == 5 and report.current == 0
        assert report.extractor == "other-extractor"
        assert sorted(other.calls) == sorted(TEXTS)
        assert set((await _extracted_by(graph)).values()) == {"other-extractor"}
        after = await graph.stats()
        # the same extraction under another name: the same graph
        assert (after.documents, after.chunks, after.entities, after.relations) == (
            before.documents,
            before.chunks,
            before.entities,
            before.relations,
        )
        again = await graph.backfill()
        assert (again.processed, again.current) == (0, 5)
        assert len(other.calls) == 5  # nothing extracted the second time
    finally:
        await graph.close()


async def test_an_interrupted_run_resumes_where_it_stopped(path: Path) -> None:
    seen: list[str] = []

    def third_stops(title: str) -> BaseException | None:
        seen.append(title)
        return Stop() if len(seen) == 3 else None

    graph = _graph(path, Renamed("new", third_stops))
    try:
        shapes = {t: await _shape(graph, t) for t in TEXTS}
        with pytest.raises(Stop):
            await graph.backfill()
        marks = await _extracted_by(graph)
        assert sorted(marks.values()) == [
            "new",
            "new",
            "offline-spacy",
            "offline-spacy",
            "offline-spacy",
        ]
        stopped = seen[2]
        assert marks[stopped] == "offline-spacy"
        assert await _shape(graph, stopped) == shapes[stopped]  # nothing of it was lost
        assert (await graph.stats()).documents == 5
    finally:
        await graph.close()

    resumed = Renamed("new")
    graph = _graph(path, resumed)
    try:
        report = await graph.backfill()
        assert (report.processed, report.current) == (3, 2)
        assert sorted(resumed.calls) == sorted(t for t in TEXTS if t not in seen[:2])
        assert set((await _extracted_by(graph)).values()) == {"new"}
    finally:
        await graph.close()


async def test_a_failing_document_is_reported_and_left_as_it_was(path: Path) -> None:
    def proposals_fail(title: str) -> BaseException | None:
        return LoregraphError("the model refused") if title == "Proposals" else None

    graph = _graph(path, Renamed("new", proposals_fail))
    try:
        before = await _shape(graph, "Proposals")
        report = await graph.backfill()
        assert report.processed == 4 and not report.ok
        assert [f.error for f in report.failed] == ["the model refused"]
        assert report.failed[0].source == "text:Proposals"
        assert await _shape(graph, "Proposals") == before
        marks = await _extracted_by(graph)
        assert marks.pop("Proposals") == "offline-spacy"
        assert set(marks.values()) == {"new"}
        assert "the model refused" in report.summary()
    finally:
        await graph.close()


async def test_an_unexpected_error_is_reported_too(path: Path) -> None:
    def castle_breaks(title: str) -> BaseException | None:
        return ZeroDivisionError("division by zero") if title == "Castle" else None

    graph = _graph(path, Renamed("new", castle_breaks))
    try:
        report = await graph.backfill()
        assert report.processed == 4
        assert [f.error for f in report.failed] == ["ZeroDivisionError: division by zero"]
    finally:
        await graph.close()


async def test_the_limit_leaves_the_rest_for_a_later_run(path: Path) -> None:
    graph = _graph(path, Renamed("new"))
    try:
        first = await graph.backfill(limit=2)
        assert (first.processed, first.remaining) == (2, 3)
        second = await graph.backfill(limit=2)
        assert (second.processed, second.current, second.remaining) == (2, 2, 1)
        last = await graph.backfill()
        assert (last.processed, last.current, last.remaining) == (1, 4, 0)
        with pytest.raises(InputError):
            await graph.backfill(limit=0)
    finally:
        await graph.close()


async def test_documents_begin_at_the_rate_asked(path: Path) -> None:
    clock = FakeClock()
    starts: list[float] = []

    def record(title: str) -> BaseException | None:
        starts.append(clock.time)
        return None

    graph = _graph(path, Renamed("new", record))
    try:
        report = await graph.backfill(rate=2, clock=clock)
    finally:
        await graph.close()
    assert report.processed == 5
    assert [round(t - starts[0], 6) for t in starts] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert report.waited_seconds == pytest.approx(2.0)


async def test_slow_documents_are_not_held_back_further(path: Path) -> None:
    clock = FakeClock()

    def slow(title: str) -> BaseException | None:
        clock.time += 3.0  # each document takes longer than the pace asks
        return None

    graph = _graph(path, Renamed("new", slow))
    try:
        report = await graph.backfill(rate=1, clock=clock)
    finally:
        await graph.close()
    assert report.processed == 5 and clock.sleeps == [] and report.waited_seconds == 0


async def test_pace_refuses_a_rate_of_nothing() -> None:
    with pytest.raises(InputError):
        Pace(0)
    unlimited = Pace(None, FakeClock())
    assert [await unlimited.wait() for _ in range(3)] == [0.0, 0.0, 0.0]


def test_the_blocking_facade_backfills(path: Path) -> None:
    import loregraph

    with loregraph.open(path, embedder=HashingEmbedder(dim=64), extractor=Renamed("x")) as g:
        report = g.backfill(limit=1)
        assert report.processed == 1 and report.to_dict()["remaining"] == 4


@pytest.mark.skipif(
    "visibility" not in {f.name for f in dataclasses.fields(SourceDocument)},
    reason="documents are ingested without visibility or owner yet (being added)",
)
async def test_visibility_and_owner_survive_a_backfill(path: Path) -> None:
    graph = _graph(path, Renamed("new"))
    try:
        doc = next(d for d in await graph.documents() if d.title == "Letters")
        bundle = await graph.store.read_bundle(doc.id)
        assert bundle is not None
        bundle.document.visibility, bundle.document.owner = "personal", "mina"
        await graph.store.write_document(bundle)
        assert (await graph.backfill()).processed == 5
        again = await graph.store.get_document(doc.id)
        assert again is not None and (again.visibility, again.owner) == ("personal", "mina")
    finally:
        await graph.close()

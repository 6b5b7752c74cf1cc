"""Backfill: stored documents extracted again with the current extractor
(``graph.backfill``; what it runs is here).

After a language model is configured (or the extractor otherwise changes), the documents
already stored still hold the graph the old extractor made. ``backfill`` processes each of
them again through the ingest pipeline, as :mod:`loregraph.ingest.redo` does for a merge
undone: its text rebuilt from its chunks (hash-checked), then extract → resolve → relate →
write. Unlike an undo it does not delete the document first: the new graph replaces the old
in one write (:meth:`~loregraph.store.base.Store.write_document`), exactly as an ingest of a
changed file does, so a run stopped at any moment leaves every document either as it was or
re-extracted, never missing.

* **Idempotent**: every write records the extractor's identity (its ``name``:
  ``offline-spacy``, ``llm:<model>``) in the document's metadata under
  :data:`~loregraph.ingest.pipeline.EXTRACTED_BY`; documents that carry the current one are
  skipped. A second run does nothing.
* **Resumable**: the identity is written in the same transaction as the new graph, so a run
  interrupted (or stopped by ``limit``) continues with the documents not yet done.
* **Rate-limited**: at most ``rate`` documents begin per second (:class:`Pace`, with an
  injectable :class:`Clock`); the model's own calls are budgeted by ``llm/``.
* **Errors stay with their document**: a document that fails (its text cannot be rebuilt,
  the extractor or the write fails) is listed in the report and left as it was; the others
  are still processed.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from loregraph.errors import InputError
from loregraph.ingest.extract.base import identity
from loregraph.ingest.pipeline import EXTRACTED_BY, IngestPipeline
from loregraph.ingest.progress import NullProgress, Progress
from loregraph.ingest.redo import pending_of
from loregraph.ingest.report import DocumentFailure, IngestReport
from loregraph.ingest.tally import describe_failure
from loregraph.models import Document

if TYPE_CHECKING:
    from loregraph.llm.usage import StageUsage


class Clock(Protocol):
    """Where :class:`Pace` reads the time and waits (injectable, for tests)."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...


class MonotonicClock:
    """The real clock: :func:`time.monotonic` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on the event loop."""
        await asyncio.sleep(seconds)


class Pace:
    """At most ``rate`` documents begin per second (``None``: no limit).

    The k-th document begins no earlier than ``1/rate`` seconds after the one before it;
    a document that took longer than that lets the next one begin at once.
    """

    def __init__(self, rate: float | None, clock: Clock | None = None) -> None:
        if rate is not None and not rate > 0:
            raise InputError(f"the rate must be above 0 documents per second, not {rate}")
        self.interval = 1.0 / rate if rate else 0.0
        self.clock = clock or MonotonicClock()
        self._next: float | None = None

    async def wait(self) -> float:
        """Wait until the next document may begin; returns the seconds waited."""
        if not self.interval:
            return 0.0
        now = self.clock.now()
        waited = 0.0
        if self._next is not None and now < self._next:
            waited = self._next - now
            await self.clock.sleep(waited)
            now = self._next
        self._next = now + self.interval
        return waited


@dataclass(slots=True)
class BackfillReport:
    """What a backfill did: the documents of the scope, those already extracted by the
    current extractor (skipped), processed again, failed (left as they were) and left for a
    later run by ``limit``; the time the rate limit waited and, with a model, its calls."""

    extractor: str
    scope: str
    documents: int = 0
    current: int = 0
    processed: int = 0
    failed: list[DocumentFailure] = field(default_factory=list)
    remaining: int = 0
    entities_written: int = 0
    relations: int = 0
    waited_seconds: float = 0.0
    document_ids: list[str] = field(default_factory=list)
    llm: dict[str, StageUsage] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no document failed."""
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (every field, by name)."""
        data = asdict(self)
        data["waited_seconds"] = round(self.waited_seconds, 3)
        return data

    def summary(self) -> str:
        """A few lines for people."""
        lines = [
            f"backfill of scope {self.scope!r} with extractor {self.extractor}: "
            f"{self.processed} document(s) extracted again, {self.current} already current, "
            f"{len(self.failed)} failed, {self.remaining} left for a later run "
            f"(of {self.documents})"
        ]
        if self.processed:
            lines.append(f"  {self.entities_written} entity write(s), {self.relations} relation(s)")
        lines += [f"  failed: {f.source}: {f.error}" for f in self.failed]
        return "\n".join(lines)


@dataclass(slots=True)
class Run:
    """How a backfill runs: its pace, at most ``limit`` documents, its progress sink, and
    the lock a document is processed under (the engine's corrections: an undo or a hand
    merge never processes the same document at the same time)."""

    pace: Pace
    limit: int | None = None
    progress: Progress = field(default_factory=NullProgress)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


async def backfill(pipeline: IngestPipeline, scope: str, run: Run) -> BackfillReport:
    """Process again the documents of ``scope`` that ``pipeline``'s extractor did not make,
    oldest first; see the module's documentation."""
    current = identity(pipeline.extractor)
    documents = await pipeline.store.list_documents(scope)
    todo = [d for d in documents if d.metadata.get(EXTRACTED_BY) != current]
    report = BackfillReport(current, scope, len(documents), len(documents) - len(todo))
    if run.limit is not None:
        report.remaining = max(len(todo) - run.limit, 0)
        todo = todo[: run.limit]
    run.progress.start("documents", len(todo))
    for document in todo:
        report.waited_seconds += await run.pace.wait()
        async with run.lock:
            await _one(pipeline, scope, document, report)
    run.progress.finish("documents")
    return report


async def _one(
    pipeline: IngestPipeline, scope: str, document: Document, report: BackfillReport
) -> None:
    """Process one document again; a failure is reported and the document left as it was."""
    name = document.source or document.id
    done = IngestReport()
    try:
        bundle = await pipeline.store.read_bundle(document.id)
        if bundle is None:  # deleted since the listing: nothing to do
            pipeline.progress.advance("documents")
            return
        item = pending_of(bundle)
        await pipeline.load_rules(scope)  # decisions made since the last document count
        await pipeline.process_batch([item], scope, done)
    except Exception as exc:  # one document's error never stops the rest
        report.failed.append(DocumentFailure(name, describe_failure(exc)))
        pipeline.progress.advance("documents")
        return
    if done.failed:
        report.failed += [DocumentFailure(name, f.error) for f in done.failed]
        return
    report.processed += 1
    report.entities_written += done.entities_written
    report.relations += done.relations
    report.document_ids.append(document.id)

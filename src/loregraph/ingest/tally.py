"""The pipeline's bookkeeping: a written document's counts, failure texts and stage timers."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from loregraph.errors import LoregraphError
from loregraph.ingest.report import IngestReport
from loregraph.ingest.types import SourceDocument
from loregraph.models import CO_OCCURS, DocumentBundle


def count_bundle(
    report: IngestReport, bundle: DocumentBundle, new_entities: int, new_rels: int
) -> None:
    """Add a written document's counts to the report (a failed one adds none)."""
    report.chunks += len(bundle.chunks)
    report.entities_written += len(bundle.entities)
    report.entities_new += new_entities
    report.mentions += len(bundle.mentions)
    report.relations += len(bundle.relations)
    report.relations_new += new_rels
    report.typed_relations += sum(1 for r in bundle.relations if r.type != CO_OCCURS)
    report.merges += len(bundle.merges)


def describe_failure(exc: BaseException) -> str:
    """A failed document's reason as the report shows it."""
    text = str(exc) or exc.__class__.__name__
    return text if isinstance(exc, LoregraphError) else f"{exc.__class__.__name__}: {text}"


@contextmanager
def timer(report: IngestReport, stage: str) -> Iterator[None]:
    """Add the time the block takes to ``stage`` in the report."""
    started = time.perf_counter()
    try:
        yield
    finally:
        report.add_time(stage, time.perf_counter() - started)


def timed_iter(
    items: Iterable[SourceDocument], report: IngestReport, stage: str
) -> Iterator[SourceDocument]:
    """The items, the time taken to produce each added to ``stage`` in the report."""
    iterator = iter(items)
    while True:
        started = time.perf_counter()
        try:
            item = next(iterator)
        except StopIteration:
            report.add_time(stage, time.perf_counter() - started)
            return
        report.add_time(stage, time.perf_counter() - started)
        yield item

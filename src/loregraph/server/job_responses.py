"""The HTTP API's response shapes of ingest and backfill jobs: each job's status and
report, as ``GET /jobs/{id}`` returns it (see :mod:`.responses` for the others)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from loregraph.server.responses import Shape, Time


class FailureOut(Shape):
    """A document that could not be ingested (nothing of it is stored)."""

    source: str
    error: str


class SkippedOut(Shape):
    """A file or record that was not read: ``where`` it is and ``why``."""

    where: str
    why: str


class IngestReportOut(Shape):
    """What an ingest did (the CLI's ``ingest --json`` report)."""

    documents_seen: int
    ingested: int
    replaced: int
    skipped: int
    failed: list[FailureOut]
    chunks: int
    entities_written: int
    relations: int
    document_ids: list[str]
    skipped_inputs: list[SkippedOut] = Field(
        default_factory=list, description="Files and records not read, with the reason."
    )


class BackfillReportOut(Shape):
    """What a backfill did (the CLI's ``backfill --json`` report): the scope's documents,
    those already extracted by the current extractor, extracted again, failed (left as they
    were) and left for a later run."""

    extractor: str
    scope: str
    documents: int
    current: int
    processed: int
    failed: list[FailureOut]
    remaining: int
    document_ids: list[str]


JobStatus = Literal["running", "done", "failed"]


class JobOut(Shape):
    """An ingest or backfill job: its status, and its report once done."""

    id: str
    kind: Literal["ingest", "backfill"]
    scope: str
    status: JobStatus
    created_at: Time
    finished_at: Time | None
    documents: int | None = Field(description="Documents sent (null for paths: not known).")
    report: IngestReportOut | BackfillReportOut | None
    error: str | None
    events: str = Field(description="The URL of the job's progress events (SSE).")

"""Ingest as background jobs: ``POST /ingest`` (text in JSON), ``POST /ingest/upload``
(files), ``POST /ingest/paths`` (the server's own files), ``POST /backfill`` (the stored
documents extracted again), ``GET /jobs/{id}`` and ``GET /jobs/{id}/events`` (progress,
server-sent)."""

from __future__ import annotations

from collections.abc import Awaitable
from functools import partial
from pathlib import PurePath
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, File, Form, UploadFile

from loregraph import (
    Access,
    AsyncGraph,
    InputError,
    Principal,
    Progress,
    Role,
    body_document,
    check_owner,
    document_access,
    read_uploads,
)
from loregraph.server.auth import Anyone, Caller, Writer
from loregraph.server.job_responses import JobOut
from loregraph.server.jobs import Job, JobReport
from loregraph.server.paths import allowed_paths
from loregraph.server.problems import Problem
from loregraph.server.requests import (
    BackfillRequest,
    IngestPathsRequest,
    IngestTextRequest,
    VisibilityName,
)
from loregraph.server.sources import source_view
from loregraph.server.sse import EventStream, event_stream, job_events
from loregraph.server.state import Config, Engine, JobList

router = APIRouter(tags=["ingest"])

MAX_FILES = 100
"""Files one upload may carry."""

EVENTS_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-sent events: `skipped` (a file of an upload that was not "
        "read: where, why), `start`, `progress` (stage, done, total) and `finish` per "
        "stage, then `done` (the report) or `failed` (a problem detail).",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


@router.post("/ingest", response_model=JobOut, status_code=202)
async def ingest_text(body: IngestTextRequest, caller: Writer, jobs: JobList) -> Any:
    """Ingest one document sent as text; returns the job (follow its ``events``)."""
    data = body.text.encode("utf-8", "surrogatepass")  # a lone surrogate is refused as text
    document = body_document(data, title=body.title, doc_id=body.id)
    readers = _readers(caller, body.visibility, body.owner)
    return jobs.start(caller.principal, caller.scope, [readers.apply(document)]).to_dict()


@router.post("/ingest/upload", response_model=JobOut, status_code=202)
async def ingest_upload(
    caller: Writer,
    jobs: JobList,
    files: Annotated[
        list[UploadFile],
        File(
            description="Text or Markdown files (UTF-8); .json/.jsonl files of records; PDF, "
            "Word, PowerPoint or HTML files (with the docs extra)."
        ),
    ],
    title: Annotated[str | None, Form(description="Title (one file only).")] = None,
    id: Annotated[str | None, Form(description="Identity (one file only).")] = None,
    visibility: Annotated[
        VisibilityName | None, Form(description="public, private or personal (default public).")
    ] = None,
    owner: Annotated[str | None, Form(description="The principal the files belong to.")] = None,
) -> Any:
    """Ingest uploaded files, read as ``loregraph ingest`` reads files: each is identified
    in the scope by its name (sending ``note1.md`` again replaces it; ``id`` overrides the
    name) and titled as ``ingest`` titles files. Each is checked before the job starts:
    a file that cannot be read is refused (422) and nothing is stored; of several files,
    one that is not text, holds no words or cannot be converted is skipped and listed in
    the report's ``skipped_inputs`` (and a ``skipped`` event)."""
    if not files or len(files) > MAX_FILES:
        raise InputError(f"send 1 to {MAX_FILES} files")
    if (title or id) and len(files) != 1:
        raise InputError("a title or id names one document: send one file with it")
    readers = _readers(caller, visibility, owner)
    sent = [(PurePath(f.filename or "upload.txt").name, await f.read()) for f in files]
    read = partial(read_uploads, sent, title=title, doc_id=id)
    documents, skipped = await anyio.to_thread.run_sync(read)
    documents = [readers.apply(document) for document in documents]
    return jobs.start(caller.principal, caller.scope, documents, skipped).to_dict()


@router.post("/ingest/paths", response_model=JobOut, status_code=202)
async def ingest_paths(
    body: IngestPathsRequest, caller: Writer, jobs: JobList, graph: Engine, config: Config
) -> Any:
    """Ingest files or folders of the server's machine, as ``loregraph ingest`` does; only
    inside the folders the server allows (403 elsewhere, or when it allows none)."""
    paths = allowed_paths(body.paths, config.ingest_roots)
    readers = _readers(caller, body.visibility, body.owner)

    def work(graph: AsyncGraph, progress: Progress) -> Awaitable[JobReport]:
        return graph.ingest(
            *paths,
            scope=caller.scope,
            progress=progress,
            visibility=readers.visibility,
            owner=readers.owner,
        )

    return jobs.start_work(caller.principal, caller.scope, work, None).to_dict()


def _readers(caller: Caller, visibility: str | None, owner: str | None) -> Access:
    """The checked visibility and owner of the documents ``caller`` sends (422 for a bad
    one; a personal document's default owner: the caller's principal)."""
    access = document_access(visibility, owner, caller.principal)
    check_owner(access.owner, caller.scope, caller.principal)  # 403: not yours, not an admin
    return access


@router.post("/backfill", response_model=JobOut, status_code=202)
async def backfill(body: BackfillRequest, caller: Writer, jobs: JobList, graph: Engine) -> Any:
    """Extract the scope's stored documents again with the server's current extractor, as
    ``loregraph backfill`` does (those it already made are skipped); returns the job."""

    def work(graph: AsyncGraph, progress: Progress) -> Awaitable[JobReport]:
        return graph.backfill(
            scope=caller.scope, rate=body.rate, limit=body.limit, progress=progress
        )

    return jobs.start_work(caller.principal, caller.scope, work, None, "backfill").to_dict()


def _job(jobs: JobList, principal: Principal, job_id: str) -> Job:
    job = jobs.jobs.get(job_id)
    if job is None or not principal.may(job.scope, Role.READER):
        raise Problem(404, "not-found", "Not found", f"no job {job_id!r}")
    return job


@router.get("/jobs/{job_id}", response_model=JobOut)
async def job_status(job_id: str, principal: Anyone, jobs: JobList, config: Config) -> Any:
    """An ingest job: running, done (with its report) or failed (with the reason); the
    sources its report names shown as ``GET /documents`` shows them."""
    job = _job(jobs, principal, job_id)
    view = source_view(principal, job.scope, config.ingest_roots)
    data = job.to_dict()
    report = view.report(data["report"])
    if report is not None and report.get("failed") and not view.full:  # names the sources
        data["error"] = "; ".join(f"{f['source']}: {f['error']}" for f in report["failed"])
    return {**data, "report": report}


@router.get("/jobs/{job_id}/events", response_class=EventStream, responses=EVENTS_DOC)
async def job_progress(job_id: str, principal: Anyone, jobs: JobList, config: Config) -> Any:
    """An ingest job's progress as server-sent events, from its start to its end."""
    job = _job(jobs, principal, job_id)
    view = source_view(principal, job.scope, config.ingest_roots)
    return event_stream(job_events(job, view), config.limits.send_timeout)

"""Server-sent event streams: an answer as it is written, and an ingest job's progress.

An answer streams as ``status`` (``retrieving``), ``sources`` (the passages retrieved,
once known), ``delta`` events (pieces of text as they are written), then ``answer`` (the
whole answer with its citations, as ``POST /ask/json`` gives it), preceded with
``debug=true`` by a ``debug`` event (the retrieval's debug report). A failure or the time
limit ends the stream with an ``error`` event carrying a problem detail. A client that goes
away stops the answer (the model's stream is closed); so does a client that stops reading:
a send that waits longer than the server's ``send_timeout`` ends the stream
(:func:`event_stream`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from sse_starlette import EventSourceResponse
from sse_starlette.sse import SendTimeoutError
from starlette.types import Receive, Scope, Send

from loregraph import LoregraphError, RetrievalResult, StreamedAnswer
from loregraph.server.jobs import Job
from loregraph.server.problems import Problem, problem_of
from loregraph.server.sources import SourceView

STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
"""Headers of every event stream (no caching, no buffering by a proxy)."""
PING_SECONDS = 15
"""A comment line is sent this often when no event is, so idle streams stay open."""

log = logging.getLogger("loregraph.server")


class EventStream(EventSourceResponse):
    """Server-sent events that give up on a client that stops reading: when one send waits
    longer than ``send_timeout`` (the connection's buffers are full), the events' generator
    is closed (an answer stops being written) and the connection is dropped."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except* SendTimeoutError:
            log.warning(
                "%s %s: the client read nothing for %g s; its event stream was ended",
                scope.get("method"),
                scope.get("path"),
                self.send_timeout,
            )


def event_stream(events: AsyncIterator[dict[str, str]], send_timeout: float) -> EventStream:
    """The response sending ``events``, giving up on a reader stalled for ``send_timeout``
    seconds."""
    return EventStream(events, headers=STREAM_HEADERS, ping=PING_SECONDS, send_timeout=send_timeout)


def event(kind: str, data: dict[str, Any]) -> dict[str, str]:
    """One server-sent event: its name and JSON data."""
    return {"event": kind, "data": json.dumps(data, ensure_ascii=False, default=str)}


def sources(result: RetrievalResult) -> dict[str, Any]:
    """What an answer will be written from: its passages and the entities found."""
    return {
        "passages": [
            {
                "document_id": p.document_id,
                "document_title": p.document_title,
                "chunk_id": p.chunk_id,
                "seq": p.seq,
                "start": p.start,
                "end": p.end,
                "section": p.section,
                "score": p.score,
            }
            for p in result.passages
        ],
        "entities": [e.entity.name for e in result.entities[:20]],
        "relevant": result.relevant,
    }


def _failure(exc: BaseException) -> Problem:
    if isinstance(exc, Problem):
        return exc
    if isinstance(exc, LoregraphError):
        return problem_of(exc)
    return Problem(500, "internal-error", "Internal server error", type(exc).__name__)


async def _next(stream: StreamedAnswer, deadline: float) -> str | None:
    """The next piece (``None`` at the end), by the ``deadline``."""
    with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
        try:
            return await anext(stream)
        except StopAsyncIteration:
            return None


async def answer_events(
    stream: StreamedAnswer,
    timeout: float,
    debug: Callable[[RetrievalResult], dict[str, Any]] | None = None,
) -> AsyncIterator[dict[str, str]]:
    """The events of an answer written by ``stream`` (an engine's acting for the caller),
    within ``timeout``
    seconds (no event is sent from inside the time limit's scope); with ``debug``, a
    ``debug`` event of its report on the retrieval comes just before the last event."""
    yield event("status", {"stage": "retrieving"})
    deadline = anyio.current_time() + timeout
    failure: Problem | None = None
    first = True
    try:
        while True:
            try:
                piece = await _next(stream, deadline)
            except TimeoutError:
                failure = Problem(
                    504,
                    "timeout",
                    "Request timed out",
                    f"the answer took longer than {timeout:g} s",
                )
                break
            except Exception as exc:  # the stream has begun: the failure is its last event
                failure = _failure(exc)
                break
            if piece is None:
                break
            if first and stream.retrieval is not None:
                yield event("sources", sources(stream.retrieval))
                yield event("status", {"stage": "answering"})
            first = False
            yield event("delta", {"text": piece})
    finally:
        await stream.aclose()
    if debug is not None and stream.retrieval is not None:
        yield event("debug", debug(stream.retrieval))
    if failure is not None:
        yield event("error", failure.body())
    elif stream.answer is not None:
        yield event("answer", {**stream.answer.to_dict(), "found": stream.answer.found})


async def job_events(job: Job, view: SourceView) -> AsyncIterator[dict[str, str]]:
    """Every event of an ingest job, from its first, until it ends (the sources its report
    and skipped files name shown as ``view`` shows them)."""
    async for item in job.follow():
        data = item.data
        if "report" in data:
            data = {**data, "report": view.report(data["report"])}
        elif item.kind == "skipped":
            data = {**data, "where": view.source(data["where"])}
        yield event(item.kind, data)

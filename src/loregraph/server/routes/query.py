"""Questions: ``POST /ask`` (streamed), ``POST /ask/json``, ``POST /context``, ``GET /search``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from loregraph import Asking, AsyncGraph, context_of
from loregraph.server.auth import Caller, Reader
from loregraph.server.config import ServerConfig
from loregraph.server.debug import DebugParam, check_debug, debug_of
from loregraph.server.requests import AskRequest, AsOf, ContextRequest, KnownAt, Preset
from loregraph.server.responses import AnswerOut, ContextOut, SearchOut
from loregraph.server.sources import source_view
from loregraph.server.sse import EventStream, answer_events, event_stream
from loregraph.server.state import Config, Engine, check_length

router = APIRouter(tags=["questions"])

STREAM_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-sent events: `status`, `sources` (the passages retrieved), "
        "`delta` (pieces of the answer's text), with debug=true `debug` (the debug "
        "report, as POST /ask/json returns it), then `answer` (the answer with its "
        "citations, as POST /ask/json returns it) or `error` (a problem detail).",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


def asking(body: AskRequest, caller: Caller) -> Asking:
    """The options of a question the request asks, in the caller's scope."""
    return Asking(
        preset=body.preset,
        scope=caller.scope,
        as_of=body.as_of,
        known_at=body.known_at,
        show_ended=body.show_ended,
        only=body.only,
        persona=body.persona,
        history=body.history,
        conversation=body.conversation,
    )


def _checked(
    body: AskRequest, caller: Caller, graph: AsyncGraph, config: ServerConfig, debug: bool
) -> tuple[AsyncGraph, bool]:
    """The engine acting as ``caller`` and whether a debug report is wanted, once the
    question's length and the caller's right to a debug report are checked."""
    check_length(config, body.question, "question")
    report = check_debug(caller, debug)
    return graph.acting_as(caller.principal), report


@router.post("/ask", response_class=EventStream, responses=STREAM_DOC)
async def ask(
    body: AskRequest, caller: Reader, graph: Engine, config: Config, debug: DebugParam = False
) -> Any:
    """Answer a question with citations, streamed as server-sent events."""
    graph, report = _checked(body, caller, graph, config, debug)
    stream = graph.ask_stream(body.question, **asking(body, caller))
    events = answer_events(
        stream,
        config.limits.request_timeout,
        debug=(lambda result: debug_of(graph, result)) if report else None,
    )
    return event_stream(events, config.limits.send_timeout)


@router.post("/ask/json", response_model=AnswerOut, response_model_exclude_unset=True)
async def ask_json(
    body: AskRequest, caller: Reader, graph: Engine, config: Config, debug: DebugParam = False
) -> Any:
    """Answer a question with citations, in one JSON response."""
    graph, report = _checked(body, caller, graph, config, debug)
    answer = await graph.ask(body.question, **asking(body, caller))
    out = {**answer.to_dict(), "found": answer.found}
    if report and answer.retrieval is not None:
        out["debug"] = debug_of(graph, answer.retrieval)
    return out


@router.post("/context", response_model=ContextOut, response_model_exclude_unset=True)
async def context(
    body: ContextRequest, caller: Reader, graph: Engine, config: Config, debug: DebugParam = False
) -> Any:
    """The graph-augmented context an LLM would receive for the question."""
    graph, report = _checked(body, caller, graph, config, debug)
    result = await graph.retrieve(body.question, **asking(body, caller))
    text = context_of(result, body.format, body.budget)
    out: dict[str, Any] = {"question": body.question, "format": body.format, "context": text}
    if report:
        out["debug"] = debug_of(graph, result)
    return out


@router.get("/search", response_model=SearchOut)
async def search(
    caller: Reader,
    graph: Engine,
    config: Config,
    q: Annotated[str, Query(min_length=1, description="The query.")],
    kind: Literal["documents", "entities", "relations"] = "documents",
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    preset: Preset | None = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    only: Literal["memories", "documents"] | None = None,
) -> Any:
    """Ranked documents, entities or relations for a query (a document's ``source`` shown
    as ``GET /documents`` shows it)."""
    check_length(config, q, "query")
    graph = graph.acting_as(caller.principal)
    hits = await graph.search(
        q,
        kind=kind,
        limit=limit,
        preset=preset,
        scope=caller.scope,
        as_of=as_of,
        known_at=known_at,
        only=only,
    )
    view = source_view(caller.principal, caller.scope, config.ingest_roots)
    found = hits.to_dict()
    found["hits"] = [{**hit, "extra": view.document(hit["extra"])} for hit in found["hits"]]
    return found

"""Corrections by hand: ``POST /merges/{id}/undo``, ``POST /merge``, ``POST /rename`` and
``POST /retype``, for writers of the scope; each is written to the audit log under the
name of the request's key.

Undoing a merge or merging by hand processes documents again (delete, then write back),
which can take longer than a request may. So a change, once begun, runs to its end as a
task of its own: a request that times out (504) or whose client leaves does not cut it
short, and the server waits for running changes before it stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, FastAPI, Path, Request

from loregraph import AsyncGraph, Entity, MergeView
from loregraph.server.auth import Caller, Writer
from loregraph.server.requests import MergeRequest, RenameRequest, RetypeRequest
from loregraph.server.responses import EntityOut, MergeOut
from loregraph.server.state import Engine

T = TypeVar("T")


def _running(app: FastAPI) -> set[asyncio.Task[Any]]:
    """The changes running in ``app`` (kept here so that none is collected unfinished)."""
    found: set[asyncio.Task[Any]] | None = getattr(app.state, "edits", None)
    if found is None:
        found = set()
        app.state.edits = found
    return found


@asynccontextmanager
async def _drained(app: FastAPI) -> AsyncIterator[None]:
    """While the server runs; when it stops, wait for the changes still running."""
    yield
    running = _running(app)
    if running:
        await asyncio.gather(*running, return_exceptions=True)


router = APIRouter(tags=["edits"], lifespan=_drained)

MergeId = Annotated[str, Path(min_length=1, max_length=200, description="A merge's id.")]


async def to_the_end(request: Request, change: Coroutine[Any, Any, T]) -> T:
    """Run ``change`` as a task that ends only when done, whatever becomes of the request;
    its result or error, when the request is still waiting for it."""
    task = asyncio.ensure_future(change)
    running = _running(request.app)
    running.add(task)
    task.add_done_callback(running.discard)
    return await asyncio.shield(task)


async def _change(
    request: Request,
    caller: Caller,
    graph: AsyncGraph,
    make: Callable[[AsyncGraph, str], Coroutine[Any, Any, MergeView | Entity]],
) -> dict[str, Any]:
    """The change ``make(engine, scope)`` made by the caller's engine, to its end, as JSON."""
    done = await to_the_end(request, make(graph.acting_as(caller.principal), caller.scope))
    return done.to_dict()


@router.post("/merges/{merge_id}/undo", response_model=MergeOut)
async def undo(merge_id: MergeId, request: Request, caller: Writer, graph: Engine) -> Any:
    """Undo a merge (an id of ``GET /merges``): what it joined becomes an entity of its own
    again, with its aliases, mentions, relations and evidence, and later ingests do not
    merge it back. 404 for an unknown merge, 409 for one already undone, 422 for names the
    ingest takes for one (rename the entity instead)."""
    return await _change(
        request, caller, graph, lambda g, scope: g.corrections.unmerge(merge_id, scope=scope)
    )


@router.post("/merge", response_model=MergeOut)
async def merge(body: MergeRequest, request: Request, caller: Writer, graph: Engine) -> Any:
    """Merge the entity ``other`` into the entity ``name`` by hand (rule ``manual``; undo it
    with ``POST /merges/{id}/undo``). Both are exact names, aliases or ids: 404 for a name
    no entity has (the close names as ``candidates``, never merged), 422 when both are
    one entity."""
    return await _change(
        request,
        caller,
        graph,
        lambda g, scope: g.corrections.merge(body.name, body.other, scope=scope),
    )


@router.post("/rename", response_model=EntityOut)
async def rename(body: RenameRequest, request: Request, caller: Writer, graph: Engine) -> Any:
    """Give an entity a new name (its id, mentions and relations stay). 404 for an unknown
    name, 422 when another entity has the new name (merge them instead)."""
    return await _change(
        request,
        caller,
        graph,
        lambda g, scope: g.corrections.rename(body.name, body.new_name, scope=scope),
    )


@router.post("/retype", response_model=EntityOut)
async def retype(body: RetypeRequest, request: Request, caller: Writer, graph: Engine) -> Any:
    """Give an entity another type: a known one (or a word for it), or, with ``new_type``,
    a new one as given. 404 for an unknown name, 422 for an unknown type (the known types
    as ``candidates``)."""
    return await _change(
        request,
        caller,
        graph,
        lambda g, scope: g.corrections.retype(
            body.name, body.type, new_type=body.new_type, scope=scope
        ),
    )

"""An agent's memories: ``POST /memories`` (remember), ``GET /memories``,
``DELETE /memories/{id}`` (forget)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from loregraph import DeleteReport
from loregraph.server.auth import Reader, Writer
from loregraph.server.requests import Moment, RememberRequest, Until
from loregraph.server.responses import MemoryOut
from loregraph.server.state import Engine

router = APIRouter(tags=["memories"])


@router.post("/memories", response_model=MemoryOut, status_code=201)
async def remember(body: RememberRequest, caller: Writer, graph: Engine) -> Any:
    """Remember a text; it is searchable as soon as this returns."""
    graph = graph.acting_as(caller.principal)
    memory = await graph.memories.remember(
        body.text,
        at=body.at,
        source=body.source,
        tags=body.tags,
        metadata=body.metadata,
        scope=caller.scope,
        visibility=body.visibility,
        owner=body.owner,
        planned=body.planned,
    )
    return memory.to_dict()


@router.get("/memories", response_model=list[MemoryOut])
async def memories(
    caller: Reader,
    graph: Engine,
    tag: Annotated[list[str] | None, Query(description="Only memories with every tag.")] = None,
    source: str | None = None,
    since: Moment | None = None,
    until: Until | None = None,
    about: Annotated[str | None, Query(description="Only those mentioning this entity.")] = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 50,
) -> Any:
    """Memories, oldest first: by tag, source, time, or the entity they mention (the latest
    ``limit``)."""
    graph = graph.acting_as(caller.principal)
    found = await graph.memories.all(
        tags=tag or (), source=source, since=since, until=until, about=about, limit=limit,
        scope=caller.scope,
    )  # fmt: skip
    return [m.to_dict() for m in found]


@router.delete("/memories/{memory_id}", response_model=DeleteReport)
async def forget(memory_id: str, caller: Writer, graph: Engine) -> Any:
    """Forget a memory and exactly what only it supported; 404 for an unknown id."""
    graph = graph.acting_as(caller.principal)
    forgot = await graph.memories.forget(memory_id, by=caller.principal.name, scope=caller.scope)
    return forgot.to_dict()

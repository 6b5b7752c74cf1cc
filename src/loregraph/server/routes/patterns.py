"""Graph queries by name: ``GET /relations``, ``/neighbors`` (also as mermaid or GraphML)
and ``/path``; each takes ``as_of`` (relations true at that time; default now). For code:
``GET /impact`` (what depends on an entity) and ``/code`` (the code context for a
question)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response

from loregraph import MAX_HOPS, Impact, subgraph_text
from loregraph.server.auth import Reader
from loregraph.server.requests import AsOf, KnownAt
from loregraph.server.responses import (
    CodeContextOut,
    EntityRelationsOut,
    NeighbourhoodOut,
    PathOut,
)
from loregraph.server.routes.browse import Name
from loregraph.server.state import Engine

router = APIRouter(tags=["graph"])

Types = Annotated[list[str] | None, Query(description="Only relations of these types.")]
Hops = Annotated[int, Query(ge=1, le=MAX_HOPS)]

GRAPH_FORMATS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The neighbourhood as JSON, or drawn as mermaid or GraphML text.",
        "content": {"text/plain": {}, "application/xml": {}},
    }
}


@router.get("/relations", response_model=EntityRelationsOut)
async def relations(
    caller: Reader,
    graph: Engine,
    name: Name,
    direction: Literal["out", "in", "both"] = "both",
    type: Types = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 50,
    as_of: AsOf = None,
    known_at: KnownAt = None,
) -> Any:
    """The relations of an entity, heaviest first, with the other end and evidence."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.relations(
        name, direction=direction, type=type or None, limit=limit, as_of=as_of,
        known_at=known_at, scope=caller.scope,
    )  # fmt: skip
    return found.to_dict()


@router.get("/neighbors", response_model=NeighbourhoodOut, responses=GRAPH_FORMATS)
async def neighbors(
    caller: Reader,
    graph: Engine,
    name: Name,
    hops: Hops = 1,
    type: Types = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    as_of: AsOf = None,
    known_at: KnownAt = None,
    format: Literal["json", "mermaid", "graphml"] = "json",
) -> Any:
    """The entities within ``hops`` relations of an entity, with their distance, and the
    relations joining them."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.neighbors(
        name,
        hops=hops,
        limit=limit,
        type=type or None,
        as_of=as_of,
        known_at=known_at,
        scope=caller.scope,
    )
    if format == "json":
        return found.to_dict()
    text = subgraph_text(found.ordered(), found.relations, format)
    if format == "mermaid":
        return PlainTextResponse(text)
    return Response(text, media_type="application/xml")


@router.get("/path", response_model=list[PathOut])
async def path(
    caller: Reader,
    graph: Engine,
    source: Name,
    target: Name,
    max_hops: Hops = 3,
    type: Types = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 5,
    as_of: AsOf = None,
    known_at: KnownAt = None,
) -> Any:
    """The shortest paths between two entities, each step with its relation and evidence;
    404 when none is within ``max_hops``."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.path(
        source, target, max_hops=max_hops, limit=limit, type=type or None, as_of=as_of,
        known_at=known_at, scope=caller.scope,
    )  # fmt: skip
    return [p.to_dict() for p in found]


@router.get("/impact", response_model=Impact)
async def impact(
    caller: Reader,
    graph: Engine,
    name: Name,
    hops: Annotated[int, Query(ge=1, le=10)] = 3,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    as_of: AsOf = None,
) -> Any:
    """What depends on an entity, transitively, nearest first: the callers of a function
    and theirs, the files that import a module, the subclasses of a class, the projects
    that depend on a library."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.impact(
        name, hops=hops, limit=limit, as_of=as_of, scope=caller.scope
    )
    return found.to_dict()


@router.get("/code", response_model=CodeContextOut)
async def code(
    caller: Reader,
    graph: Engine,
    question: Annotated[str, Query(min_length=1, max_length=2000)],
    limit: Annotated[int, Query(ge=1, le=20)] = 5,
    budget: Annotated[int, Query(ge=100, le=100_000)] = 2000,
    as_of: AsOf = None,
) -> Any:
    """The code context for a question about an indexed repository: the functions and
    classes it names or its best passages show, each at ``path:first-last`` with its code,
    container, callers and callees, then the documents and memories beside them; ``text``
    is the whole as markdown within ``budget`` tokens."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.code(
        question, limit=limit, budget=budget, as_of=as_of, scope=caller.scope
    )
    return found.to_dict()

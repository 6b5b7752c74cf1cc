"""Looking around: ``GET /entities``, ``/entity``, ``/documents``, ``/passages/{id}``,
``/suggest``, ``/stats``, ``/scopes``."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from loregraph import CO_OCCURS, PassageView, Role, StoreStats
from loregraph.server.auth import Anyone, Reader
from loregraph.server.requests import AsOf, KnownAt
from loregraph.server.responses import DocumentOut, EntityOut, EntityViewOut, SuggestionOut
from loregraph.server.sources import source_view
from loregraph.server.state import Config, Engine

router = APIRouter(tags=["browse"])

Name = Annotated[str, Query(min_length=1, max_length=500, description="An entity's name.")]


@router.get("/entities", response_model=list[EntityOut])
async def entities(
    caller: Reader,
    graph: Engine,
    type: Annotated[str | None, Query(description="Only entities of this type.")] = None,
    order: Literal["mentions", "degree", "name"] = "mentions",
    limit: Annotated[int, Query(ge=1, le=10_000)] = 30,
) -> Any:
    """Entities of the scope, most mentioned first."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.entities(
        entity_type=type, order=order, limit=limit, scope=caller.scope
    )
    return [e.to_dict() for e in found]


@router.get("/entity", response_model=EntityViewOut)
async def entity(
    caller: Reader,
    graph: Engine,
    name: Name,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 25,
    co_occurrence: Annotated[
        bool, Query(description="Also list plain co-occurrence (weaker evidence).")
    ] = False,
    as_of: AsOf = None,
    known_at: KnownAt = None,
) -> Any:
    """An entity (by name or alias; the closest name if none is exact) with its relations
    and their evidence; 404 when no entity is close."""
    graph = graph.acting_as(caller.principal)
    view = await graph.explore.entity(
        name, limit=None, scope=caller.scope, as_of=as_of, known_at=known_at
    )
    shown = [r for r in view.relations if co_occurrence or r.type != CO_OCCURS][:limit]
    return dataclasses.replace(view, relations=shown).to_dict()


@router.get("/documents", response_model=list[DocumentOut])
async def documents(caller: Reader, graph: Engine, config: Config) -> Any:
    """The documents of the scope (a file's ``source`` relative to the folder the server
    ingests from, or its name, except for administrators: see :mod:`..sources`)."""
    view = source_view(caller.principal, caller.scope, config.ingest_roots)
    graph = graph.acting_as(caller.principal)
    return [view.document(d.to_dict()) for d in await graph.documents(scope=caller.scope)]


@router.get("/passages/{passage_id}", response_model=PassageView)
async def passage(passage_id: str, caller: Reader, graph: Engine) -> Any:
    """A passage by id (a citation's ``chunk_id``) with its document's title; 404 when the
    scope has none."""
    graph = graph.acting_as(caller.principal)
    return (await graph.explore.passage(passage_id, scope=caller.scope)).to_dict()


@router.get("/suggest", response_model=list[SuggestionOut])
async def suggest(
    caller: Reader,
    graph: Engine,
    document: Annotated[
        str, Query(min_length=1, max_length=1000, description="A document's id, source or title.")
    ],
    limit: Annotated[int, Query(ge=1, le=100)] = 5,
) -> Any:
    """Other documents about the same people, places and periods as ``document``, best
    first, each with the entities they share and a reason; 404 for an unknown document."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.suggest(document, limit=limit, scope=caller.scope)
    return [s.to_dict() for s in found]


@router.get("/stats", response_model=StoreStats)
async def stats(caller: Reader, graph: Engine) -> Any:
    """Counts of documents, chunks, entities, relations and mentions in the scope."""
    graph = graph.acting_as(caller.principal)
    return (await graph.stats(scope=caller.scope)).to_dict()


@router.get("/scopes", response_model=dict[str, StoreStats])
async def scopes(principal: Anyone, graph: Engine) -> Any:
    """The scopes that hold data and that this key may read, with their counts."""
    found = await graph.acting_as(principal).scopes()
    return {name: st.to_dict() for name, st in found.items() if principal.may(name, Role.READER)}

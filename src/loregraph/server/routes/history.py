"""What happened to the graph: ``GET /history`` (the timeline of an entity's facts),
``GET /merges`` (every merge, undone ones on request) and ``GET /audit`` (who changed what).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from loregraph.server.auth import Admin, Reader
from loregraph.server.requests import AsOf, KnownAt
from loregraph.server.responses import AuditEntryOut, HistoryOut, MergeOut
from loregraph.server.routes.browse import Name
from loregraph.server.routes.patterns import Types
from loregraph.server.state import Engine

router = APIRouter(tags=["history"])


@router.get("/history", response_model=HistoryOut)
async def history(
    caller: Reader,
    graph: Engine,
    name: Name,
    other: Annotated[
        str | None,
        Query(min_length=1, max_length=500, description="Only the facts joining it to this one."),
    ] = None,
    type: Types = None,
    as_of: AsOf = None,
    known_at: KnownAt = None,
) -> Any:
    """The timeline of the facts about an entity, current and ended (with ``as_of`` or
    ``known_at``, those begun and known by then):
    when each held, when the graph learnt it and stopped believing it, its evidence, and
    the memory or document that ended it. 404 for an unknown name."""
    graph = graph.acting_as(caller.principal)
    found = await graph.explore.history(
        name, other, type=type or None, scope=caller.scope, as_of=as_of, known_at=known_at
    )
    return found.to_dict()


@router.get("/merges", response_model=list[MergeOut])
async def merges(
    caller: Reader,
    graph: Engine,
    entity: Annotated[
        str | None,
        Query(min_length=1, max_length=500, description="Only the merges into this entity."),
    ] = None,
    undone: Annotated[bool, Query(description="List undone merges too.")] = False,
) -> Any:
    """Every merge of the scope, newest first: the name merged, the entity, the rule, its
    score, the document that caused it and when; undo one with ``POST /merges/{id}/undo``.
    404 for an unknown ``entity``."""
    graph = graph.acting_as(caller.principal)
    found = await graph.corrections.merges(entity=entity, undone=undone, scope=caller.scope)
    return [m.to_dict() for m in found]


@router.get("/audit", response_model=list[AuditEntryOut])
async def audit(
    caller: Admin,
    graph: Engine,
    limit: Annotated[int, Query(ge=1, le=10_000, description="How many (the latest).")] = 50,
) -> Any:
    """The scope's audit log, newest first: every merge, unmerge, rename, retype, deletion
    and forgotten memory, grant, link and key created or revoked (never its secret), with
    its time and the key that made it (administrators only: it names the keys)."""
    graph = graph.acting_as(caller.principal)
    found = await graph.access.audit(limit=limit, scope=caller.scope)
    return [e.to_dict() for e in found]

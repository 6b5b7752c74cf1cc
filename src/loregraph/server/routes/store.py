"""Changing and exporting the store: ``DELETE /documents/{ref}`` and ``GET /export``."""

from __future__ import annotations

import io
import json
import re
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import Response

from loregraph import DeleteReport
from loregraph.server.auth import Reader, Writer
from loregraph.server.requests import AsOf, KnownAt
from loregraph.server.sources import source_view
from loregraph.server.state import Config, Engine

router = APIRouter(tags=["store"])

UNSAFE = re.compile(r"[^\w.-]")
"""What a file name may not hold."""
MEDIA = {"json": "application/json", "graphml": "application/xml"}


@router.delete("/documents/{ref:path}", response_model=DeleteReport)
async def delete(ref: str, caller: Writer, graph: Engine) -> Any:
    """Delete a document (id, source or exact title) and exactly what only it supported;
    404 for an unknown document."""
    graph = graph.acting_as(caller.principal)
    report = await graph.delete(ref, scope=caller.scope, by=caller.principal.name)
    return report.to_dict()


@router.get(
    "/export",
    responses={200: {"content": {"application/json": {}, "application/xml": {}}}},
    response_class=Response,
)
async def export(
    caller: Reader,
    graph: Engine,
    config: Config,
    format: Literal["json", "graphml"] = "json",
    as_of: AsOf = None,
    known_at: KnownAt = None,
) -> Response:
    """The scope's graph as a JSON or GraphML file (documents' sources shown as
    ``GET /documents`` shows them); with ``as_of`` or ``known_at``, as it stood then."""
    buffer = io.BytesIO()
    graph = graph.acting_as(caller.principal)
    await graph.export(buffer, format=format, scope=caller.scope, as_of=as_of, known_at=known_at)
    body = buffer.getvalue()
    view = source_view(caller.principal, caller.scope, config.ingest_roots)
    if format == "json" and not view.full:
        shown = view.export(json.loads(body))
        body = json.dumps(shown, ensure_ascii=False, indent=1).encode("utf-8")
    name = UNSAFE.sub("_", caller.scope) + "." + format
    return Response(
        body,
        media_type=MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )

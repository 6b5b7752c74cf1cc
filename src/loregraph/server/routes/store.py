"""Changing and exporting the store: ``DELETE /documents/{ref}`` and ``GET /export``."""

from __future__ import annotations

import io
import re
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import Response

from loregraph.access import acting_as
from loregraph.models import DeleteReport
from loregraph.server.auth import Reader, Writer
from loregraph.server.state import Engine

router = APIRouter(tags=["store"])

UNSAFE = re.compile(r"[^\w.-]")
"""What a file name may not hold."""
MEDIA = {"json": "application/json", "graphml": "application/xml"}


@router.delete("/documents/{ref:path}", response_model=DeleteReport)
async def delete(ref: str, caller: Writer, graph: Engine) -> Any:
    """Delete a document (id, source or exact title) and exactly what only it supported;
    404 for an unknown document."""
    with acting_as(caller.principal):
        report = await graph.delete(ref, scope=caller.scope, principal=caller.principal.name)
        return report.to_dict()


@router.get(
    "/export",
    responses={200: {"content": {"application/json": {}, "application/xml": {}}}},
    response_class=Response,
)
async def export(
    caller: Reader, graph: Engine, format: Literal["json", "graphml"] = "json"
) -> Response:
    """The scope's graph as a JSON or GraphML file."""
    buffer = io.BytesIO()
    with acting_as(caller.principal):
        await graph.export(buffer, format=format, scope=caller.scope)
    name = UNSAFE.sub("_", caller.scope) + "." + format
    return Response(
        buffer.getvalue(),
        media_type=MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )

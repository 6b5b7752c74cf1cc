"""``GET /docs``: the API's documentation page, made on the server from its OpenAPI
document (:mod:`loregraph.server.openapi`): it needs no key and nothing from the network."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from loregraph.server.openapi import docs_page

router = APIRouter(tags=["server"])


@router.get("/docs", include_in_schema=False, response_class=HTMLResponse)
async def docs(request: Request) -> HTMLResponse:
    """Every route: what it does, its parameters and body, whether it needs a key."""
    return HTMLResponse(docs_page(request.app.openapi()))

"""What a store holds, to check that a refused or abandoned request changed nothing."""

from __future__ import annotations

import io
import json
from typing import Any

import httpx

from loregraph import AsyncGraph


async def snapshot(graph: AsyncGraph, scope: str | None = None) -> dict[str, Any]:
    """The scope's counts, its documents and its whole graph as exported (JSON)."""
    buffer = io.BytesIO()
    await graph.export(buffer, format="json", scope=scope)
    return {
        "stats": (await graph.stats(scope=scope)).to_dict(),
        "documents": sorted(d.id for d in await graph.documents(scope=scope)),
        "export": json.loads(buffer.getvalue()),
    }


def served_snapshot(http: httpx.Client) -> dict[str, Any]:
    """The same over HTTP (``GET /stats`` and ``GET /export``), for a served store."""
    stats = http.get("/stats")
    exported = http.get("/export")
    assert stats.status_code == 200 and exported.status_code == 200
    return {"stats": stats.json(), "export": exported.json()}

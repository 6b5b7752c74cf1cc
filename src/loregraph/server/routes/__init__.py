"""The API's routes, one module per area; :data:`ROUTERS` lists them all."""

from __future__ import annotations

from loregraph.server.routes import (
    browse,
    docs,
    edits,
    history,
    ingest,
    memory,
    metrics,
    patterns,
    query,
    store,
)

ROUTERS = (
    query.router,
    browse.router,
    patterns.router,
    history.router,
    edits.router,
    memory.router,
    ingest.router,
    store.router,
    metrics.router,
    docs.router,
)

__all__ = ["ROUTERS"]

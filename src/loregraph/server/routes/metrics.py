"""``GET /metrics``: the engine's Prometheus metrics (:mod:`loregraph.observe.metrics`).

Served when the server was given a :class:`~loregraph.observe.metrics.Metrics` (``loregraph
serve`` gives one when ``prometheus-client`` is installed). The metrics count the activity
of every scope together, so only an administrator of every scope (a key made with
``--scope '*' --role admin``, or the local operator of a server without keys) may scrape
them; any other key gets 403.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from loregraph import ALL_SCOPES, Role
from loregraph.server.auth import Anyone
from loregraph.server.problems import Problem, forbidden

router = APIRouter(tags=["server"])


@router.get("/metrics", response_class=Response)
async def metrics(request: Request, principal: Anyone) -> Response:
    """Stage latency histograms, retrievals, results by source, search errors, ingested
    documents, LLM calls, tokens and cache hits, and the circuit breaker's state, in the
    Prometheus text format; 404 when the server keeps no metrics. They count every scope's
    activity: administrators of every scope only (403 for any other key)."""
    if not principal.may(ALL_SCOPES, Role.ADMIN):
        raise forbidden(
            f"key {principal.name!r} may not read the metrics: they count every scope's "
            "activity, so they need the admin role in every scope (--scope '*')"
        )
    kept = request.app.state.config.metrics
    if kept is None:
        raise Problem(404, "not-found", "Not found", "this server keeps no metrics")
    body, content_type = kept.exposition()
    return Response(body, media_type=content_type)

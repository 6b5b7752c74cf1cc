"""``GET /metrics``: the engine's Prometheus metrics (:mod:`loregraph.observe.metrics`).

Served when the server was given a :class:`~loregraph.observe.metrics.Metrics` (``loregraph
serve`` gives one when ``prometheus-client`` is installed); any valid key may scrape it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from loregraph.server.auth import Anyone
from loregraph.server.problems import Problem

router = APIRouter(tags=["server"])


@router.get("/metrics", response_class=Response)
async def metrics(request: Request, _: Anyone) -> Response:
    """Stage latency histograms, retrievals, results by source, search errors, ingested
    documents, LLM calls, tokens and cache hits, and the circuit breaker's state, in the
    Prometheus text format; 404 when the server keeps no metrics."""
    kept = request.app.state.config.metrics
    if kept is None:
        raise Problem(404, "not-found", "Not found", "this server keeps no metrics")
    body, content_type = kept.exposition()
    return Response(body, media_type=content_type)

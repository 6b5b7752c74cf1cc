"""The app factory: :func:`create_app` makes the ASGI application around an engine.

The engine (an :class:`~loregraph.graph.AsyncGraph` over its store) and the configuration
are objects passed in; nothing here reads the environment. The app opens the engine when
it starts (with what mounted applications need running) and cancels running ingest jobs
when it stops; closing the engine is its creator's business. Other applications (an MCP
endpoint, the web explorer's static files) are mounted after the API's routes through
:attr:`ServerConfig.mounts`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import Route

from loregraph import AsyncGraph
from loregraph.server import problems
from loregraph.server.config import ServerConfig
from loregraph.server.jobs import Jobs
from loregraph.server.limits import BodyLimit, Timeout
from loregraph.server.logs import RequestLog
from loregraph.server.media import check_media_type
from loregraph.server.openapi import describe_security
from loregraph.server.origins import Origins, accepted_hosts
from loregraph.server.routes import ROUTERS

CORS_HEADERS = ("Authorization", "Content-Type", "X-Request-ID")
MCP_HEADERS = ("Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID")
"""The headers an MCP client sends to /mcp (it reads back ``Mcp-Session-Id``)."""
STREAMING_SUFFIXES = ("/events",)
STREAMING_PATHS = ("/ask", "/mcp")


def streams(path: str) -> bool:
    """Whether the route at ``path`` answers with an event stream (which keeps its own
    time limit)."""
    return path in STREAMING_PATHS or path.endswith(STREAMING_SUFFIXES)


def create_app(graph: AsyncGraph, config: ServerConfig | None = None) -> FastAPI:
    """The HTTP API over ``graph``, behaving as ``config`` says (default: keys required,
    default limits, answering to loopback host names only, no CORS)."""
    config = config or ServerConfig()
    jobs = Jobs(graph, config.limits.max_ingest_jobs)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await graph.open()
        async with AsyncExitStack() as running:
            running.push_async_callback(jobs.aclose)
            for mount in config.mounts:
                if mount.lifespan is not None:
                    await running.enter_async_context(mount.lifespan())
            yield

    app = FastAPI(
        title=config.title,
        summary="Documents and memories as a knowledge graph, answered with citations.",
        version=_version(),
        lifespan=lifespan,
        # FastAPI's /docs and /redoc pages load their scripts from a CDN: nothing here
        # may need the network, so /docs is a page made on the server (server/openapi.py)
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(check_media_type)],  # 415 for a body of the wrong type
    )
    app.state.graph = graph
    app.state.config = config
    app.state.jobs = jobs
    app.state.auth = config.auth
    problems.install(app)
    for router in ROUTERS:
        app.include_router(router)
    _describe_errors(app)

    @app.get("/health", tags=["server"])
    async def health() -> dict[str, str]:
        """Whether the server is up (no key needed)."""
        return {"status": "ok"}

    # exact routes first: a prefix mount at / (the explorer) would take every path
    for mount in sorted(config.mounts, key=lambda m: not m.route):
        if mount.route:
            app.router.routes.append(Route(mount.path, mount.app, name=mount.name))
        else:
            app.mount(mount.path, mount.app, name=mount.name)
    # middleware added last runs first: the request log, the host and origin checks, CORS,
    # the body limit, the timeout
    app.add_middleware(Timeout, seconds=config.limits.request_timeout, streams=streams)
    app.add_middleware(BodyLimit, limit=config.limits.max_body_bytes)
    if config.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.allowed_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=[*CORS_HEADERS, *MCP_HEADERS],
            expose_headers=["X-Request-ID", "Mcp-Session-Id"],
        )
    hosts = accepted_hosts(config.host, config.allowed_hosts)
    app.add_middleware(Origins, hosts=hosts, origins=config.allowed_origins)
    app.add_middleware(RequestLog)  # outermost: every response gets its id and log line
    return app


def _describe_errors(app: FastAPI) -> None:
    """Make the OpenAPI document describe errors as problem details (as they are sent)."""
    framework_document = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            described = problems.describe_problems(framework_document())
            app.openapi_schema = describe_security(described, bool(app.state.auth))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("loregraph")
    except PackageNotFoundError:
        return "0"

"""The MCP server over streamable HTTP at ``/mcp``, behind the API's keys.

The official SDK's streamable HTTP app (:func:`loregraph.mcp.build_server`) is served at the
exact path ``/mcp`` (MCP clients do not follow redirects, so it is a route, not a prefix
mount). Its Host and Origin headers are checked by the app, as every request's are
(:mod:`loregraph.server.origins`). With authentication on, a request needs a key
(``Authorization: Bearer``) that may read the server's scope; the principal is then the one
the engine acts for. A key that may write gets every tool; a key that may only read is
served the read-only tool set (no ``remember``, no ``forget``) by a second MCP server.
Without a key the answer is the API's 401 problem, with a key that may not read the scope a
403.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from loregraph import AsyncGraph, Principal, Role
from loregraph.mcp.acting import serving
from loregraph.server.auth import principal_of
from loregraph.server.config import Mount
from loregraph.server.problems import Problem, forbidden

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PATH = "/mcp"


def mcp_mount(graph: AsyncGraph, *, result_chars: int | None = None) -> Mount:
    """The MCP endpoint as a :class:`Mount` of the HTTP server (a route at ``/mcp``): every
    tool for a key that may write, the tools that read for one that may only read; each
    tool result capped at ``result_chars`` characters (default: the MCP server's)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from loregraph.mcp import build_server
    from loregraph.mcp.shaping import RESULT_CHARS

    chars = result_chars or RESULT_CHARS
    server = build_server(graph, result_chars=chars)
    reading = build_server(graph, read_only=True, result_chars=chars)
    # The SDK's own Host and Origin check is off: the app's middleware
    # (loregraph.server.origins.Origins) checks every request to /mcp as it checks the API's,
    # with the hosts and origins the server was configured with, and answers with problem
    # details. A second copy of the rule would drift from the first (the SDK's compares
    # whole "host:port" strings and, given no hosts, refuses every request with 421, which
    # broke MCP over HTTP with --no-auth). The SDK still refuses a POST that is not JSON.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    inner = server.streamable_http_app(streamable_http_path=PATH, transport_security=security)
    reader = reading.streamable_http_app(streamable_http_path=PATH, transport_security=security)
    return Mount(
        PATH,
        KeyGuard(inner, graph, reader=reader),
        name="mcp",
        lifespan=lambda: running(server, reading),
        route=True,
    )


@asynccontextmanager
async def running(*servers: MCPServer) -> AsyncIterator[None]:
    """The session managers of ``servers`` running, for as long as the HTTP server runs."""
    async with AsyncExitStack() as stack:
        for server in servers:
            await stack.enter_async_context(server.session_manager.run())
        yield


class KeyGuard:
    """An ASGI wrapper sending a request whose key may write the server's scope to ``app``
    (every tool), one whose key may only read it to ``reader`` (the tools that read)."""

    def __init__(self, app: ASGIApp, graph: AsyncGraph, *, reader: ASGIApp) -> None:
        self.app = app
        self.reader = reader
        self.graph = graph

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            principal = await self._principal(scope)
        except Problem as problem:
            await _send_problem(problem, send)
            return
        writes = principal.may(self.graph.settings.scope, Role.WRITER)
        with serving(principal):
            await (self.app if writes else self.reader)(scope, receive, send)

    async def _principal(self, scope: Scope) -> Principal:
        """The request's principal as every API route finds it (:func:`principal_of`),
        which must be allowed to read the server's scope."""
        principal = await principal_of(Request(scope))
        chosen = self.graph.settings.scope
        if not principal.may(chosen, Role.READER):
            raise forbidden(f"key {principal.name!r} may not read scope {chosen!r} (MCP)")
        return principal


async def _send_problem(problem: Problem, send: Send) -> None:
    body = json.dumps(problem.body()).encode()
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in problem.headers.items()),
    ]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

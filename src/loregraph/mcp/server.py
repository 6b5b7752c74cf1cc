"""The MCP server: loregraph's tools and entities for an agent, over stdio or HTTP.

:func:`build_server` makes an :class:`~mcp.server.mcpserver.MCPServer` (the official SDK)
around an opened :class:`~loregraph.graph.AsyncGraph`: the tools of
:mod:`loregraph.mcp.tools` (without ``remember`` and ``forget`` when read-only) and the
entities as resources (``loregraph://entities``, the most mentioned, and
``loregraph://entity/{name}``, one with its relations). :func:`serve_stdio` runs it on
standard input and output; ``MCPServer.streamable_http_app()`` gives the ASGI app the HTTP
server mounts.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from loregraph import __version__
from loregraph.errors import LoregraphError, NotFoundError
from loregraph.graph import AsyncGraph
from loregraph.mcp.tools import add_read_tools, add_write_tools

INSTRUCTIONS = (
    "loregraph is a knowledge graph of documents and memories. Look things up with "
    "`search` (or `ask` for a cited answer, `context` for passages to quote); explore with "
    "`entity`, `relations`, `neighbors` and `path`; keep what you learn with `remember` "
    "and remove a wrong memory with `forget`. Dates are ISO (2026-01-31); `as_of` shows "
    "the graph as it was then."
)
LISTED_ENTITIES = 100
"""Entities listed by the ``loregraph://entities`` resource (most mentioned first)."""


def build_server(graph: AsyncGraph, *, read_only: bool = False) -> MCPServer:
    """The MCP server over ``graph`` (opened by the caller, who also closes it)."""
    server: MCPServer = MCPServer(
        "loregraph",
        title="loregraph knowledge graph",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    add_read_tools(server, graph)
    if not read_only:
        add_write_tools(server, graph)
    add_entity_resources(server, graph)
    return server


def add_entity_resources(server: MCPServer, graph: AsyncGraph) -> None:
    """The entity list and each entity as resources."""

    @server.resource(
        "loregraph://entities",
        name="entities",
        description=f"The {LISTED_ENTITIES} most mentioned entities: name, type, mentions.",
        mime_type="application/json",
    )
    async def entities() -> dict[str, Any]:
        try:
            listed = await graph.entities(limit=LISTED_ENTITIES)
        except LoregraphError as exc:
            raise ResourceError(str(exc)) from exc
        return {
            "entities": [
                {"name": e.name, "type": e.type, "mentions": e.mention_count} for e in listed
            ]
        }

    @server.resource(
        "loregraph://entity/{name}",
        name="entity",
        description="An entity with its aliases, description and relations with evidence.",
        mime_type="application/json",
    )
    async def entity(name: str) -> dict[str, Any]:
        try:
            return (await graph.entity(name)).to_dict()
        except NotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        except LoregraphError as exc:
            raise ResourceError(str(exc)) from exc


async def serve_stdio(graph: AsyncGraph, *, read_only: bool = False) -> None:
    """Serve ``graph`` over standard input and output until the client closes them."""
    logging.getLogger("mcp").setLevel(logging.WARNING)
    await build_server(graph, read_only=read_only).run_stdio_async()

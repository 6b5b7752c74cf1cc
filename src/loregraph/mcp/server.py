"""The MCP server: loregraph's tools and entities for an agent, over stdio or HTTP.

:func:`build_server` makes a :class:`ToolServer` (the official SDK's
:class:`~mcp.server.mcpserver.MCPServer`) around an opened
:class:`~loregraph.graph.AsyncGraph`: the tools of :mod:`loregraph.mcp.tools` and
:mod:`loregraph.mcp.graph_tools`, those of :mod:`loregraph.mcp.write_tools` unless it is
read-only (a reader's tool set), and the entities as resources (``loregraph://entities``,
the most mentioned, and ``loregraph://entity/{name}``, one with its relations).
:func:`serve_stdio` runs it on standard input and output;
``MCPServer.streamable_http_app()`` gives the ASGI app the HTTP server mounts. Every tool
result is capped in size and refused arguments are told in one line
(:mod:`loregraph.mcp.shaping`).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import ValidationError

from loregraph import AsyncGraph, ConfigError, LoregraphError, NotFoundError, __version__
from loregraph.mcp.acting import engine
from loregraph.mcp.graph_tools import add_graph_tools
from loregraph.mcp.shaping import LEAST_CHARS, RESULT_CHARS, as_text, capped, refusal
from loregraph.mcp.tools import add_memories_tool, add_question_tools, add_search_tool
from loregraph.mcp.write_tools import add_write_tools

INSTRUCTIONS = (
    "loregraph is a knowledge graph of documents and memories. Look things up with "
    "`search` (or `ask` for a cited answer, `context` for passages to quote); explore with "
    "`entity`, `history`, `relations`, `neighbors` and `path`; keep what you learn with "
    "`remember` and remove a wrong memory with `forget` (offered to callers who may write). "
    "Dates are ISO (2026-01-31) or phrases ('last month'); `as_of` shows the graph as it was "
    "then. A result too long for the server's cap ends with a `cut` note saying what was left "
    "out."
)
LISTED_ENTITIES = 100
"""Entities listed by the ``loregraph://entities`` resource (most mentioned first)."""


class ToolServer(MCPServer):
    """The SDK's server with loregraph's shaping of every tool call: refused arguments
    as one line each (:func:`~loregraph.mcp.shaping.refusal`) and results cut to
    ``result_chars`` characters (:func:`~loregraph.mcp.shaping.capped`)."""

    def __init__(self, *, result_chars: int = RESULT_CHARS) -> None:
        if result_chars < LEAST_CHARS:
            raise ConfigError(f"the result cap must be at least {LEAST_CHARS} characters")
        super().__init__(
            "loregraph",
            title="loregraph knowledge graph",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self.result_chars = result_chars

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """The tool's result, capped; its refused arguments as a one-line tool error."""
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"{name}: {refusal(exc.__cause__)}") from None
            raise
        if not isinstance(result, CallToolResult) or not isinstance(
            result.structured_content, dict
        ):
            return result
        shaped = capped(result.structured_content, self.result_chars)
        if shaped is result.structured_content:
            return result
        text = TextContent(type="text", text=as_text(shaped))
        return CallToolResult(content=[text], structured_content=shaped)


def build_server(
    graph: AsyncGraph, *, read_only: bool = False, result_chars: int = RESULT_CHARS
) -> MCPServer:
    """The MCP server over ``graph`` (opened by the caller, who also closes it): without
    the tools that write when ``read_only``; each tool result capped at ``result_chars``
    characters of JSON."""
    server = ToolServer(result_chars=result_chars)
    for add in (add_graph_tools, add_memories_tool, add_search_tool, add_question_tools):
        add(server, graph)
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
            listed = await engine(graph).explore.entities(limit=LISTED_ENTITIES)
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
            return (await engine(graph).explore.entity(name)).to_dict()
        except NotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        except LoregraphError as exc:
            raise ResourceError(str(exc)) from exc


async def serve_stdio(
    graph: AsyncGraph, *, read_only: bool = False, result_chars: int = RESULT_CHARS
) -> None:
    """Serve ``graph`` over standard input and output until the client closes them."""
    logging.getLogger("mcp").setLevel(logging.WARNING)
    await build_server(graph, read_only=read_only, result_chars=result_chars).run_stdio_async()

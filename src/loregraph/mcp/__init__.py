"""The MCP face: loregraph's tools and entities for agents (the official MCP SDK)."""

from loregraph.mcp.server import build_server, serve_stdio

__all__ = ["build_server", "serve_stdio"]

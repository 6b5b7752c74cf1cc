"""Who an MCP request acts for: the principal of the HTTP request it came in (over stdio,
nobody: the user's own process is the store's operator).

The MCP SDK calls a tool inside the request's context, so the HTTP face
(:mod:`loregraph.server.mcp_http`) sets the principal for the call with :func:`serving`,
and each tool asks :func:`engine` for the engine acting for it. This is the only place
the principal travels with the request instead of as an argument: the SDK gives tools no
request object to carry it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from loregraph import AsyncGraph, Principal

_PRINCIPAL: ContextVar[Principal | None] = ContextVar("loregraph_mcp_principal", default=None)


@contextmanager
def serving(principal: Principal) -> Iterator[None]:
    """Run the MCP calls inside the block for ``principal``."""
    token = _PRINCIPAL.set(principal)
    try:
        yield
    finally:
        _PRINCIPAL.reset(token)


def engine(graph: AsyncGraph) -> AsyncGraph:
    """``graph`` acting for the request's principal (``graph`` itself over stdio)."""
    principal = _PRINCIPAL.get()
    return graph if principal is None else graph.acting_as(principal)

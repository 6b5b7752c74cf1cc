"""The MCP tools that write: ``remember`` and ``forget`` (left out of the read-only tool
set a reader is offered)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from loregraph import AsyncGraph
from loregraph.mcp.acting import engine
from loregraph.mcp.tools import DELETE, WRITE, Result, as_time, reported


def add_write_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``remember`` and ``forget``."""

    @server.tool(
        annotations=WRITE,
        description="Remember something: a fact, a decision, an event, in one or a few "
        "sentences. It is searchable as soon as this returns and linked to the entities it "
        "names. A newer fact that contradicts an older one ends it; the older one stays "
        "as history.",
    )
    @reported
    async def remember(
        text: Annotated[str, Field(description="What to remember, in plain sentences.")],
        at: Annotated[
            str | None,
            Field(
                description="When it happened: an ISO date or time, or a phrase such as "
                "'yesterday' (default now); a time after now needs `planned`."
            ),
        ] = None,
        planned: Annotated[
            bool,
            Field(description="A plan: `at` may be after now; its facts hold from then on."),
        ] = False,
        tags: Annotated[list[str] | None, Field(description="Tags to find it by.")] = None,
        source: Annotated[
            str | None, Field(description="Where it comes from (a user, a chat...).")
        ] = None,
        visibility: Annotated[
            Literal["public", "private", "personal"] | None,
            Field(
                description="Who may read it: public (default), private (the scope's "
                "writers) or personal (only its owner)."
            ),
        ] = None,
        owner: Annotated[
            str | None,
            Field(description="Whose it is (a personal memory's default: the caller)."),
        ] = None,
    ) -> Result:
        memory = await engine(graph).memories.remember(
            text,
            at=as_time(at, "at"),
            tags=tags or (),
            source=source,
            visibility=visibility,
            owner=owner,
            planned=planned,
        )
        return memory.to_dict()

    @server.tool(
        annotations=DELETE,
        description="Forget a memory by its id (from `remember` or `memories`): removes it "
        "and exactly what only it supported.",
    )
    @reported
    async def forget(
        memory_id: Annotated[str, Field(description="The memory's id.")],
    ) -> Result:
        return (await engine(graph).memories.forget(memory_id)).to_dict()

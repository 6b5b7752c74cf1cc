"""The MCP tools that walk the graph: ``entity``, ``history``, ``relations``,
``neighbors``, ``path``, ``suggest`` and ``passage``, and for code ``explore`` and
``impact`` (all read-only)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from loregraph import AsyncGraph
from loregraph.mcp.acting import engine
from loregraph.mcp.tools import (
    READ,
    AsOf,
    KnownAt,
    Limit,
    Name,
    Result,
    as_time,
    reported,
    when,
)


def add_graph_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``entity``, ``history``, ``relations``, ``neighbors``, ``path``, ``suggest`` and
    ``passage``."""
    add_entity_tools(server, graph)
    add_walk_tools(server, graph)


def add_entity_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``entity``, ``history`` and ``passage``: one entity, or one passage, by name or id."""

    @server.tool(
        annotations=READ,
        description="An entity: its type, description, aliases and its relations with "
        "their evidence sentences, heaviest first (as of a date when given).",
    )
    @reported
    async def entity(
        name: Name, as_of: AsOf = None, limit: Limit = 50, known_at: KnownAt = None
    ) -> Result:
        found = await engine(graph).explore.entity(name, limit=limit, **when(as_of, known_at))
        return found.to_dict()

    @server.tool(
        annotations=READ,
        description="The timeline of the facts about an entity (only those joining it to "
        "`other` when given): every relation, current or ended, in the order they started, "
        "with when each held, its evidence, and the memory or document that ended it. Use it "
        "for 'where did X work before?' or 'when did that change?'.",
    )
    @reported
    async def history(
        name: Name,
        other: Annotated[
            str | None, Field(description="Only the facts joining the entity to this one.")
        ] = None,
        types: Annotated[
            list[str] | None, Field(description="Only facts of these types (e.g. WORKS_FOR).")
        ] = None,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> Result:
        found = await engine(graph).explore.history(
            name,
            other,
            type=types or None,
            **when(as_of, known_at),
        )
        return found.to_dict()

    @server.tool(
        annotations=READ,
        description="One stored passage by its id (a citation's or a context passage's "
        "`chunk_id`): its text, its document's id and title, and where it is in it.",
    )
    @reported
    async def passage(
        chunk_id: Annotated[str, Field(description="The passage's id (chunk_id).")],
    ) -> Result:
        return (await engine(graph).explore.passage(chunk_id)).to_dict()


def add_walk_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``relations``, ``neighbors``, ``path`` and ``suggest``: what joins entities and documents."""

    @server.tool(
        annotations=READ,
        description="The relations of an entity that hold now (or as of a date), outgoing, "
        "incoming or both, optionally of some types (e.g. WORKS_FOR), each with its "
        "evidence.",
    )
    @reported
    async def relations(
        name: Name,
        direction: Annotated[
            Literal["both", "out", "in"], Field(description="Which way the relations point.")
        ] = "both",
        types: Annotated[list[str] | None, Field(description="Only these relation types.")] = None,
        as_of: AsOf = None,
        limit: Limit = 100,
        known_at: KnownAt = None,
    ) -> Result:
        found = await engine(graph).explore.relations(
            name,
            direction=direction,
            type=types,
            **when(as_of, known_at),
            limit=limit,
        )
        return found.to_dict()

    @server.tool(
        annotations=READ,
        description="The entities within a number of relations (hops) of an entity, each "
        "with its distance, and the relations joining them.",
    )
    @reported
    async def neighbors(
        name: Name,
        hops: Annotated[int, Field(ge=1, le=4, description="How many relations away.")] = 1,
        as_of: AsOf = None,
        limit: Limit = 100,
        known_at: KnownAt = None,
    ) -> Result:
        found = await engine(graph).explore.neighbors(
            name,
            hops=hops,
            **when(as_of, known_at),
            limit=limit,
        )
        return found.to_dict()

    @server.tool(
        annotations=READ,
        description="How two entities are connected: the shortest chains of relations "
        "between them, with each relation's type and evidence. An empty list means no "
        "connection within max_hops.",
    )
    @reported
    async def path(
        source: Name,
        target: Name,
        max_hops: Annotated[int, Field(ge=1, le=6, description="Longest chain.")] = 3,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> Result:
        paths = await engine(graph).explore.path(
            source,
            target,
            max_hops=max_hops,
            **when(as_of, known_at),
        )
        return {"paths": [p.to_dict() for p in paths]}

    add_code_tools(server, graph)
    add_suggest_tool(server, graph)


def add_code_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``explore`` (the code context for a question) and ``impact`` (what depends on an
    entity, transitively)."""

    @server.tool(
        annotations=READ,
        description="Start here for a question about an indexed code repository ('what "
        "calls Cart.total?', 'how are prices computed?', 'where is the retry logic?'). "
        "Returns, in one call, a ready context: the functions and classes the question names "
        "or the best matching code shows, each at path:first-last with its code, signature, "
        "container, callers and callees (a call linked by name only says so), then the "
        "documents and memories beside them (notes, fixes, decisions). `text` is the whole "
        "as markdown to read; `symbols` and `notes` hold the same as data. Write code names "
        "as they are spelled (Cart.total, parse_args(), HTTPAdapter) so they are looked up "
        "by name. Then use `impact` on a symbol before changing it.",
    )
    @reported
    async def explore(
        question: Annotated[str, Field(description="The question about the code, in plain words.")],
        limit: Annotated[
            int, Field(ge=1, le=20, description="How many functions and classes at most.")
        ] = 5,
        budget: Annotated[
            int, Field(ge=100, le=100_000, description="Token budget of `text`.")
        ] = 2000,
        as_of: AsOf = None,
    ) -> Result:
        found = await engine(graph).explore.code(
            question, limit=limit, budget=budget, as_of=as_time(as_of)
        )
        return found.to_dict()

    add_impact_tool(server, graph)


def add_impact_tool(server: MCPServer, graph: AsyncGraph) -> None:
    """``impact``: what depends on an entity, transitively."""

    @server.tool(
        annotations=READ,
        description="What depends on an entity, transitively, nearest first: the callers "
        "of a function and theirs, the files that import a module, the subclasses of a "
        "class, the projects that depend on a library. Use it before changing code to see "
        "what the change may break; each dependent says which relation reached it.",
    )
    @reported
    async def impact(
        name: Name,
        hops: Annotated[int, Field(ge=1, le=10, description="How many steps.")] = 3,
        limit: Limit = 100,
    ) -> Result:
        found = await engine(graph).explore.impact(name, hops=hops, limit=limit)
        return found.to_dict()


def add_suggest_tool(server: MCPServer, graph: AsyncGraph) -> None:
    """``suggest``: documents related to a document."""

    @server.tool(
        annotations=READ,
        description="Connections nobody asked about: the other documents and memories "
        "about the same people, places and periods as a document, best first, each with "
        "the entities they share (rarer ones weigh more) and a reason such as 'also about "
        "Mina Harker and Whitby'. Use it to offer a related story.",
    )
    @reported
    async def suggest(
        document: Annotated[str, Field(description="The document: its id, source or exact title.")],
        limit: Annotated[int, Field(ge=1, le=100, description="How many at most.")] = 5,
    ) -> Result:
        found = await engine(graph).explore.suggest(document, limit=limit)
        return {"suggestions": [s.to_dict() for s in found]}

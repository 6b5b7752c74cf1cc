"""The tools the MCP server offers an agent, each a thin call of the async engine.

Every tool takes JSON arguments described for the agent (what it does, when to use it,
what comes back) and returns the same shapes as the CLI's ``--json`` (each result's
``to_dict()``). A loregraph error (an unknown entity, a blank question, an empty store...)
becomes a tool error carrying its one-line message, so the agent can read and act on it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import wraps
from typing import Annotated, Any, Literal, ParamSpec

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from loregraph.errors import InputError, LoregraphError
from loregraph.graph import AsyncGraph
from loregraph.text.dates import user_time

P = ParamSpec("P")
Result = dict[str, Any]

Name = Annotated[str, Field(description="An entity's name or alias (the closest name is used).")]
AsOf = Annotated[
    str | None,
    Field(
        description="ISO date or time (2026-01-31, 2026-01-31T09:00+02:00; UTC when no "
        "offset) to see the graph as it was then; omit for now."
    ),
]
When = Annotated[
    str | None, Field(description="ISO date or time (2026-01-31, 2026-01-31T09:00+02:00).")
]
Limit = Annotated[int, Field(ge=1, le=500, description="How many results at most.")]
OnlyArg = Annotated[
    Literal["memories", "documents"] | None,
    Field(description="Look only in the agent's memories, or only in the documents."),
]

PersonaArg = Annotated[
    str | None,
    Field(
        description="Ask through a persona: biographer, friend, colleague, family (or one "
        "of the server's persona directory); omit for none."
    ),
]
HistoryArg = Annotated[
    list[str] | None,
    Field(
        description="The conversation's earlier turns, oldest first, so that 'her' or "
        "'that place' in the question can be resolved."
    ),
]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DELETE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def as_time(value: str | None, what: str = "as_of") -> datetime | None:
    """A time from a tool argument, read as every face reads one (ISO 8601, naive: UTC, or
    a phrase such as "last month"), or ``None``."""
    if value is None or not value.strip():
        return None
    try:
        return user_time(value, end_of_day=what == "until")
    except ValueError as exc:
        raise InputError(f"{what}: {exc}") from None


def reported(fn: Callable[P, Awaitable[Result]]) -> Callable[P, Awaitable[Result]]:
    """Turn a loregraph error of ``fn`` into a tool error with its message."""

    @wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> Result:
        try:
            return await fn(*args, **kwargs)
        except LoregraphError as exc:
            raise ToolError(str(exc)) from exc

    return call


def add_read_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``search``, ``ask`` and ``context``, then those of :func:`add_graph_tools` and
    :func:`add_memories_tool`."""
    add_graph_tools(server, graph)
    add_memories_tool(server, graph)
    add_search_tool(server, graph)
    add_question_tools(server, graph)


def add_search_tool(server: MCPServer, graph: AsyncGraph) -> None:
    """``search``."""

    @server.tool(
        annotations=READ,
        description="Find what the knowledge graph holds about a query: ranked documents "
        "(default), entities, relations, or the agent's memories (each memory with the "
        "entities it mentions). Use it to look something up before answering; use `ask` "
        "for a written answer with citations.",
    )
    @reported
    async def search(
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        what: Annotated[
            Literal["documents", "entities", "relations", "memories"],
            Field(description="What to return."),
        ] = "documents",
        limit: Limit = 10,
    ) -> Result:
        if what == "memories":
            hits = await graph.search_memories(query, limit=limit)
            return {"hits": [h.to_dict() for h in hits]}
        found = await graph.search(query, kind=what, limit=limit)
        return {"hits": [h.to_dict() for h in found]}


def add_question_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``ask`` and ``context`` (each through a persona, with conversation turns)."""

    @server.tool(
        annotations=READ,
        description="Answer a question from the documents and memories, with numbered "
        "citations of the passages it rests on. `found` is false when nothing stored is "
        "relevant (then say so rather than guess).",
    )
    @reported
    async def ask(
        question: Annotated[str, Field(description="The question, in plain words.")],
        preset: Annotated[
            str | None, Field(description="Retrieval preset (default: the server's).")
        ] = None,
        as_of: AsOf = None,
        only: OnlyArg = None,
        persona: PersonaArg = None,
        history: HistoryArg = None,
    ) -> Result:
        answer = await graph.ask(
            question,
            preset=preset,
            as_of=as_time(as_of),
            only=only,
            persona=persona,
            history=history or (),
        )
        return answer.to_dict()

    @server.tool(
        annotations=READ,
        description="The graph-augmented context for a question, to put in your own "
        "prompt: the most relevant passages with their sources, then the entities and "
        "relations that add to them, within a token budget.",
    )
    @reported
    async def context(
        question: Annotated[str, Field(description="The question the context is for.")],
        budget: Annotated[
            int | None, Field(ge=100, le=100_000, description="Token budget (default 2000).")
        ] = None,
        format: Annotated[
            Literal["markdown", "xml", "json"], Field(description="How it is written.")
        ] = "markdown",
        as_of: AsOf = None,
        only: OnlyArg = None,
        persona: PersonaArg = None,
        history: HistoryArg = None,
    ) -> Result:
        text = await graph.context(
            question,
            format=format,
            budget=budget,
            as_of=as_time(as_of),
            only=only,
            persona=persona,
            history=history or (),
        )
        return {"context": text}


def add_graph_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``entity``, ``relations``, ``neighbors``, ``path`` and ``suggest``."""

    @server.tool(
        annotations=READ,
        description="An entity: its type, description, aliases and its relations with "
        "their evidence sentences, heaviest first.",
    )
    @reported
    async def entity(name: Name, limit: Limit = 50) -> Result:
        return (await graph.entity(name, limit=limit)).to_dict()

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
    ) -> Result:
        found = await graph.relations(
            name, direction=direction, type=types, as_of=as_time(as_of), limit=limit
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
    ) -> Result:
        found = await graph.neighbors(name, hops=hops, as_of=as_time(as_of), limit=limit)
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
    ) -> Result:
        paths = await graph.path(source, target, max_hops=max_hops, as_of=as_time(as_of))
        return {"paths": [p.to_dict() for p in paths]}

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
        found = await graph.suggest(document, limit=limit)
        return {"suggestions": [s.to_dict() for s in found]}


def add_memories_tool(server: MCPServer, graph: AsyncGraph) -> None:
    """``memories``: the stored memories, listed and filtered."""

    @server.tool(
        annotations=READ,
        description="The stored memories, oldest first: by tag, source, time range, or "
        "the entity they mention. Each has the id `forget` takes.",
    )
    @reported
    async def memories(
        about: Annotated[str | None, Field(description="Only those mentioning it.")] = None,
        tags: Annotated[list[str] | None, Field(description="Only those with all.")] = None,
        since: When = None,
        until: When = None,
        limit: Limit = 50,
    ) -> Result:
        found = await graph.memories(
            about=about,
            tags=tags or (),
            since=as_time(since, "since"),
            until=as_time(until, "until"),
            limit=limit,
        )
        return {"memories": [m.to_dict() for m in found]}


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
            Field(description="When it happened, as an ISO date or time (default now)."),
        ] = None,
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
        memory = await graph.remember(
            text,
            at=as_time(at, "at"),
            tags=tags or (),
            source=source,
            visibility=visibility,
            owner=owner,
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
        return (await graph.forget(memory_id)).to_dict()

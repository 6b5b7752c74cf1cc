"""The tools the MCP server offers an agent, each a thin call of the async engine: the
arguments they share, and the question tools (``search``, ``ask``, ``context``,
``memories``); those that walk the graph are in :mod:`loregraph.mcp.graph_tools`, those
that write in :mod:`loregraph.mcp.write_tools`.

Every tool takes JSON arguments described for the agent (what it does, when to use it,
what comes back) and returns the same shapes as the CLI's ``--json`` (each result's
``to_dict()``). A loregraph error (an unknown entity, a blank question, an empty store...)
becomes a tool error carrying its one-line message, so the agent can read and act on it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import wraps
from typing import Annotated, Any, Literal, ParamSpec, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from loregraph import PRESETS, AsyncGraph, InputError, LoregraphError, user_time
from loregraph.mcp.acting import engine

P = ParamSpec("P")
Result = dict[str, Any]

Name = Annotated[str, Field(description="An entity's name or alias (the closest name is used).")]
AsOf = Annotated[
    str | None,
    Field(
        description="A date or time (2026-01-31, 2026-01-31T09:00+02:00, UTC when no offset; "
        "or a phrase such as 'last month') to see the world as it was then; omit for now. "
        "Content with no stated date (a book) is timeless: seen at any date."
    ),
]
ShowEnded = Annotated[
    bool | None,
    Field(
        description="Show facts that have ended, marked as ended ('until 2026-02-10; "
        "replaced by Hono'), instead of leaving them out (default: the server's setting)."
    ),
]
KnownAt = Annotated[
    str | None,
    Field(
        description="A date or time: see only what the store knew then (stored by then; "
        "facts ended later still current); omit for all it knows."
    ),
]
When = Annotated[
    str | None,
    Field(description="A date or time (2026-01-31, 2026-01-31T09:00+02:00, or 'last week')."),
]
Limit = Annotated[int, Field(ge=1, le=500, description="How many results at most.")]
OnlyArg = Annotated[
    Literal["memories", "documents"] | None,
    Field(description="Look only in the agent's memories, or only in the documents."),
]

HistoryArg = Annotated[
    list[str] | None,
    Field(
        description="The conversation's earlier turns, oldest first, so that 'her' or "
        "'that place' in the question can be resolved."
    ),
]

PERSONA = "Ask through a persona (how it reads the graph and answers); omit for none."


def choice(names: Sequence[str], description: str) -> Any:
    """An optional text argument (default ``None``) whose JSON schema lists the allowed
    ``names`` (an ``enum`` on its string form); the engine refuses any other value."""
    allowed = list(names)

    def offer(schema: dict[str, Any]) -> None:
        for branch in schema.get("anyOf", [schema]):
            if branch.get("type") == "string":
                branch["enum"] = allowed

    return Field(default=None, description=description, json_schema_extra=offer)


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


class Times(TypedDict):
    """The times a query looks at: world time (``as_of``) and store time (``known_at``)."""

    as_of: datetime | None
    known_at: datetime | None


def when(as_of: str | None, known_at: str | None) -> Times:
    """The times a query looks at, from the tool's ``as_of`` and ``known_at`` arguments
    (the keyword arguments the engine's queries take)."""
    return Times(as_of=as_time(as_of), known_at=as_time(known_at, "known_at"))


def reported(fn: Callable[P, Awaitable[Result]]) -> Callable[P, Awaitable[Result]]:
    """Turn a loregraph error of ``fn`` into a tool error with its message."""

    @wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> Result:
        try:
            return await fn(*args, **kwargs)
        except LoregraphError as exc:
            raise ToolError(str(exc)) from exc

    return call


def add_search_tool(server: MCPServer, graph: AsyncGraph) -> None:
    """``search``."""

    @server.tool(
        annotations=READ,
        description="Find what the knowledge graph holds about a query: ranked documents "
        "(default), entities, relations, or the agent's memories (each memory with the "
        "entities it mentions; with `as_of`, those that had happened by then). Hits are never "
        "withheld: `relevant` tells whether the store's best matches are about the query at "
        "all, and each hit has its own `relevance` (share of the query's terms it holds) and "
        "`relevant` flag. Use it to look something up before answering; use `ask` "
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
        as_of: AsOf = None,
        only: OnlyArg = None,
        known_at: KnownAt = None,
    ) -> Result:
        if what == "memories":
            if only == "documents":
                raise InputError("only='documents' leaves no memories to search; omit it")
            until = as_time(as_of)
            hits = await engine(graph).memories.search(query, limit=limit, until=until)
            return {"hits": [h.to_dict() for h in hits]}
        found = await engine(graph).search(
            query,
            kind=what,
            limit=limit,
            as_of=as_time(as_of),
            only=only,
            known_at=as_time(known_at, "known_at"),
        )
        return found.to_dict()


def add_question_tools(server: MCPServer, graph: AsyncGraph) -> None:
    """``ask`` and ``context`` (each through a persona, with conversation turns); the
    schema lists the retrieval presets and the personas (packaged and the server's)."""
    presets = sorted(PRESETS)
    personas = sorted(graph.persona_library().all())

    @server.tool(
        annotations=READ,
        description="Answer a question from the documents and memories, with numbered "
        "citations of the passages it rests on. `found` is false when nothing stored is "
        "relevant (then say so rather than guess).",
    )
    @reported
    async def ask(
        question: Annotated[str, Field(description="The question, in plain words.")],
        preset: str | None = choice(presets, "Retrieval preset (default: the server's)."),
        as_of: AsOf = None,
        only: OnlyArg = None,
        persona: str | None = choice(personas, PERSONA),
        history: HistoryArg = None,
        known_at: KnownAt = None,
        show_ended: ShowEnded = None,
    ) -> Result:
        answer = await engine(graph).ask(
            question,
            preset=preset,
            **when(as_of, known_at),
            show_ended=show_ended,
            only=only,
            persona=persona,
            history=history or (),
        )
        return answer.to_dict()

    @server.tool(
        annotations=READ,
        description="The graph-augmented context for a question, to put in your own "
        "prompt: the most relevant passages with their sources, then the entities and "
        "relations that add to them, within a token budget. With format json the "
        "context is a JSON object, not text.",
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
        persona: str | None = choice(personas, PERSONA),
        history: HistoryArg = None,
        known_at: KnownAt = None,
        show_ended: ShowEnded = None,
    ) -> Result:
        text = await engine(graph).context(
            question,
            format=format,
            budget=budget,
            **when(as_of, known_at),
            show_ended=show_ended,
            only=only,
            persona=persona,
            history=history or (),
        )
        return {"context": json.loads(text) if format == "json" else text}


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
        found = await engine(graph).memories.all(
            about=about,
            tags=tags or (),
            since=as_time(since, "since"),
            until=as_time(until, "until"),
            limit=limit,
        )
        return {"memories": [m.to_dict() for m in found]}

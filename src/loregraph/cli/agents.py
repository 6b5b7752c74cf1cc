"""``loregraph mcp``: the MCP server for agents, over standard input and output."""

from __future__ import annotations

import click

from loregraph import AsyncGraph, DependencyError
from loregraph.cli.options import number_option
from loregraph.cli.runner import Context, run_graph
from loregraph.cli.support import fail


@click.command("mcp")
@click.option(
    "--read-only",
    is_flag=True,
    help="Offer only the tools that read (no remember, no forget); the store is opened read-only.",
)
@number_option(
    "--max-result-chars",
    40_000,
    least=1_000,
    help="Cut a tool result longer than this many characters of JSON (it ends with a note "
    "saying what was cut).",
)
@click.pass_obj
def mcp_command(ctx: Context, read_only: bool, max_result_chars: int) -> None:
    """Serve the graph to an MCP client (an agent) over stdin/stdout.

    Tools: search, ask, context, entity, history, relations, neighbors, path, suggest,
    passage, memories, remember, forget; resources: loregraph://entities and
    loregraph://entity/{name}. A client starts it as a command, e.g. {"command":
    "loregraph", "args": ["--db", "/path/to/graph.db", "mcp"]}.
    Nothing but the protocol is written to stdout.
    """
    try:
        from loregraph.mcp import serve_stdio
    except ImportError as exc:
        fail(
            f"the MCP server needs the mcp extra ({exc.name} is missing): "
            "pip install 'loregraph[mcp]'",
            DependencyError.exit_code,
        )

    async def serve(graph: AsyncGraph) -> None:
        await graph.open()
        await serve_stdio(graph, read_only=read_only, result_chars=max_result_chars)

    run_graph(ctx, serve, must_exist=read_only, writes=not read_only)


COMMANDS = (mcp_command,)

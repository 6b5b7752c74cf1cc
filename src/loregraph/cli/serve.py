"""``loregraph serve``: the HTTP API (REST and server-sent events) on uvicorn.

This is the server's entry point: its options and the environment are read here, once,
into the objects the app factory takes (:class:`~loregraph.server.ServerConfig`, the
engine). Needs the ``server`` extra.
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from loregraph import AsyncGraph, DependencyError, LoregraphError, open_store
from loregraph.cli.options import number_option
from loregraph.cli.runner import Context, run_async, settings_for
from loregraph.cli.support import fail, fail_on

if TYPE_CHECKING:
    from loregraph.server.config import Mount

SERVER_HINT = "the HTTP server needs the server extra: pip install 'loregraph[server]'"
MB = 1024 * 1024


@click.command()
@click.option(
    "--host",
    envvar="LOREGRAPH_HOST",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (env LOREGRAPH_HOST).",
)
@click.option(
    "--port",
    envvar="LOREGRAPH_PORT",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (env LOREGRAPH_PORT).",
)
@click.option(
    "--no-auth",
    is_flag=True,
    default=False,
    help="Serve without API keys, as the local administrator (loopback hosts only).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    envvar="LOREGRAPH_ALLOWED_HOSTS",
    multiple=True,
    help="Another host name requests may call this server by, e.g. a proxy's (repeatable; "
    "default: the --host address and localhost, plus the machine's name and addresses off "
    "loopback; env LOREGRAPH_ALLOWED_HOSTS, separated by spaces).",
)
@click.option(
    "--allowed-origin",
    "--cors-origin",  # its earlier name
    "allowed_origins",
    envvar="LOREGRAPH_ALLOWED_ORIGINS",
    multiple=True,
    help="The origin of another web page that may call the API and change the store, "
    "with CORS, e.g. https://app.example.com (repeatable; default: none, only the "
    "server's own pages; env LOREGRAPH_ALLOWED_ORIGINS, separated by spaces).",
)
@number_option(
    "--max-body-mb", 10.0, least=0.001, help="Largest request body (uploads included), in MB."
)
@number_option(
    "--max-question-chars", 2000, least=1, help="Longest question or query, in characters."
)
@number_option(
    "--timeout", 120.0, least=0.001, help="Seconds a request (or a streamed answer) may take."
)
@number_option(
    "--send-timeout",
    30.0,
    least=0.001,
    help="Seconds an event stream waits for a client that stopped reading, then ends.",
)
@number_option(
    "--max-ingest-jobs",
    2,
    least=1,
    help="Ingest jobs running at once (one more is refused with 429).",
)
@click.option(
    "--ingest-root",
    "ingest_roots",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder whose files POST /ingest/paths may ingest (repeatable; default: none).",
)
@click.option(
    "--mcp/--no-mcp",
    "with_mcp",
    default=True,
    show_default=True,
    help="Serve the MCP tools for agents at /mcp (streamable HTTP; a key that may only "
    "read gets the tools that read).",
)
@click.option(
    "--log-format",
    envvar="LOREGRAPH_LOG_FORMAT",
    type=click.Choice(["auto", "json", "text"]),
    default="auto",
    show_default=True,
    help="Log lines on stderr: JSON, text, or auto (text on a terminal, else JSON); "
    "one line per request with its id (env LOREGRAPH_LOG_FORMAT).",
)
@click.option(
    "--log-level",
    envvar="LOREGRAPH_LOG_LEVEL",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default=None,
    help="Least severe records logged (default: info; warning with --quiet; "
    "env LOREGRAPH_LOG_LEVEL).",
)
@click.pass_obj
def serve(
    ctx: Context,
    /,
    host: str,
    port: int,
    no_auth: bool,
    with_mcp: bool,
    log_format: str,
    log_level: str | None,
    **limits: Any,
) -> None:
    """Serve the HTTP API: OpenAPI at /openapi.json, answers streamed as
    server-sent events, the graph explorer at /. Every request needs a key
    (loregraph keys create NAME) unless --no-auth is given on a loopback host."""
    try:
        import uvicorn

        from loregraph.explorer import explorer_mount
        from loregraph.server import Limits, ServerConfig, create_app
        from loregraph.server.auth import check_no_auth
        from loregraph.server.logs import choose_format, configure_logging
        from loregraph.server.origins import accepted_hosts
    except ImportError:
        fail(SERVER_HINT, DependencyError.exit_code)
    try:
        if no_auth:
            check_no_auth(host)
        machine = _machine_names(host)
        config = ServerConfig(
            auth=not no_auth,
            host=host,
            allowed_hosts=(*limits.pop("allowed_hosts"), *machine),
            allowed_origins=tuple(limits.pop("allowed_origins")),
            ingest_roots=tuple(Path(root) for root in limits.pop("ingest_roots")),
            limits=Limits(
                max_body_bytes=int(limits["max_body_mb"] * MB),
                max_question_chars=limits["max_question_chars"],
                request_timeout=limits["timeout"],
                send_timeout=limits["send_timeout"],
                max_ingest_jobs=limits["max_ingest_jobs"],
            ),
            mounts=(explorer_mount(),),
        )
    except LoregraphError as exc:
        fail_on(exc)
    settings = settings_for(ctx)
    level = log_level or ("warning" if ctx.quiet else "info")
    configure_logging(choose_format(log_format), level)

    async def main() -> None:
        store = open_store(ctx.location)
        graph = AsyncGraph(store, settings=settings)
        try:
            await graph.open()
            if machine and not ctx.quiet:
                names = ", ".join(sorted(accepted_hosts(host, config.allowed_hosts)))
                click.echo(f"answering to {names} (others: --allowed-host)", err=True)
            if config.auth and not await graph.access.keys():
                click.echo(
                    "no API keys yet: create one with `loregraph keys create NAME`", err=True
                )
            extra = (_mcp(graph),) if with_mcp else ()
            mounts = (*config.mounts, *extra)
            metrics = _metrics(graph)
            app = create_app(graph, dataclasses.replace(config, mounts=mounts, metrics=metrics))
            # uvicorn's records go to the handler above; each request is logged once, by
            # the app (loregraph.http), so uvicorn's own access log is off
            server = uvicorn.Server(
                uvicorn.Config(
                    app, host=host, port=port, log_level=level, log_config=None, access_log=False
                )
            )
            await server.serve()
        finally:
            await graph.close()

    run_async(main(), kept="documents ingested")


def _machine_names(host: str) -> tuple[str, ...]:
    """The names and addresses this machine is reached by, when the server listens on an
    address other than loopback: its host name, the addresses it resolves to (from
    /etc/hosts or the resolver) and the address of its default route. Other names need
    --allowed-host."""
    from loregraph.server.auth import is_loopback

    if is_loopback(host):
        return ()
    name = socket.gethostname()
    names = {name}
    with contextlib.suppress(OSError):  # a name the resolver does not know
        names.update(str(info[4][0]) for info in socket.getaddrinfo(name, None))
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        # connecting a UDP socket sends nothing: the kernel only picks the local address
        # of the route to a documentation address (RFC 5737); no route, no address
        udp.connect(("192.0.2.1", 9))
        names.add(str(udp.getsockname()[0]))
    return tuple(sorted(names))


def _metrics(graph: AsyncGraph) -> Any:
    """Prometheus metrics the engine reports to (``None`` without ``prometheus-client``)."""
    try:
        from loregraph import Metrics

        metrics = Metrics(
            usage=lambda: _usage(graph), breaker=lambda: _breaker(graph), graph=graph.graph_status
        )
    except ImportError:
        return None
    graph.observers.observers.append(metrics)
    return metrics


def _usage(graph: AsyncGraph) -> dict[str, Any]:
    return graph.usage.stages() if graph.usage is not None else {}


def _breaker(graph: AsyncGraph) -> str | None:
    from loregraph import circuit_state

    return circuit_state(graph.llm)


def _mcp(graph: AsyncGraph) -> Mount:
    """The MCP endpoint's mount (the mcp package comes with the server extra)."""
    try:
        from loregraph.server.mcp_http import mcp_mount
    except ImportError:
        fail("--mcp needs the mcp package: " + SERVER_HINT, DependencyError.exit_code)
    return mcp_mount(graph)


COMMANDS = (serve,)

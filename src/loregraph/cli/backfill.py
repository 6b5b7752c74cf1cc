"""``loregraph backfill``: the stored documents extracted again with the current extractor."""

from __future__ import annotations

import re
from typing import Any

import click
from rich.console import Console

from loregraph import AsyncGraph
from loregraph.cli.options import json_option
from loregraph.cli.runner import Context, echo_report, progress_for, run_graph, showing

_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:/\s*(s|sec|second|min|minute|h|hour))?\s*$")
_PER = {"s": 1.0, "sec": 1.0, "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0,
        "hour": 3600.0}  # fmt: skip


class RateParam(click.ParamType[float, Any]):
    """Documents per second: ``2``, ``2/s``, ``30/min`` or ``100/h`` (above 0)."""

    name = "N/s"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        """The rate in documents per second."""
        if isinstance(value, int | float):
            return float(value)
        match = _RATE.match(str(value))
        rate = float(match.group(1)) / _PER[match.group(2) or "s"] if match else 0.0
        if not rate > 0:
            self.fail(f"{value!r} is not a rate above 0 (e.g. 2, 2/s, 30/min, 100/h)", param, ctx)
        return rate


@click.command()
@click.option(
    "--rate",
    type=RateParam(),
    default=None,
    help="At most this many documents per second (2, 2/s, 30/min, 100/h; default: no limit).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Process at most this many documents in this run (the rest in a later one).",
)
@json_option("the report")
@click.pass_obj
def backfill(ctx: Context, rate: float | None, limit: int | None, as_json: bool) -> None:
    """Extract the stored documents again with the current extractor (for example after
    configuring an LLM with the --llm-* options or LOREGRAPH_LLM_* variables).

    Each document's new graph replaces its old one in one write. Documents the current
    extractor already made are skipped, so running it again does nothing and an
    interrupted run resumes; a document that fails is listed and left as it was.
    """
    console = Console(stderr=True)

    async def work(graph: AsyncGraph) -> Any:
        progress = progress_for(console, ctx.quiet or as_json, graph.usage)
        with showing(progress):
            return await graph.backfill(rate=rate, limit=limit, progress=progress)

    report = run_graph(ctx, work, writes=True)
    echo_report(report, as_json)


COMMANDS = (backfill,)

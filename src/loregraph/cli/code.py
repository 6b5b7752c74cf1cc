"""``code``: what a coding agent needs about a question on an indexed repository, in one
piece — the functions and classes it names or its best passages show, each at
``path:first-last`` with its code, callers and callees, then the notes beside them."""

from __future__ import annotations

import click

from loregraph.cli.options import json_option
from loregraph.cli.runner import Context, echo_json, run_graph


@click.command()
@click.argument("question")
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(1, 20),
    default=5,
    show_default=True,
    help="At most this many functions and classes.",
)
@click.option(
    "--budget",
    type=click.IntRange(100, 100_000),
    default=2000,
    show_default=True,
    help="Token budget of the context.",
)
@json_option("the symbols, the notes and the context")
@click.pass_obj
def code(ctx: Context, question: str, limit: int, budget: int, as_json: bool) -> None:
    """Show the code context for QUESTION about an indexed repository: the functions and
    classes it names (write them as spelled: Cart.total, parse_args()) or its best
    passages show, each at path:first-last with its code, container, callers and callees,
    then the documents and memories beside them."""
    found = run_graph(
        ctx,
        lambda g: g.explore.code(question, limit=limit, budget=budget, as_of=ctx.as_of),
    )
    if as_json:
        echo_json(found.to_dict())
    else:
        click.echo(found.text)


COMMANDS = (code,)

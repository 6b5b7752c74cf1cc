"""``loregraph suggest``: the connections of a document nobody asked about."""

from __future__ import annotations

import click

from loregraph.cli.options import json_option, limit_option
from loregraph.cli.runner import Context, echo_items, run_graph


@click.command()
@click.option(
    "--document", "document", required=True, help="The document: its id, source or exact title."
)
@limit_option(5, "-n", "How many documents at most.")
@json_option()
@click.pass_obj
def suggest(ctx: Context, document: str, limit: int, as_json: bool) -> None:
    """Other documents about the same people, places and periods as a document, best
    first, each with what connects them ("also about Mina Harker and Whitby"). Rarer
    people and places count more than those every document names."""
    found = run_graph(ctx, lambda g: g.explore.suggest(document, limit=limit))
    echo_items(
        found,
        as_json,
        lambda item: f"{item.score:6.2f}  {item.title}  ({item.document_id}): {item.reason}",
        "no other document shares a person, place or thing with it",
    )


COMMANDS = (suggest,)

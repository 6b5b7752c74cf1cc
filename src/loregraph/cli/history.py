"""``loregraph history NAME [OTHER]``: the timeline of the facts about an entity."""

from __future__ import annotations

from datetime import datetime

import click

from loregraph import Fact, History
from loregraph.cli.options import json_option
from loregraph.cli.runner import Context, echo_json, run_graph


@click.command()
@click.argument("name")
@click.argument("other", required=False)
@click.option("--type", "types", multiple=True, help="Only facts of this type (repeatable).")
@json_option("the timeline")
@click.pass_obj
def history(
    ctx: Context, name: str, other: str | None, types: tuple[str, ...], as_json: bool
) -> None:
    """Show the timeline of the facts about entity NAME (only those joining it to OTHER when
    given): when each held, current or ended, and the memory or document that ended it."""
    found = run_graph(
        ctx, lambda g: g.explore.history(name, other, type=list(types) or None, **ctx.when())
    )
    if as_json:
        echo_json(found.to_dict())
    else:
        show_history(found)


def show_history(found: History) -> None:
    """The timeline as text, one fact per paragraph."""
    between = f" and {found.other.name}" if found.other is not None else ""
    click.echo(f"{found.entity.name}{between}: {len(found.facts)} fact(s) over time")
    for fact in found.facts:
        _show_fact(fact)


def _show_fact(fact: Fact) -> None:
    rel = fact.relation
    span = f"{moment(rel.valid_at)} → {moment(rel.invalid_at) if rel.invalid_at else 'now'}"
    state = "current" if fact.current else "ended"
    click.echo(f"  {span}  {fact.source} -[{rel.type}]-> {fact.target}  ({state})")
    for piece in rel.evidence[:2]:
        if piece.sentence.strip():
            click.echo(f"      “{' '.join(piece.sentence.split())[:300]}”")
    if fact.ending is not None:
        end = fact.ending
        what = end.kind or "document"
        click.echo(f"      ended by {what} {end.document_id} of {moment(end.at)}")
        if end.sentence:
            click.echo(f"        “{end.sentence[:300]}”")
    elif rel.expired_at is not None:
        click.echo(f"      retired {moment(rel.expired_at)}")


def moment(value: datetime | None) -> str:
    """A time as a date when it is midnight UTC, else to the minute; '?' when unknown."""
    if value is None:
        return "?"
    if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
        return value.date().isoformat()
    return value.isoformat(timespec="minutes")


COMMANDS = (history,)

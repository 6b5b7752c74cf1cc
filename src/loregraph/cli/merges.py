"""Merges you can see and undo, and hand corrections: ``merges``, ``unmerge``, ``merge``,
``rename``, ``retype`` and ``audit``. Changes are recorded in the audit log under the name
of the user running the command."""

from __future__ import annotations

import getpass

import click

from loregraph import AuditEntry, Entity, MergeView
from loregraph.cli.options import json_option, limit_option
from loregraph.cli.runner import Context, echo_items, echo_one, run_graph


def principal(ctx: Context | None = None) -> str:
    """Who runs the command, as the audit log names them (one rule for every change):
    ``--principal`` when given, else the operating system's user name (``unknown``
    without one)."""
    if ctx is not None and ctx.principal:
        return ctx.principal
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _merge_line(view: MergeView) -> str:
    where = f"  [{view.document}]" if view.document else ""
    undone = "  (undone)" if view.undone else ""
    return (
        f"{view.id}  {view.surface!r} -> {view.entity!r}  {view.rule} {view.score:.2f}"
        f"{where}{undone}"
    )


def _audit_line(entry: AuditEntry) -> str:
    at = entry.at.isoformat(timespec="seconds")
    return f"{at}  {entry.principal or '-'}  {entry.action} {entry.subject}  {entry.detail}"


@click.command()
@click.option("--entity", default=None, help="Only the merges into this entity.")
@click.option("--all", "undone", is_flag=True, help="List undone merges too.")
@json_option()
@click.pass_obj
def merges(ctx: Context, entity: str | None, undone: bool, as_json: bool) -> None:
    """List every merge, newest first: id, the name merged, the entity, the rule, its score
    and the document that caused it. Undo one with `loregraph unmerge ID`."""
    found = run_graph(ctx, lambda g: g.corrections.merges(entity=entity, undone=undone))
    echo_items(found, as_json, _merge_line, "no merges")


@click.command()
@click.argument("merge_id", metavar="ID")
@json_option("the merge undone")
@click.pass_obj
def unmerge(ctx: Context, merge_id: str, as_json: bool) -> None:
    """Undo the merge ID: what it joined becomes an entity of its own again (aliases,
    mentions, relations and evidence), and later ingests do not merge it back."""
    who = principal(ctx)
    view = run_graph(ctx, lambda g: g.corrections.unmerge(merge_id, by=who), writes=True)
    echo_one(
        view, as_json, f"unmerged {view.surface!r} from {view.entity!r} ({view.rule}, {view.id})"
    )


@click.command()
@click.argument("name")
@click.argument("other")
@json_option("the merge")
@click.pass_obj
def merge(ctx: Context, name: str, other: str, as_json: bool) -> None:
    """Merge the entity OTHER into the entity NAME by hand (undo with `loregraph unmerge`).

    Both are named exactly: a name or an alias (case, accents, punctuation and a leading
    "the" aside) or an id. A name no entity has is refused with the close names it may
    mean; nothing is merged on a guess."""
    who = principal(ctx)
    view = run_graph(ctx, lambda g: g.corrections.merge(name, other, by=who), writes=True)
    echo_one(view, as_json, f"merged {view.surface!r} into {view.entity!r} ({view.id})")


@click.command()
@click.argument("name")
@click.argument("new_name")
@json_option("the entity")
@click.pass_obj
def rename(ctx: Context, name: str, new_name: str, as_json: bool) -> None:
    """Give the entity NAME (its exact name, an alias or its id) the name NEW_NAME (its
    mentions and relations stay)."""
    who = principal(ctx)
    entity = run_graph(ctx, lambda g: g.corrections.rename(name, new_name, by=who), writes=True)
    _echo_entity(entity, as_json, "renamed to")


@click.command()
@click.argument("name")
@click.argument("entity_type", metavar="TYPE")
@click.option(
    "--new-type",
    is_flag=True,
    help="Create TYPE as given when it is none of the known types (without it, an unknown "
    "type is refused with the list of known ones).",
)
@json_option("the entity")
@click.pass_obj
def retype(ctx: Context, name: str, entity_type: str, new_type: bool, as_json: bool) -> None:
    """Give the entity NAME (its exact name, an alias or its id) the type TYPE: Person,
    Organization, Location, Product, Concept, Event, Role, Time or Code (or a word for
    one, such as company), or a type the scope's entities already have."""
    who = principal(ctx)
    entity = run_graph(
        ctx,
        lambda g: g.corrections.retype(name, entity_type, new_type=new_type, by=who),
        writes=True,
    )
    _echo_entity(entity, as_json, "retyped")


def _echo_entity(entity: Entity, as_json: bool, verb: str) -> None:
    echo_one(entity, as_json, f"{verb} {entity.name!r} ({entity.type}, {entity.id})")


@click.command()
@limit_option(50, "-n", "How many entries (the latest).")
@json_option()
@click.pass_obj
def audit(ctx: Context, limit: int, as_json: bool) -> None:
    """The audit log, newest first: every merge, unmerge, rename, retype, deletion and
    forgotten memory, grant, link and key created or revoked, with its time and who made it."""
    entries = run_graph(ctx, lambda g: g.access.audit(limit=limit))
    echo_items(entries, as_json, _audit_line, "the audit log is empty")


COMMANDS = (merges, unmerge, merge, rename, retype, audit)

"""``loregraph grant`` (a principal's role in a scope) and ``loregraph link`` (the scopes
whose documents a scope's questions also read)."""

from __future__ import annotations

import click

from loregraph import (
    ALL_SCOPES,
    ROLE_ALIASES,
    SHARE_ALL,
    SHARE_SELECTIVE,
    SHARES,
    AsyncGraph,
    Grant,
    LoregraphError,
    Role,
)
from loregraph import ScopeLink as Link
from loregraph.cli.merges import principal as os_user
from loregraph.cli.options import json_option
from loregraph.cli.runner import Context, echo_items, echo_one, run_graph, settings_for
from loregraph.cli.support import fail_on

ROLE_HELP = ", ".join(str(r) for r in Role) + " (also " + ", ".join(ROLE_ALIASES) + ")"


def _grant_line(grant: Grant) -> str:
    where = "every scope" if grant.scope == "*" else f"scope {grant.scope!r}"
    return f"{grant.principal}  {grant.role}  in {where}"


@click.command()
@click.argument("name", required=False)
@click.argument("role", required=False)
@click.option(
    "--scope",
    "scope",
    default=None,
    help="The scope (default: the current one; * for every scope).",
)
@click.option("--list", "listing", is_flag=True, help="List the grants (of NAME, if given).")
@click.option("--revoke", is_flag=True, help="Take NAME's role in the scope away.")
@json_option("the grant(s)")
@click.pass_obj
def grant(
    ctx: Context,
    name: str | None,
    role: str | None,
    scope: str | None,
    listing: bool,
    revoke: bool,
    as_json: bool,
) -> None:
    """Give the principal NAME the ROLE in a scope (replacing its role there).

    ROLE is one of reader, writer, admin or owner; the persona roles name them too:
    viewer and admirer read, editor and advocate write, creator owns. A principal is a
    person or agent (--principal NAME runs a command as them) or an API key's name. Use
    --list to see the grants and --revoke to take one away.
    """
    if listing:
        if role is not None or revoke:
            raise click.UsageError("--list takes at most a NAME (no ROLE, no --revoke)")
        found = run_graph(ctx, lambda g: g.access.grants(name)) if ctx.location.exists() else []
        echo_items(
            found, as_json, _grant_line, "no grants yet: give one with `loregraph grant NAME ROLE`"
        )
        return
    if name is None:
        raise click.UsageError("give the principal's NAME and a ROLE (or --list)")
    where = scope or settings_for(ctx).scope
    who = os_user(ctx)
    if revoke:
        if role is not None:
            raise click.UsageError("--revoke takes no ROLE: it removes NAME's role in the scope")
        removed = run_graph(ctx, lambda g: g.access.revoke_grant(name, where, by=who), writes=True)
        echo_one(removed, as_json, f"revoked {_grant_line(removed)}")
        return
    if role is None:
        raise click.UsageError(f"give the ROLE to grant {name!r}: {ROLE_HELP}")
    try:
        chosen = Role.parse(role)
    except LoregraphError as exc:
        fail_on(exc)

    async def give(graph: AsyncGraph) -> tuple[Grant, list[str]]:
        made = await graph.access.grant(name, chosen, where, by=who)
        return made, list(await graph.scopes())

    made, held = run_graph(ctx, give, must_exist=False, writes=True)
    echo_one(made, as_json, f"granted {_grant_line(made)}")
    _note_empty(ctx, [made.scope], held)


def _note_empty(ctx: Context, scopes: list[str], held: list[str]) -> None:
    """Say on stderr which of ``scopes`` hold no documents yet (a typo shows here)."""
    empty = [s for s in scopes if s != ALL_SCOPES and s not in held]
    if not empty or ctx.quiet:
        return
    known = ", ".join(repr(s) for s in held) or "none yet"
    named = " and ".join(repr(s) for s in empty)
    which = f"scopes {named} hold" if len(empty) > 1 else f"scope {named} holds"
    click.echo(f"note: {which} no documents yet (scopes with documents: {known})", err=True)


def _link_line(link: Link) -> str:
    shared = f": {', '.join(link.documents)}" if link.share == SHARE_SELECTIVE else ""
    return f"{link.scope} reads {link.linked}  ({link.share}{shared})"


@click.command()
@click.argument("scopes", nargs=-1, metavar="SCOPE LINKED")
@click.option(
    "--share",
    type=click.Choice(list(SHARES)),
    default=None,
    help="all: LINKED's public and private documents; selective: only --documents "
    "(default: selective with --documents, else all).",
)
@click.option(
    "--documents",
    "documents",
    multiple=True,
    metavar="ID ...",
    help="The documents of LINKED a selective link shares: ids, paths or titles "
    "(several after it, or comma-separated, or the option repeated).",
)
@click.option("--list", "listing", is_flag=True, help="List the links (from SCOPE, if given).")
@click.option("--remove", is_flag=True, help="Remove the link from SCOPE to LINKED.")
@json_option("the link(s)")
@click.pass_obj
def link(
    ctx: Context,
    scopes: tuple[str, ...],
    share: str | None,
    documents: tuple[str, ...],
    listing: bool,
    remove: bool,
    as_json: bool,
) -> None:
    """Let questions in SCOPE also read LINKED's documents: all its public and private
    ones (--share all) or only those named (--share selective --documents ID ...).

    Linking again replaces the link; --remove takes it away, --list shows the links.
    """
    if listing:
        if len(scopes) > 1 or remove or documents or share:
            raise click.UsageError("--list takes at most a SCOPE")
        source = scopes[0] if scopes else None
        found = run_graph(ctx, lambda g: g.access.links(source)) if ctx.location.exists() else []
        echo_items(
            found, as_json, _link_line, "no links yet: make one with `loregraph link SCOPE LINKED`"
        )
        return
    if len(scopes) < 2:
        raise click.UsageError("give the SCOPE that reads and the LINKED scope it reads")
    scope, linked, *more = scopes
    if more and not documents:
        raise click.UsageError(f"unexpected arguments: {' '.join(more)}")
    wanted = [ref.strip() for given in [*documents, *more] for ref in given.split(",")]
    wanted = [ref for ref in wanted if ref]
    who = os_user(ctx)
    if remove:
        if wanted or share:
            raise click.UsageError("--remove takes only SCOPE and LINKED")
        removed = run_graph(ctx, lambda g: g.access.unlink(scope, linked, by=who), writes=True)
        echo_one(removed, as_json, f"removed the link: {_link_line(removed)}")
        return
    mode = share or (SHARE_SELECTIVE if wanted else SHARE_ALL)
    if mode == SHARE_SELECTIVE and not wanted:
        raise click.UsageError(
            "a selective link needs the documents it shares: add --documents ID ... "
            f"(see `loregraph documents --scope {linked}`)"
        )
    if mode == SHARE_ALL and wanted:
        raise click.UsageError(
            "--share all shares every public and private document: drop --documents, "
            "or use --share selective"
        )

    async def make(graph: AsyncGraph) -> tuple[Link, list[str]]:
        made = await graph.access.link(scope, linked, mode, wanted, by=who)
        return made, list(await graph.scopes())

    made, held = run_graph(ctx, make, must_exist=False, writes=True)
    echo_one(made, as_json, f"linked: {_link_line(made)}")
    _note_empty(ctx, [made.scope, made.linked], held)


COMMANDS = (grant, link)

"""``loregraph keys``: the HTTP server's API keys (create, list, revoke).

A key is printed once, when it is created; the store keeps only its SHA-256 hash.
"""

from __future__ import annotations

import click

from loregraph import ApiKey, LoregraphError, NewKey, Role
from loregraph.cli.merges import principal
from loregraph.cli.options import json_option, scope_option
from loregraph.cli.runner import Context, echo_json, echo_one, run_graph, settings_for
from loregraph.cli.support import fail_on

ROLES = [str(role) for role in Role]


@click.group()
def keys() -> None:
    """API keys of the HTTP server (loregraph serve): create, list, revoke."""


@keys.command()
@click.argument("name")
@scope_option(
    several="A scope the key opens (repeatable; * for every scope; default: the current scope)."
)
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="reader",
    show_default=True,
    help="What the key may do in its scopes: reader (search, ask, browse, export), writer "
    "(also ingest, remember, forget, delete), admin or owner; `loregraph grant` adds roles "
    "to a key's name.",
)
@json_option("the key")
@click.pass_obj
def create(ctx: Context, name: str, scopes: tuple[str, ...], role: str, as_json: bool) -> None:
    """Create the key NAME and print it: it is shown this once (only its hash is kept)."""
    chosen = list(scopes) or [settings_for(ctx).scope]
    try:
        roles = dict.fromkeys(chosen, Role.parse(role))
    except LoregraphError as exc:
        fail_on(exc)
    made: NewKey = run_graph(
        ctx,
        lambda g: g.access.create_key(name, roles, by=principal(ctx)),
        must_exist=False,
        writes=True,
    )
    if as_json:
        echo_json({**made.key.to_dict(), "key": made.secret})
        return
    click.echo(made.secret)
    click.echo(
        f"created key {made.key.name!r} ({_roles(made.key)}); it is shown only now: "
        "send it as 'Authorization: Bearer <key>'",
        err=True,
    )


@keys.command("list")
@json_option("the keys")
@click.pass_obj
def list_keys(ctx: Context, as_json: bool) -> None:
    """List the keys (never their secrets), revoked ones included."""
    found = run_graph(ctx, lambda g: g.access.keys()) if ctx.location.exists() else []
    if as_json:
        echo_json([key.to_dict() for key in found])
        return
    if not found:
        click.echo("no keys yet: create one with `loregraph keys create NAME`", err=True)
    for key in found:
        state = f"revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "active"
        click.echo(f"{key.name}  {_roles(key)}  created {key.created_at:%Y-%m-%d %H:%M}  {state}")


@keys.command()
@click.argument("name")
@json_option("the revoked key")
@click.pass_obj
def revoke(ctx: Context, name: str, as_json: bool) -> None:
    """Revoke the key NAME at once and for good."""
    key = run_graph(ctx, lambda g: g.access.revoke_key(name, by=principal(ctx)), writes=True)
    echo_one(key, as_json, f"revoked key {key.name!r}")


def _roles(key: ApiKey) -> str:
    return ", ".join(f"{role} in {scope}" for scope, role in sorted(key.roles.items()))


COMMANDS = (keys,)

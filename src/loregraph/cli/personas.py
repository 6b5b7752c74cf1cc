"""``personas``: the personas a question can be asked through (``--persona NAME``)."""

from __future__ import annotations

import click

from loregraph import Persona, PersonaLibrary
from loregraph.cli.options import json_option
from loregraph.cli.runner import Context, echo_items, settings_for
from loregraph.cli.support import fail_on


def _line(persona: Persona) -> str:
    cross = "linked scopes" if persona.include_cross_legacy else "this scope only"
    hops = f"{persona.max_hops} hop{'s' if persona.max_hops > 1 else ''}"
    reach = f"{hops}, {persona.temporal_range}, {cross}"
    return f"{persona.name:<12} {persona.description} ({reach})"


@click.command()
@json_option("the personas")
@click.pass_obj
def personas(ctx: Context, as_json: bool) -> None:
    """List the personas for `ask/context --persona NAME`: the packaged ones and those of
    LOREGRAPH_PERSONAS_DIR (YAML files)."""
    try:
        found = PersonaLibrary(settings_for(ctx).personas_dir).all()
    except Exception as exc:  # every failure becomes a message and an exit code
        fail_on(exc)
    chosen = [found[name] for name in sorted(found)]
    echo_items(chosen, as_json, _line)


COMMANDS = (personas,)

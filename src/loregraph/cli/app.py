"""The ``loregraph`` command group: its global options and its commands.

Every command takes ``--db`` (or ``LOREGRAPH_DB``) and ``--scope`` (or ``LOREGRAPH_SCOPE``).
An LLM is configured by ``LOREGRAPH_LLM_*`` variables or the ``--llm-*`` options (which
win); without one everything runs offline. Errors print one line to stderr and exit
non-zero; nothing is written when an input is bad.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any

import click

from loregraph import PRESETS, InputError
from loregraph.cli import (
    admin,
    agents,
    backfill,
    browse,
    code,
    grants,
    history,
    ingest,
    keys,
    memory,
    merges,
    patterns,
    personas,
    query,
    serve,
    suggest,
    watch,
)
from loregraph.cli.options import (
    as_of_option,
    llm_options,
    llm_overrides,
    principal_given,
    principal_option,
    scope_option,
    store_options,
)
from loregraph.cli.runner import Context
from loregraph.cli.support import LoregraphGroup, fail

AS_OF_COMMANDS = (
    "ask",
    "context",
    "search",
    "entity",
    "relations",
    "neighbors",
    "path",
    "history",
    "export",
    "code",
)
"""The commands ``--as-of`` and ``--known-at`` apply to."""


@click.group(cls=LoregraphGroup, context_settings={"help_option_names": ["-h", "--help"]})
@store_options
@scope_option()
@click.option(
    "--preset",
    type=click.Choice(sorted(PRESETS)),
    default=None,
    help="Retrieval preset (default hybrid).",
)
@as_of_option
@principal_option
@llm_options
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    default=False,
    help="No progress lines or bars on stderr (errors are still printed).",
)
@click.version_option(package_name="loregraph")
@click.pass_context
def main(
    click_ctx: click.Context,
    /,
    db: str,
    scope: str | None,
    preset: str | None,
    as_of: datetime | None,
    known_at: datetime | None,
    principal: str | None,
    quiet: bool,
    **llm: Any,
) -> None:
    """loregraph: documents and memories to a knowledge graph, answered with citations.

    With no LLM configured everything runs offline. Configure one with the --llm-* options
    or LOREGRAPH_LLM_* variables (PROVIDER, MODEL, BASE_URL, API_KEY, ...). The options
    above may also follow the command (loregraph ingest notes --scope work).
    """
    for option, value in (("--as-of", as_of), ("--known-at", known_at)):
        if value is not None and click_ctx.invoked_subcommand not in AS_OF_COMMANDS:
            fail(
                f"{option} applies to {', '.join(AS_OF_COMMANDS)}, not to "
                f"{click_ctx.invoked_subcommand}",
                InputError.exit_code,
            )
    try:
        principal = principal_given(principal, os.environ)
    except InputError as exc:
        fail(str(exc), exc.exit_code)
    if principal is not None and click_ctx.invoked_subcommand == "serve":
        fail(
            "--principal does not apply to serve: each request acts for its API key's "
            "principal (loregraph keys create, loregraph grant)",
            InputError.exit_code,
        )
    click_ctx.obj = Context(
        db=db,
        scope=scope,
        preset=preset,
        llm=llm_overrides(llm),
        quiet=quiet,
        as_of=as_of,
        known_at=known_at,
        principal=principal,
    )


for _command in (
    *ingest.COMMANDS,
    *memory.COMMANDS,
    *query.COMMANDS,
    *personas.COMMANDS,
    *browse.COMMANDS,
    *patterns.COMMANDS,
    *code.COMMANDS,
    *merges.COMMANDS,
    *history.COMMANDS,
    *admin.COMMANDS,
    *agents.COMMANDS,
    *serve.COMMANDS,
    *keys.COMMANDS,
    *grants.COMMANDS,
    *backfill.COMMANDS,
    *suggest.COMMANDS,
    *watch.COMMANDS,
):
    main.add_command(_command)

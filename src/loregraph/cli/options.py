"""The options more than one command shares, each declared once.

Each function returns a decorator adding its option(s) to a click command: one ``--json``,
one ``--scope``, one ``--limit``, one ``--format``, the store options and the whole set of
LLM options (with :func:`llm_overrides`, which turns their values into LLM settings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import click

from loregraph import InputError, check_name

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DB = "loregraph.db"


def _all(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` in the order written (the first is outermost)."""

    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def json_option(what: str = "") -> Callable[[F], F]:
    """``--json`` (parameter ``as_json``): print ``what`` (e.g. "the report") as JSON."""
    subject = f" {what}" if what else ""
    return click.option("--json", "as_json", is_flag=True, help=f"Print{subject} as JSON.")


TIME_RULE = "README, 'Time: --as-of and --known-at'"
"""Where the one time rule of every query is documented (every help text points to it)."""


def as_of_option(function: F) -> F:
    """``--as-of DATE`` (parameter ``as_of``) and ``--known-at DATE`` (``known_at``): the
    world time queries see and what the store knew (:mod:`loregraph.timepoint`)."""
    from loregraph.cli.dates import TimeParam

    world = click.option(
        "--as-of",
        "as_of",
        type=TimeParam(),
        default=None,
        help="See the world as of this date (ISO 8601 or a phrase): facts that held then, "
        "memories dated up to then; content with no stated date is timeless, so seen at any "
        f"date ({TIME_RULE}).",
    )
    known = click.option(
        "--known-at",
        "known_at",
        type=TimeParam(),
        default=None,
        help="See only what the store knew at this date: content stored and facts ended "
        f"by then ({TIME_RULE}).",
    )
    return world(known(function))


def scope_option(*, several: str | None = None) -> Callable[[F], F]:
    """``--scope``: the scope to work in (env ``LOREGRAPH_SCOPE``), or with ``several`` (its
    help text), scopes to pick, repeatable (parameter ``scopes``)."""
    if several is not None:
        return click.option("--scope", "scopes", multiple=True, help=several)
    return click.option(
        "--scope",
        envvar="LOREGRAPH_SCOPE",
        default=None,
        help="Container tag: tenant / agent / user partition (env LOREGRAPH_SCOPE).",
    )


only_option = click.option(
    "--only",
    type=click.Choice(["memories", "documents"]),
    default=None,
    help="Retrieve from memories only, or from documents only (default: both).",
)
"""``--only memories|documents`` (parameter ``only``): retrieval kept to one kind of source."""


persona_options = _all(
    click.option(
        "--persona",
        default=None,
        metavar="NAME",
        help="Ask through a persona (see `loregraph personas`), or a persona file's path.",
    ),
    click.option(
        "--turn",
        "turns",
        multiple=True,
        metavar="TEXT",
        help="An earlier turn of the conversation, oldest first (repeat): 'her' or 'that "
        "place' in the question stands for what they named last.",
    ),
)
"""``--persona NAME`` and ``--turn TEXT`` (repeatable; parameter ``turns``)."""


def number_option(
    name: str, default: float, *, least: float, help: str, envvar: str | None = None
) -> Callable[[F], F]:
    """A number option of at least ``least`` (an integer when ``default`` is one), its
    default shown in the help."""
    kind: click.IntRange | click.FloatRange = click.FloatRange(min=least)
    if isinstance(default, int):
        kind = click.IntRange(min=int(least))
    return click.option(
        name, type=kind, default=default, show_default=True, help=help, envvar=envvar
    )


def limit_option(default: int, short: str, help: str) -> Callable[[F], F]:
    """``--limit``/``short``: how many results, at least 1."""
    return click.option(
        "--limit",
        short,
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        help=help,
    )


def format_option(choices: Sequence[str], default: str | None, help: str) -> Callable[[F], F]:
    """``--format`` (parameter ``fmt``): one of ``choices``."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=default,
        show_default=default is not None,
        help=help,
    )


visibility_options = _all(
    click.option(
        "--visibility",
        type=click.Choice(["public", "private", "personal"]),
        default=None,
        help="Who may read it: public (anyone who reads the scope), private (its writers) or "
        "personal (only --owner). Default public; a document ingested again keeps its own.",
    ),
    click.option(
        "--owner",
        default=None,
        metavar="NAME",
        help="The principal it belongs to (a personal one's default: --principal).",
    ),
)
"""``--visibility`` and ``--owner`` (parameters ``visibility``, ``owner``): who may read
what is written."""

PRINCIPAL_VARIABLE = "LOREGRAPH_PRINCIPAL"
"""The environment variable of ``--principal``."""

principal_option = click.option(
    "--principal",
    envvar=PRINCIPAL_VARIABLE,
    default=None,
    metavar="NAME",
    help="Run the command as this principal, with the roles granted to it (loregraph "
    "grant) (env LOREGRAPH_PRINCIPAL; default: the store's operator, who sees all; an "
    "empty name is an error, not the operator).",
)
"""``--principal NAME``: the principal every engine call of the command acts for."""


def principal_given(given: str | None, environ: Mapping[str, str]) -> str | None:
    """The principal ``--principal`` (or ``LOREGRAPH_PRINCIPAL``) names, stripped; ``None``
    (the store's operator) only when neither is given.

    Raises :class:`~loregraph.errors.InputError` for an empty or blank name, given either
    way (click reads an empty variable as unset, so ``environ`` is asked too): no name
    stands for the operator.
    """
    if given is None and environ.get(PRINCIPAL_VARIABLE) is None:
        return None
    if given is None or not given.strip():
        raise InputError(
            f"--principal (or {PRINCIPAL_VARIABLE}) is empty: name the principal to act "
            f"for, or leave out --principal and unset {PRINCIPAL_VARIABLE} to act as the "
            "store's operator"
        )
    return check_name(given, "--principal")


store_options = _all(
    click.option(
        "--db",
        envvar="LOREGRAPH_DB",
        default=DEFAULT_DB,
        show_default=True,
        help="Database: an SQLite file path, a JSON memory file (a path ending in .json), "
        "an embedded SurrealDB directory (a path ending in .surreal, or surrealkv://PATH), "
        "postgresql://..., falkordb://host:port/graph, neo4j://... or ws://... (SurrealDB) "
        "(env LOREGRAPH_DB).",
    ),
)
"""``--db``: where the graph lives."""


def _setting(*declarations: str, help: str, **kwargs: Any) -> Callable[[F], F]:
    """An option that overrides a setting only when given (default ``None``)."""
    return click.option(*declarations, default=None, help=help, **kwargs)


llm_options = _all(
    _setting(
        "--llm-provider",
        type=click.Choice(["openai", "anthropic", "none"]),
        help="LLM API: openai (any OpenAI-compatible server), anthropic, or none "
        "(env LOREGRAPH_LLM_PROVIDER; default none: offline).",
    ),
    _setting("--llm-model", help="Model name sent to the server (env LOREGRAPH_LLM_MODEL)."),
    _setting(
        "--llm-base-url",
        help="Server URL, e.g. http://localhost:11434/v1 for Ollama (env LOREGRAPH_LLM_BASE_URL).",
    ),
    _setting(
        "--llm-api-key",
        help="API key; prefer the env LOREGRAPH_LLM_API_KEY (options show in process lists).",
    ),
    _setting(
        "--llm-concurrency",
        type=click.IntRange(min=1),
        help="LLM calls in flight at once (default 5).",
    ),
    _setting("--llm-timeout", type=float, help="Seconds per LLM call (default 120)."),
    click.option(
        "--llm-no-cache",
        is_flag=True,
        default=False,
        help="Do not read or write the LLM response cache (next to the database).",
    ),
    _setting(
        "--prompts-dir",
        type=click.Path(exists=True, file_okay=False),
        help="Directory of prompt files overriding the packaged ones (answer.system.txt...).",
    ),
    _setting(
        "--gleaning",
        type=click.IntRange(min=0),
        help="Extra LLM extraction rounds asking for what was missed (default 0).",
    ),
    _setting(
        "--persona-intents/--no-persona-intents",
        help="Have the LLM sort questions into finer intents (relational, temporal, spatial, "
        "entity-focused, general...), each mapped to a retrieval strategy.",
    ),
)
"""Every option configuring the LLM; :func:`llm_overrides` reads their values."""

_LLM_FIELDS = {
    "llm_provider": "provider",
    "llm_model": "model",
    "llm_base_url": "base_url",
    "llm_api_key": "api_key",
    "llm_concurrency": "concurrency",
    "llm_timeout": "timeout",
    "prompts_dir": "prompts_dir",
    "gleaning": "gleaning",
    "persona_intents": "persona_intents",
}
"""Parameter of an LLM option → the LLM setting it sets."""


def llm_overrides(params: Mapping[str, Any]) -> dict[str, Any]:
    """The LLM settings the options given set (those left out are not overridden)."""
    overrides = {setting: params[name] for name, setting in _LLM_FIELDS.items()}
    overrides["cache"] = False if params["llm_no_cache"] else None
    return {key: value for key, value in overrides.items() if value is not None}


show_ended_option = click.option(
    "--show-ended/--hide-ended",
    "show_ended",
    default=None,
    help="Show facts that have ended, marked as ended ('until 2026-02-10; replaced by "
    "Hono'), or leave them out (the default; env LOREGRAPH_SHOW_ENDED_FACTS).",
)

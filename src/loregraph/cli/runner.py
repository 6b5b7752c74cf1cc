"""What every command does around its work: settings from the environment and the options,
opening the graph, running it, progress on stderr, JSON on stdout, errors as exit codes."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, TypeVar

import click
from rich.console import Console

from loregraph import (
    PRESETS,
    AsyncGraph,
    ChunkSettings,
    EmptyStoreError,
    Location,
    LoregraphError,
    Principal,
    Settings,
    open_store,
)
from loregraph.cli.progress import PLAIN_INTERVAL, PlainProgress, RichProgress
from loregraph.cli.support import INTERRUPTED_EXIT, fail_on

if TYPE_CHECKING:
    from loregraph import UsageTracker

T = TypeVar("T")


class When(TypedDict):
    """The time a query looks at: ``as_of`` (world time) and ``known_at`` (store time)."""

    as_of: datetime | None
    known_at: datetime | None


@dataclasses.dataclass
class Context:
    """What the top-level options configure."""

    db: str
    scope: str | None
    preset: str | None
    llm: dict[str, Any] = dataclasses.field(default_factory=dict)
    quiet: bool = False
    as_of: datetime | None = None
    """``--as-of``: the world time queries see (``None``: now)."""
    known_at: datetime | None = None
    """``--known-at``: what the store knew then (``None``: all it holds)."""
    principal: str | None = None
    """``--principal``: the principal the engine acts for (``None``: the operator)."""

    def when(self) -> When:
        """``--as-of`` and ``--known-at`` as query arguments (the time rule:
        :mod:`loregraph.timepoint`)."""
        return When(as_of=self.as_of, known_at=self.known_at)

    @functools.cached_property
    def location(self) -> Location:
        """``--db`` parsed (on first use: commands that do not open it never parse it)."""
        return Location.parse(self.db)


def settings_for(ctx: Context, **chunk: Any) -> Settings:
    """The settings from the environment with the options applied (``chunk``: chunking
    options given; ``None`` values are left out)."""
    try:
        # the LLM settings are checked with the options applied (a model may come from one)
        settings = Settings.from_env(os.environ, llm=ctx.llm)
        llm = settings.llm
        if ctx.scope:
            settings = settings.replace(scope=ctx.scope)
        if ctx.preset:
            settings = settings.replace(retrieval=PRESETS[ctx.preset])
        if chunk:
            base = dataclasses.asdict(settings.chunk)
            base.update({k: v for k, v in chunk.items() if v is not None})
            settings = settings.replace(chunk=ChunkSettings(**base))
        if llm.enabled and llm.cache and not llm.cache_path:
            cache = ctx.location.llm_cache_path()
            if cache is not None:
                llm = llm.replace(cache_path=str(cache))
        return settings.replace(llm=llm)
    except LoregraphError as exc:
        fail_on(exc)


def run_async(work: Coroutine[Any, Any, T], *, kept: str) -> T:
    """Run ``work``; a loregraph error exits with its code, an interrupt with 130 after
    saying that the ``kept`` (e.g. "completed documents") are kept."""
    try:
        return asyncio.run(work)
    except LoregraphError as exc:
        fail_on(exc)
    except KeyboardInterrupt:
        click.echo(f"interrupted: {kept} are kept; run again to resume", err=True)
        sys.exit(INTERRUPTED_EXIT)


def run_graph(
    ctx: Context,
    work: Callable[[AsyncGraph], Coroutine[Any, Any, T]],
    *,
    must_exist: bool = True,
    settings: Settings | None = None,
    writes: bool = False,
) -> T:
    """Open the graph, run ``work`` on it, close it; turn loregraph errors into exit codes.

    A command that does not write (``writes=False``) opens an SQLite store read-only, so it
    works on a file or folder the user may not write.
    """
    settings = settings or settings_for(ctx)

    async def main() -> T:
        where = ctx.location
        if must_exist and not where.exists():
            raise EmptyStoreError(
                f"no database at {where}: ingest documents first "
                f"(loregraph --db {where} ingest PATH)"
            )
        store = open_store(where, read_only=not writes)
        graph = AsyncGraph(store, settings=settings)
        try:
            if must_exist:
                await graph.open()  # an ingest opens it once its input has been read
            if ctx.principal is None:
                return await work(graph)
            principal = await acting_principal(graph, ctx, where.exists())
            return await work(graph.acting_as(principal))
        finally:
            await graph.close()

    return run_async(main(), kept="completed documents")


async def acting_principal(graph: AsyncGraph, ctx: Context, stored: bool) -> Principal:
    """The principal ``--principal`` names, with its grants (none in a store not yet
    made); says so on stderr when it has no role anywhere."""
    name = ctx.principal or ""
    principal = await graph.access.principal_named(name) if stored else Principal(name, {})
    if not principal.roles and not ctx.quiet:
        click.echo(
            f"note: principal {name!r} has no role in any scope "
            f"(give one with `loregraph grant {name} ROLE --scope SCOPE`)",
            err=True,
        )
    return principal


def progress_for(
    console: Console, off: bool, usage: UsageTracker | None = None
) -> RichProgress | PlainProgress | None:
    """Bars on a terminal, plain lines on stderr otherwise, nothing when ``off``. The bars
    show ``usage``'s LLM calls and tokens live, when given."""
    if off:
        return None
    if console.is_terminal:
        bars = RichProgress(console)
        if usage is not None:
            bars.watch(usage)
        return bars
    raw = os.environ.get("LOREGRAPH_PROGRESS_SECONDS", "")
    try:
        interval = float(raw) if raw else PLAIN_INTERVAL
    except ValueError:
        interval = PLAIN_INTERVAL
    return PlainProgress(sys.stderr, interval=max(interval, 0.0))


def showing(
    progress: RichProgress | PlainProgress | None,
) -> AbstractContextManager[object]:
    """A context showing ``progress`` while it lasts (nothing when there is none)."""
    return progress if progress is not None else nullcontext()


def echo_json(payload: Any) -> None:
    """Print ``payload`` as indented JSON (anything JSON lacks, such as a time, as text)."""
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2, default=str))


def echo_one(item: Any, as_json: bool, line: str) -> None:
    """Print ``item``: its ``to_dict()`` as JSON, or ``line`` for people."""
    if as_json:
        echo_json(item.to_dict())
    else:
        click.echo(line)


class Shown(Protocol):
    """A result the command line prints: it has a JSON form."""

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON."""
        ...


S = TypeVar("S", bound=Shown)


def echo_items(
    items: Sequence[S], as_json: bool, line: Callable[[S], str], empty: str | None = None
) -> None:
    """Print ``items``: a JSON list of their ``to_dict()``, or a ``line`` each for people
    (and ``empty`` on stderr when there are none)."""
    if as_json:
        echo_json([item.to_dict() for item in items])
        return
    if not items and empty:
        click.echo(empty, err=True)
    for item in items:
        click.echo(line(item))


def echo_report(report: Any, as_json: bool) -> None:
    """Print a run's report (its ``to_dict()`` as JSON, or its ``summary()``) and exit 1
    when it did not all succeed (``report.ok`` false)."""
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(report.summary())
    if not report.ok:
        sys.exit(1)

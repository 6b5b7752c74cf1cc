"""An agent's memories: ``remember`` (a text, stdin or a JSONL file), ``memories`` (list,
filter, or those that mention an entity) and ``forget``."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from loregraph import InputError, Memory, MemoryHit, NewMemory
from loregraph.cli.admin import deleted_line
from loregraph.cli.dates import TimeParam, memory_time
from loregraph.cli.merges import principal
from loregraph.cli.options import json_option, limit_option, visibility_options
from loregraph.cli.runner import Context, echo_items, echo_json, echo_one, run_graph
from loregraph.cli.support import fail

RECORD_FIELDS = {"text", "at", "tags", "source", "metadata"}
"""The fields a line of a JSONL file of memories may have (``text`` is required)."""


def _is_records_file(argument: str) -> bool:
    return argument.lower().endswith(".jsonl") and not any(c.isspace() for c in argument)


def _field(path: Path, lineno: int, item: dict[str, Any], name: str, kind: type) -> Any:
    value = item.get(name)
    if value is not None and not isinstance(value, kind):
        fail(f"{path}:{lineno}: {name!r} must be a {kind.__name__}", InputError.exit_code)
    return value


def _record(path: Path, lineno: int, line: str, defaults: NewMemory) -> NewMemory:
    """One line of a JSONL file of memories; ``defaults`` gives the options' time, source
    and tags (added to the line's own)."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        fail(f"{path}:{lineno}: not JSON ({exc.msg})", InputError.exit_code)
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        fail(f'{path}:{lineno}: expected an object with a "text"', InputError.exit_code)
    unknown = sorted(set(item) - RECORD_FIELDS)
    if unknown:
        fail(f"{path}:{lineno}: unknown fields {unknown}; known: {sorted(RECORD_FIELDS)}", 2)
    at = defaults.at
    if _field(path, lineno, item, "at", str) is not None:
        at = memory_time(item["at"], f"{path}:{lineno}: ") or defaults.at
    tags = _field(path, lineno, item, "tags", list) or []
    return NewMemory(
        text=item["text"],
        at=at,
        source=_field(path, lineno, item, "source", str) or defaults.source,
        tags=[*tags, *(t for t in defaults.tags if t not in tags)],
        metadata=_field(path, lineno, item, "metadata", dict),
    )


def _read_records(path: Path, defaults: NewMemory) -> list[NewMemory]:
    if not path.is_file():
        fail(f"no such file: {path}", InputError.exit_code)
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [_record(path, n, line, defaults) for n, line in enumerate(lines, 1) if line.strip()]
    if not found:
        fail(f"{path}: no memories in it", InputError.exit_code)
    return found


def _line(memory: Memory) -> str:
    first = memory.text.strip().splitlines()[0] if memory.text.strip() else ""
    tags = f"  [{', '.join(memory.tags)}]" if memory.tags else ""
    source = f"  ({memory.source})" if memory.source else ""
    return f"{memory.id}  {memory.at.isoformat(timespec='seconds')}{tags}{source}  {first[:100]}"


@click.command()
@click.argument("text")
@click.option(
    "--at",
    "at_text",
    default=None,
    help="When it happened: an ISO date or time (2026-01-15, 2026-01-15T09:30) or a phrase "
    "such as 'yesterday' (default now; a value that is no date is reported, and now kept).",
)
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for several).")
@click.option("--source", default=None, help="Where the memory comes from (an agent, a chat...).")
@click.option(
    "--planned",
    is_flag=True,
    default=False,
    help="A plan: its --at may be after now, and its facts hold only from then on "
    "(a future --at without it is refused).",
)
@visibility_options
@json_option("the stored memory")
@click.pass_obj
def remember(
    ctx: Context,
    text: str,
    at_text: str | None,
    tags: tuple[str, ...],
    source: str | None,
    planned: bool,
    visibility: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Remember TEXT (- reads it from stdin; a FILE.jsonl holds one memory a line).

    A line of the file is a JSON object with "text" and optionally "at", "tags", "source"
    and "metadata"; --at and --source apply to lines without them, --tag to every line.
    A memory is searchable as soon as this returns. --visibility and --owner apply to
    every memory given.
    """
    at = memory_time(at_text)
    defaults = NewMemory("", at=at, source=source, tags=tags)
    if _is_records_file(text):
        memories = _read_records(Path(text), defaults)
    else:
        body = sys.stdin.read() if text == "-" else text
        if not body.strip():
            fail("a memory needs a non-empty text", InputError.exit_code)
        memories = [NewMemory(body, at=at, source=source, tags=tags)]
    memories = [
        dataclasses.replace(m, visibility=visibility, owner=owner, planned=planned)
        for m in memories
    ]
    stored = run_graph(
        ctx, lambda g: g.memories.remember_many(memories), must_exist=False, writes=True
    )
    if as_json:
        one = len(stored) == 1 and not _is_records_file(text)
        echo_json(stored[0].to_dict() if one else [m.to_dict() for m in stored])
        return
    for memory in stored:
        click.echo(f"remembered {_line(memory)}")


@click.command()
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--source", default=None, help="Only memories from this source.")
@click.option("--since", type=TimeParam(), default=None, help="Only memories from this time on.")
@click.option(
    "--until",
    type=TimeParam(end_of_day=True),
    default=None,
    help="Only memories up to this time (a date: to the end of that day).",
)
@click.option("--about", default=None, help="Only memories that mention this entity.")
@click.option(
    "--search",
    "query",
    default=None,
    metavar="TEXT",
    help="The memories that best match TEXT, best first, with the entities each mentions.",
)
@limit_option(50, "-n", "How many (the latest; with --search, the best).")
@json_option()
@click.pass_obj
def memories(
    ctx: Context,
    tags: Sequence[str],
    source: str | None,
    since: datetime | None,
    until: datetime | None,
    about: str | None,
    query: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List memories, oldest first: by tag, source, time, or the entity they mention; or
    search them by text (--search)."""
    if query is not None:
        if about is not None:
            fail(
                "--search and --about cannot be combined: search for the name instead",
                InputError.exit_code,
            )
        hits = run_graph(
            ctx,
            lambda g: g.memories.search(
                query, limit=limit, tags=tags, source=source, since=since, until=until
            ),
        )
        _show_hits(hits, as_json)
        return
    found = run_graph(
        ctx,
        lambda g: g.memories.all(
            tags=tags, source=source, since=since, until=until, about=about, limit=limit
        ),
    )
    echo_items(found, as_json, _line, "no memories match")


def _show_hits(hits: list[MemoryHit], as_json: bool) -> None:
    if as_json:
        echo_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo("no memories match", err=True)
    elif not any(hit.relevant for hit in hits):
        click.echo("no memory looks relevant to the query; the closest ones:", err=True)
    for hit in hits:
        named = ", ".join(f"{e.name} ({e.type})" for e in hit.entities)
        mark = "" if hit.relevant else "? "
        click.echo(mark + _line(hit.memory) + (f"\n    mentions: {named}" if named else ""))


@click.command()
@click.argument("memory_id", metavar="ID")
@json_option("the report")
@click.pass_obj
def forget(ctx: Context, memory_id: str, as_json: bool) -> None:
    """Forget the memory ID and exactly what only it supported."""
    who = principal(ctx)
    report = run_graph(ctx, lambda g: g.memories.forget(memory_id, by=who), writes=True)
    echo_one(report, as_json, deleted_line("forgot", report))


COMMANDS = (remember, memories, forget)

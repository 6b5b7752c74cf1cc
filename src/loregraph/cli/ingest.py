"""``loregraph ingest``: files, folders, records or stdin into the graph."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from loregraph import AsyncGraph, InputError
from loregraph.cli.options import json_option, visibility_options
from loregraph.cli.runner import (
    Context,
    echo_report,
    progress_for,
    run_graph,
    settings_for,
    showing,
)
from loregraph.cli.support import fail


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--chunk-size", type=click.IntRange(min=1), default=None, help="Chunk size (default 1000)."
)
@click.option(
    "--chunk-overlap",
    type=click.IntRange(min=0),
    default=None,
    help="Chunk overlap (default 200; less than the chunk size).",
)
@click.option(
    "--chunk-unit",
    type=click.Choice(["chars", "tokens"]),
    default=None,
    help="Count chunk size in characters or tokens.",
)
@click.option(
    "--id",
    "doc_id",
    default=None,
    help="Identity of the document read from stdin (-): ingesting the same id again "
    "replaces it. Default: the hash of its text.",
)
@click.option(
    "--title", default=None, help="Title of the document read from stdin (default: its first line)."
)
@click.option(
    "--prune",
    is_flag=True,
    help="Also delete the stored documents of files no longer below the folders given "
    "(deleted or moved files: a repository read again).",
)
@click.option(
    "--git",
    is_flag=True,
    help="Also read each folder's git history (the git program; no network): each commit "
    "not read before a memory at its author time, its author a Person who AUTHORED the "
    "files, classes and functions it changed; the author of most of a file's commits "
    "OWNS it.",
)
@click.option(
    "--git-limit",
    type=click.IntRange(min=1),
    default=None,
    help="With --git: how many of the newest commits to read (default 300; merges left out).",
)
@visibility_options
@json_option("the report")
@click.pass_obj
def ingest(
    ctx: Context,
    paths: tuple[str, ...],
    chunk_size: int | None,
    chunk_overlap: int | None,
    chunk_unit: str | None,
    doc_id: str | None,
    title: str | None,
    prune: bool,
    git: bool,
    git_limit: int | None,
    visibility: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Ingest files, folders, JSON/JSONL records, or - for stdin.

    Folders are read for .txt and .md files, PDF, Word, PowerPoint and HTML files
    with loregraph[docs] installed, and source code (Python, JavaScript, TypeScript, Go,
    Rust, Java: files, modules, classes, functions, imports and calls; manifests'
    dependencies) with loregraph[code] installed; every file skipped is listed with the
    reason.
    Unchanged documents are skipped, changed ones replaced (the report names them); each
    document is committed when it is done, so an interrupted run keeps them and resumes.
    --visibility and --owner say who may read them (an unchanged document given another
    visibility is processed again).
    With --git, a folder inside a git work tree also gives its commits as memories
    (tagged commit; `history FILE` shows them in time order, `memories --tag commit`
    lists them) and its authors as people; a commit is read once.
    """
    for path in paths:
        if path != "-" and not Path(path).exists():
            fail(f"no such file or directory: {path}", InputError.exit_code)
    if (doc_id is not None or title is not None) and "-" not in paths:
        raise click.UsageError("--id and --title name a document read from stdin: add - to PATHS")
    settings = settings_for(ctx, size=chunk_size, overlap=chunk_overlap, unit=chunk_unit)
    console = Console(stderr=True)

    async def work(graph: AsyncGraph) -> Any:
        progress = progress_for(console, ctx.quiet or as_json, graph.usage)
        with showing(progress):
            stdin = sys.stdin if "-" in paths else None
            return await graph.ingest(
                *paths,
                stdin=stdin,
                stdin_id=doc_id,
                stdin_title=title,
                progress=progress,
                visibility=visibility,
                owner=owner,
                prune=prune,
                git=git,
                git_limit=git_limit,
            )

    report = run_graph(ctx, work, must_exist=False, settings=settings, writes=True)
    echo_report(report, as_json)


COMMANDS = (ingest,)

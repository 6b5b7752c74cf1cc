"""``loregraph watch``: keep a folder's graph fresh while it is worked on — ingest it, then
read it again each time a file below it changes, appears or disappears.

Changes are seen by looking at the folder every ``--interval`` seconds (each file's size
and modification time; hidden files and folders such as ``.git`` are not looked at), so
it works the same on every system and file system, network ones included. Reading the
folder again costs what ``ingest`` costs for it: unchanged files are skipped, changed ones
replaced, and callers in unchanged files follow a renamed or removed definition.
"""

from __future__ import annotations

import asyncio
import os
from datetime import datetime
from pathlib import Path

import click

from loregraph import AsyncGraph, IngestReport, InputError
from loregraph.cli.runner import Context, run_graph

Snapshot = dict[str, tuple[int, int]]


def snapshot(folder: Path) -> Snapshot:
    """Each non-hidden file below ``folder``: its size and modification time."""
    found: Snapshot = {}
    for root, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            path = os.path.join(root, name)
            try:
                stat = os.stat(path)
            except OSError:  # gone between the listing and the look
                continue
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def changed(report: IngestReport) -> str:
    """One line for a reading of the folder: what it added, replaced and removed."""
    parts = [f"{report.ingested} new", f"{report.replaced} changed"]
    parts.append(f"{len(report.removed_documents)} removed")
    if report.failed:
        parts.append(f"{len(report.failed)} failed")
    names = [d.title for d in report.replaced_documents[:5]]
    said = f" ({', '.join(names)})" if names else ""
    return f"{datetime.now():%H:%M:%S} {', '.join(parts)}{said}"


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--interval",
    type=click.FloatRange(min=0.2),
    default=2.0,
    show_default=True,
    help="Seconds between looks at the folder.",
)
@click.option(
    "--keep-deleted",
    is_flag=True,
    help="Keep the documents of files deleted from the folder (default: removed, as "
    "ingest --prune removes them).",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many looks (default: run until Ctrl-C).",
)
@click.pass_obj
def watch(
    ctx: Context, folder: Path, interval: float, keep_deleted: bool, rounds: int | None
) -> None:
    """Keep the graph of FOLDER fresh: ingest it, then read it again each time a file
    below it changes, appears or disappears (only what changed is processed again). Stop
    with Ctrl-C."""

    async def work(graph: AsyncGraph) -> None:
        seen = snapshot(folder)
        report = await graph.ingest(folder, prune=not keep_deleted)
        click.echo(f"watching {folder} ({report.documents_seen} documents): {changed(report)}")
        looks = 0
        while rounds is None or looks < rounds:
            await asyncio.sleep(interval)
            looks += 1
            now = snapshot(folder)
            if now == seen:
                continue
            seen = now
            try:
                report = await graph.ingest(folder, prune=not keep_deleted)
            except InputError as exc:  # the folder holds nothing readable for now
                click.echo(f"{datetime.now():%H:%M:%S} {exc}", err=True)
                continue
            click.echo(changed(report))
            for failure in report.failed:
                click.echo(f"  failed: {failure.source}: {failure.error}", err=True)

    try:
        run_graph(ctx, work, must_exist=False, writes=True)
    except KeyboardInterrupt:
        click.echo("stopped watching")


COMMANDS = (watch,)

"""Managing stores: ``delete`` a document, ``export`` the graph, ``copy`` a store."""

from __future__ import annotations

import sys

import click
from rich.console import Console

from loregraph import CopyReport, DeleteReport, copy_locations
from loregraph.cli.merges import principal
from loregraph.cli.options import format_option, json_option, scope_option
from loregraph.cli.runner import (
    Context,
    echo_json,
    echo_one,
    progress_for,
    run_async,
    run_graph,
    showing,
)


@click.command()
@click.argument("document")
@json_option("the report")
@click.pass_obj
def delete(ctx: Context, document: str, as_json: bool) -> None:
    """Delete a DOCUMENT (id, source path or title) and exactly what only it supported."""
    report = run_graph(ctx, lambda g: g.delete(document, by=principal(ctx)), writes=True)
    if as_json:
        echo_json(report.to_dict())
        return
    click.echo(deleted_line("deleted", report))


def deleted_line(verb: str, report: DeleteReport) -> str:
    """One line saying what deleting a document or forgetting a memory removed."""
    return (
        f"{verb} {report.document_id}: {report.chunks} chunks, {report.mentions} mentions, "
        f"{report.entities_removed} entities and {report.relations_removed} relations removed, "
        f"{report.relations_weakened} relations weakened"
    )


@click.command()
@click.argument("path")
@format_option(
    ["json", "graphml"], None, "Output format (default: from the file extension, else json)."
)
@click.pass_obj
def export(ctx: Context, path: str, fmt: str | None) -> None:
    """Export the graph as JSON or GraphML to PATH (- for standard output)."""
    chosen = fmt or ("graphml" if path.lower().endswith(".graphml") else "json")
    if path == "-":
        out = sys.stdout.buffer
        count = run_graph(ctx, lambda g: g.export(out, format=chosen, **ctx.when()))  # type: ignore[arg-type]
        click.echo(f"wrote {count} entities to standard output ({chosen})", err=True)
        return
    count = run_graph(ctx, lambda g: g.export(path, format=chosen, **ctx.when()))  # type: ignore[arg-type]
    click.echo(f"wrote {count} entities to {path} ({chosen})")


@click.command("copy")
@click.argument("source")
@click.argument("dest")
@scope_option(several="Copy only this scope (repeat for several; default: every scope).")
@click.option("--merge", is_flag=True, help="Add to a DEST that already holds other documents.")
@click.option(
    "--with-keys",
    "keys",
    is_flag=True,
    help="Copy the HTTP server's API keys too (their hashes: they are credentials).",
)
@click.option(
    "--as",
    "as_principal",
    metavar="NAME",
    help="Copy only what principal NAME may read (its grants in SOURCE): the graph its "
    "readable documents build, without merge decisions, audit log, keys, grants or links.",
)
@json_option("the report")
@click.pass_obj
def copy_command(
    ctx: Context,
    source: str,
    dest: str,
    scopes: tuple[str, ...],
    merge: bool,
    keys: bool,
    as_principal: str | None,
    as_json: bool,
) -> None:
    """Copy a whole store from SOURCE to DEST (file paths or database URLs): documents,
    merge decisions and the audit log; API keys only with --with-keys.

    Documents DEST already holds are skipped, so an interrupted copy resumes. A DEST that
    holds documents SOURCE does not is refused unless --merge is given.
    """
    bars = progress_for(Console(stderr=True), ctx.quiet or as_json)

    async def work() -> CopyReport:
        with showing(bars):
            return await copy_locations(
                source,
                dest,
                scopes=scopes or None,
                merge=merge,
                progress=bars,
                keys=keys,
                as_principal=as_principal,
            )

    report = run_async(work(), kept="copied documents")
    echo_one(report, as_json, report.summary())
    if not merge and not report.matches:
        sys.exit(1)


COMMANDS = (delete, export, copy_command)

"""The ``loregraph`` command line.

Every command takes ``--db`` (or ``LOREGRAPH_DB``) and ``--scope`` (or ``LOREGRAPH_SCOPE``).
An LLM is configured by ``LOREGRAPH_LLM_*`` variables or the ``--llm-*`` options (which
win); without one everything runs offline. Errors print one line to stderr and exit
non-zero; nothing is written when an input is bad.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Coroutine
from contextlib import nullcontext
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from loregraph.answer.types import Answer
from loregraph.cli_progress import PLAIN_INTERVAL, PlainProgress, RichProgress
from loregraph.cli_support import LoregraphGroup
from loregraph.errors import EmptyStoreError, InputError, LoregraphError
from loregraph.graph import AsyncGraph
from loregraph.models import CO_OCCURS
from loregraph.settings import MIN_BUDGET, PRESETS, ChunkSettings, LLMSettings, Settings
from loregraph.store.urls import store_for_url

T = TypeVar("T")
DEFAULT_DB = "loregraph.db"
URL_STORE_CACHE = "loregraph.llm-cache.sqlite"
"""The LLM cache file (in the working directory) for stores given as a database URL."""


@dataclasses.dataclass
class Context:
    """What the top-level options configure."""

    db: str
    scope: str | None
    preset: str | None
    llm: dict[str, Any] = dataclasses.field(default_factory=dict)
    mirror: str | None = None
    quiet: bool = False


def _fail(exc: LoregraphError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(exc.exit_code)


def _settings(ctx: Context, **chunk: Any) -> Settings:
    try:
        # the LLM settings are checked with the options applied (a model may come from one)
        llm = LLMSettings.from_env(os.environ, **ctx.llm)
        rest = {k: v for k, v in os.environ.items() if not k.startswith("LOREGRAPH_LLM_")}
        settings = Settings.from_env(rest)
        if ctx.scope:
            settings = settings.replace(scope=ctx.scope)
        if ctx.preset:
            settings = settings.replace(retrieval=PRESETS[ctx.preset])
        if chunk:
            base = dataclasses.asdict(settings.chunk)
            base.update({k: v for k, v in chunk.items() if v is not None})
            settings = settings.replace(chunk=ChunkSettings(**base))
        if llm.enabled and llm.cache and not llm.cache_path and "://" in ctx.db:
            llm = llm.replace(cache_path=URL_STORE_CACHE)
        return settings.replace(llm=llm)
    except LoregraphError as exc:
        _fail(exc)
        raise  # unreachable: _fail exits


def _run(
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
    import asyncio

    settings = settings or _settings(ctx)

    async def main() -> T:
        if must_exist and "://" not in ctx.db and not Path(ctx.db).exists():
            raise EmptyStoreError(
                f"no database at {ctx.db}: ingest documents first "
                f"(loregraph --db {ctx.db} ingest PATH)"
            )
        store = store_for_url(ctx.db, mirror=ctx.mirror, read_only=not writes)
        graph = AsyncGraph(store, settings=settings)
        try:
            if must_exist:
                await graph.open()  # an ingest opens it once its input has been read
            return await work(graph)
        finally:
            await graph.close()

    try:
        return asyncio.run(main())
    except LoregraphError as exc:
        _fail(exc)
        raise  # unreachable: _fail exits
    except KeyboardInterrupt:
        click.echo("interrupted: completed documents are kept; run again to resume", err=True)
        sys.exit(130)


def _progress(console: Console, off: bool) -> RichProgress | PlainProgress | None:
    """Bars on a terminal, plain lines on stderr otherwise, nothing when ``off``."""
    if off:
        return None
    if console.is_terminal:
        return RichProgress(console)
    raw = os.environ.get("LOREGRAPH_PROGRESS_SECONDS", "")
    try:
        interval = float(raw) if raw else PLAIN_INTERVAL
    except ValueError:
        interval = PLAIN_INTERVAL
    return PlainProgress(sys.stderr, interval=max(interval, 0.0))


def _echo_json(payload: Any) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2, default=str))


@click.group(cls=LoregraphGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="LOREGRAPH_DB",
    default=DEFAULT_DB,
    show_default=True,
    help="Database: an SQLite file path, postgresql://..., falkordb://host:port/graph or "
    "neo4j://... (env LOREGRAPH_DB).",
)
@click.option(
    "--mirror",
    envvar="LOREGRAPH_MIRROR",
    default=None,
    help="Also keep entities and relations in this graph database (falkordb://, neo4j://) "
    "for traversal; --db stays the source of truth (env LOREGRAPH_MIRROR).",
)
@click.option(
    "--scope",
    envvar="LOREGRAPH_SCOPE",
    default=None,
    help="Container tag: tenant / agent / user partition (env LOREGRAPH_SCOPE).",
)
@click.option(
    "--preset",
    type=click.Choice(sorted(PRESETS)),
    default=None,
    help="Retrieval preset (default hybrid).",
)
@click.option(
    "--llm-provider",
    type=click.Choice(["openai", "anthropic", "none"]),
    default=None,
    help="LLM API: openai (any OpenAI-compatible server), anthropic, or none "
    "(env LOREGRAPH_LLM_PROVIDER; default none: offline).",
)
@click.option(
    "--llm-model", default=None, help="Model name sent to the server (env LOREGRAPH_LLM_MODEL)."
)
@click.option(
    "--llm-base-url",
    default=None,
    help="Server URL, e.g. http://localhost:11434/v1 for Ollama (env LOREGRAPH_LLM_BASE_URL).",
)
@click.option(
    "--llm-api-key",
    default=None,
    help="API key; prefer the env LOREGRAPH_LLM_API_KEY (options show in process lists).",
)
@click.option(
    "--llm-concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="LLM calls in flight at once (default 5).",
)
@click.option("--llm-timeout", type=float, default=None, help="Seconds per LLM call (default 120).")
@click.option(
    "--llm-no-cache",
    is_flag=True,
    default=False,
    help="Do not read or write the LLM response cache (next to the database).",
)
@click.option(
    "--prompts-dir",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="Directory of prompt files overriding the packaged ones (answer.system.txt...).",
)
@click.option(
    "--gleaning",
    type=click.IntRange(min=0),
    default=None,
    help="Extra LLM extraction rounds asking for what was missed (default 0).",
)
@click.option(
    "--persona-intents/--no-persona-intents",
    default=None,
    help="Classify questions with seed 003's persona intents (relational, temporal...).",
)
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
    db: str,
    mirror: str | None,
    scope: str | None,
    preset: str | None,
    llm_provider: str | None,
    llm_model: str | None,
    llm_base_url: str | None,
    llm_api_key: str | None,
    llm_concurrency: int | None,
    llm_timeout: float | None,
    llm_no_cache: bool,
    prompts_dir: str | None,
    gleaning: int | None,
    persona_intents: bool | None,
    quiet: bool,
) -> None:
    """loregraph: documents and memories to a knowledge graph, answered with citations.

    With no LLM configured everything runs offline. Configure one with the --llm-* options
    or LOREGRAPH_LLM_* variables (PROVIDER, MODEL, BASE_URL, API_KEY, ...). The options
    above may also follow the command (loregraph ingest notes --scope work).
    """
    overrides = {
        "provider": llm_provider,
        "model": llm_model,
        "base_url": llm_base_url,
        "api_key": llm_api_key,
        "concurrency": llm_concurrency,
        "timeout": llm_timeout,
        "cache": False if llm_no_cache else None,
        "prompts_dir": prompts_dir,
        "gleaning": gleaning,
        "persona_intents": persona_intents,
    }
    llm = {k: v for k, v in overrides.items() if v is not None}
    click_ctx.obj = Context(db=db, scope=scope, preset=preset, llm=llm, mirror=mirror, quiet=quiet)


@main.command()
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
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def ingest(
    ctx: Context,
    paths: tuple[str, ...],
    chunk_size: int | None,
    chunk_overlap: int | None,
    chunk_unit: str | None,
    doc_id: str | None,
    title: str | None,
    as_json: bool,
) -> None:
    """Ingest files, folders, JSON/JSONL records, or - for stdin.

    Folders are read for .txt and .md files, and PDF, Word, PowerPoint and HTML
    files with loregraph[docs] installed; every file skipped is listed with the reason.
    Unchanged documents are skipped, changed ones replaced (the report names them); each
    document is committed when it is done, so an interrupted run keeps them and resumes.
    """
    for path in paths:
        if path != "-" and not Path(path).exists():
            click.echo(f"error: no such file or directory: {path}", err=True)
            sys.exit(InputError.exit_code)
    if (doc_id is not None or title is not None) and "-" not in paths:
        raise click.UsageError("--id and --title name a document read from stdin: add - to PATHS")
    settings = _settings(ctx, size=chunk_size, overlap=chunk_overlap, unit=chunk_unit)
    console = Console(stderr=True)

    async def work(graph: AsyncGraph) -> Any:
        progress = _progress(console, ctx.quiet or as_json)
        if isinstance(progress, RichProgress) and graph.usage is not None:
            progress.watch(graph.usage)
        with progress if progress is not None else nullcontext():
            stdin = sys.stdin if "-" in paths else None
            return await graph.ingest(
                *paths, stdin=stdin, stdin_id=doc_id, stdin_title=title, progress=progress
            )

    report = _run(ctx, work, must_exist=False, settings=settings, writes=True)
    if as_json:
        _echo_json(report.to_dict())
    else:
        click.echo(report.summary())
    if not report.ok:
        sys.exit(1)


@main.command()
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print the answer and citations as JSON.")
@click.pass_obj
def ask(ctx: Context, question: str, as_json: bool) -> None:
    """Answer a question with citations (extractive when no LLM is configured).

    With an LLM the answer is streamed as it is written, then its sources are listed.
    """

    async def work(graph: AsyncGraph) -> tuple[Answer, bool]:
        if as_json or graph.llm is None:
            return await graph.ask(question), False
        click.echo(f"Q: {question}\n")
        stream = graph.ask_stream(question)
        async for piece in stream:
            click.echo(piece, nl=False)
        click.echo("\n")
        assert stream.answer is not None
        return stream.answer, True

    answer, streamed = _run(ctx, work)
    if streamed:
        return
    if as_json:
        _echo_json(
            {
                "question": answer.question,
                "answer": answer.text,
                "llm": answer.llm,
                "citations": [dataclasses.asdict(c) for c in answer.citations],
            }
        )
    else:
        click.echo(f"Q: {question}\n")
        click.echo(answer.text)
        click.echo()


@main.command()
@click.argument("question")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "xml", "json", "mermaid"]),
    default="markdown",
    show_default=True,
    help="Context layout.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=MIN_BUDGET),
    default=None,
    help=f"Token budget (default 4000; at least {MIN_BUDGET}).",
)
@click.pass_obj
def context(ctx: Context, question: str, fmt: str, budget: int | None) -> None:
    """Print the graph-augmented context an LLM would receive for QUESTION."""
    click.echo(_run(ctx, lambda g: g.context(question, format=fmt, budget=budget)))  # type: ignore[arg-type]


@main.command()
@click.argument("query", required=False)
@click.option(
    "--documents", "kind", flag_value="documents", default=True, help="Rank documents (default)."
)
@click.option("--entities", "kind", flag_value="entities", help="Rank entities.")
@click.option("--relations", "kind", flag_value="relations", help="Rank relations.")
@click.option(
    "--limit",
    "-k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many results (at least 1).",
)
@click.option(
    "--batch",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help='A JSONL file of {"id", "question"}: one JSON line of results each.',
)
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
@click.pass_obj
def search(
    ctx: Context, query: str | None, kind: str, limit: int, batch: str | None, as_json: bool
) -> None:
    """Ranked documents, entities or relations for QUERY."""
    if not query and not batch:
        raise click.UsageError("give a QUERY or --batch FILE")
    if batch:
        _search_batch(ctx, Path(batch), kind, limit)
        return
    assert query is not None
    hits = _run(ctx, lambda g: g.search(query, kind=kind, limit=limit))  # type: ignore[arg-type]
    if as_json:
        _echo_json([dataclasses.asdict(h) for h in hits])
        return
    if not hits:
        click.echo(f"nothing in the store is relevant to {query!r}", err=True)
    for rank, hit in enumerate(hits, 1):
        click.echo(f"{rank:>3}. {hit.score:8.4f}  {hit.title}  [{hit.id}]")


def _search_batch(ctx: Context, path: Path, kind: str, limit: int) -> None:
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            questions.append((str(item["id"]), str(item["question"])))
        except (ValueError, KeyError, TypeError):
            click.echo(f'error: {path}:{lineno}: expected {{"id", "question"}}', err=True)
            sys.exit(InputError.exit_code)

    async def work(graph: AsyncGraph) -> None:
        for qid, question in questions:
            hits = await graph.search(question, kind=kind, limit=limit)  # type: ignore[arg-type]
            click.echo(
                json.dumps(
                    {
                        "id": qid,
                        "question": question,
                        "results": [dataclasses.asdict(h) for h in hits],
                    },
                    ensure_ascii=False,
                )
            )

    _run(ctx, work)


@main.command()
@click.option("--type", "entity_type", default=None, help="Only entities of this type.")
@click.option(
    "--order",
    type=click.Choice(["mentions", "degree", "name"]),
    default="mentions",
    show_default=True,
    help="Sort order.",
)
@click.option(
    "--limit", "-n", type=click.IntRange(min=1), default=30, show_default=True, help="How many."
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def entities(ctx: Context, entity_type: str | None, order: str, limit: int, as_json: bool) -> None:
    """List entities, most mentioned first."""
    found = _run(ctx, lambda g: g.entities(entity_type=entity_type, order=order, limit=limit))
    if as_json:
        _echo_json(
            [
                {
                    "id": e.id,
                    "name": e.name,
                    "type": e.type,
                    "mentions": e.mention_count,
                    "aliases": e.aliases,
                    "description": e.description,
                }
                for e in found
            ]
        )
        return
    for e in found:
        aliases = f"  (also: {', '.join(e.aliases[:6])})" if e.aliases else ""
        click.echo(f"{e.mention_count:>6}  {e.type:<13} {e.name}{aliases}")


@main.command()
@click.argument("name")
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="How many relations.",
)
@click.option(
    "--co-occurrence/--no-co-occurrence",
    default=False,
    help="Also list plain co-occurrence (weaker evidence).",
)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def entity(ctx: Context, name: str, limit: int, co_occurrence: bool, as_json: bool) -> None:
    """Show an entity: its aliases and its relations with evidence passages."""
    view = _run(ctx, lambda g: g.entity(name, limit=None))
    rels = [r for r in view.relations if co_occurrence or r.type != CO_OCCURS][:limit]
    e = view.entity
    if as_json:
        _echo_json(
            {
                "id": e.id,
                "name": e.name,
                "type": e.type,
                "aliases": e.aliases,
                "description": e.description,
                "mentions": e.mention_count,
                "relations": [
                    {
                        "source": view.neighbours.get(r.source_id, e).name
                        if r.source_id != e.id
                        else e.name,
                        "type": r.type,
                        "target": view.neighbours.get(r.target_id, e).name
                        if r.target_id != e.id
                        else e.name,
                        "weight": r.weight,
                        "confidence": r.confidence,
                        "evidence": [ev.sentence for ev in r.evidence[:3]],
                    }
                    for r in rels
                ],
            }
        )
        return
    click.echo(f"{e.name}  [{e.type}]  {e.mention_count} mentions  id={e.id}")
    if e.aliases:
        click.echo(f"aliases: {', '.join(e.aliases)}")
    if e.description:
        click.echo(f"description: {e.description}")
    click.echo(f"\nrelations ({len(rels)} shown):")

    def label(entity_id: str) -> str:
        other = view.neighbours.get(entity_id)
        return e.name if entity_id == e.id else (other.name if other else entity_id)

    for r in rels:
        click.echo(
            f"- {label(r.source_id)} {r.type} {label(r.target_id)}  "
            f"(weight {r.weight:g}, confidence {r.confidence:.2f})"
        )
        for ev in r.evidence[:2]:
            click.echo(f"    “{ev.sentence.strip()[:300]}”")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def stats(ctx: Context, as_json: bool) -> None:
    """Counts of documents, chunks, entities, relations and mentions in the scope."""

    async def work(graph: AsyncGraph) -> tuple[Any, dict[str, Any]]:
        st = await graph.stats()
        others = await graph.scopes() if st.documents == 0 else {}
        return st, others

    st, others = _run(ctx, work)
    if as_json:
        _echo_json(dataclasses.asdict(st))
        return
    scope = ctx.scope or _settings(ctx).scope
    if st.documents == 0 and others:
        listed = ", ".join(
            f"{name} ({o.documents} document{'s' if o.documents != 1 else ''})"
            for name, o in others.items()
        )
        click.echo(
            f"scope {scope!r} holds no documents; scopes with data: {listed}. "
            "Choose one with --scope NAME (see loregraph scopes).",
            err=True,
        )
    click.echo(
        f"documents {st.documents}  chunks {st.chunks}  entities {st.entities}  "
        f"relations {st.relations}  mentions {st.mentions}  "
        f"schema v{st.schema_version}"
    )
    if st.entity_types:
        click.echo(
            "entity types: "
            + ", ".join(
                f"{k} {v}" for k, v in sorted(st.entity_types.items(), key=lambda kv: -kv[1])
            )
        )
    if st.relation_types:
        top = sorted(st.relation_types.items(), key=lambda kv: -kv[1])[:12]
        click.echo("top relation types: " + ", ".join(f"{k} {v}" for k, v in top))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def scopes(ctx: Context, as_json: bool) -> None:
    """List the scopes that hold data, with their counts."""
    found = _run(ctx, lambda g: g.scopes())
    if as_json:
        _echo_json({name: dataclasses.asdict(st) for name, st in found.items()})
        return
    if not found:
        click.echo("no scope holds any data yet")
        return
    width = max(len(name) for name in found)
    click.echo(f"{'scope':<{width}}  documents  chunks  entities  relations")
    for name, st in found.items():
        click.echo(
            f"{name:<{width}}  {st.documents:>9}  {st.chunks:>6}  {st.entities:>8}  "
            f"{st.relations:>9}"
        )


@main.command()
@click.argument("path")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "graphml"]),
    default=None,
    help="Output format (default: from the file extension, else json).",
)
@click.pass_obj
def export(ctx: Context, path: str, fmt: str | None) -> None:
    """Export the graph as JSON or GraphML to PATH (- for standard output)."""
    chosen = fmt or ("graphml" if path.lower().endswith(".graphml") else "json")
    if path == "-":
        out = sys.stdout.buffer
        count = _run(ctx, lambda g: g.export(out, format=chosen))  # type: ignore[arg-type]
        click.echo(f"wrote {count} entities to standard output ({chosen})", err=True)
        return
    count = _run(ctx, lambda g: g.export(path, format=chosen))  # type: ignore[arg-type]
    click.echo(f"wrote {count} entities to {path} ({chosen})")


@main.command("copy")
@click.argument("source")
@click.argument("dest")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="Copy only this scope (repeat for several; default: every scope).",
)
@click.option("--merge", is_flag=True, help="Add to a DEST that already holds other documents.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def copy_command(
    source: str, dest: str, scopes: tuple[str, ...], merge: bool, as_json: bool
) -> None:
    """Copy a whole store from SOURCE to DEST (file paths or database URLs).

    Documents DEST already holds are skipped, so an interrupted copy resumes. A DEST that
    holds documents SOURCE does not is refused unless --merge is given.
    """
    import asyncio

    from loregraph.copy import copy_locations

    quiet = bool(click.get_current_context().find_root().params.get("quiet"))
    bars = _progress(Console(stderr=True), quiet or as_json)

    async def work() -> Any:
        with bars if bars is not None else nullcontext():
            return await copy_locations(
                source, dest, scopes=scopes or None, merge=merge, progress=bars
            )

    try:
        report = asyncio.run(work())
    except LoregraphError as exc:
        _fail(exc)
        return
    except KeyboardInterrupt:
        click.echo("interrupted: copied documents are kept; run again to resume", err=True)
        sys.exit(130)
    if as_json:
        _echo_json(report.to_dict())
    else:
        click.echo(report.summary())
    if not merge and not report.matches:
        sys.exit(1)


@main.command()
@click.argument("document")
@click.pass_obj
def delete(ctx: Context, document: str) -> None:
    """Delete a DOCUMENT (id, source path or title) and exactly what only it supported."""
    report = _run(ctx, lambda g: g.delete(document), writes=True)
    click.echo(
        f"deleted {report.document_id}: {report.chunks} chunks, {report.mentions} mentions, "
        f"{report.entities_removed} entities and {report.relations_removed} relations removed, "
        f"{report.relations_weakened} relations weakened"
    )


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def documents(ctx: Context, as_json: bool) -> None:
    """List ingested documents."""
    docs = _run(ctx, lambda g: g.documents())
    if as_json:
        _echo_json(
            [
                {
                    "id": d.id,
                    "title": d.title,
                    "source": d.source,
                    "chars": d.char_count,
                    "status": str(d.status),
                }
                for d in docs
            ]
        )
        return
    for d in docs:
        click.echo(f"{d.id}  {d.char_count:>9} chars  {d.title}  ({d.source})")


if __name__ == "__main__":
    main()

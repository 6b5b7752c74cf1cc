"""Questions: ``search`` (ranked hits), ``context`` (what an LLM would read), ``ask``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from loregraph import (
    MIN_BUDGET,
    Answer,
    AsyncGraph,
    ContextFormat,
    InputError,
    Only,
    Persona,
    SearchKind,
    read_persona,
)
from loregraph.cli.options import (
    format_option,
    json_option,
    limit_option,
    only_option,
    persona_options,
    show_ended_option,
)
from loregraph.cli.runner import Context, echo_json, run_graph
from loregraph.cli.support import fail


def persona_named(persona: str | None) -> str | Persona | None:
    """``--persona``: a persona's name, or the path of a persona file (read here)."""
    if persona is not None and persona.endswith((".yaml", ".yml")):
        return read_persona(persona)
    return persona


@click.command()
@click.argument("question")
@json_option("the answer and citations")
@only_option
@show_ended_option
@persona_options
@click.pass_obj
def ask(
    ctx: Context,
    question: str,
    as_json: bool,
    only: Only | None,
    show_ended: bool | None,
    persona: str | None,
    turns: tuple[str, ...],
) -> None:
    """Answer a question with citations (extractive when no LLM is configured).

    The answer is printed as it is written, then its sources are listed.
    """

    async def work(graph: AsyncGraph) -> Answer:
        chosen = persona_named(persona)
        if as_json:
            return await graph.ask(
                question,
                **ctx.when(),
                show_ended=show_ended,
                only=only,
                persona=chosen,
                history=turns,
            )
        stream = graph.ask_stream(
            question,
            **ctx.when(),
            show_ended=show_ended,
            only=only,
            persona=chosen,
            history=turns,
        )
        shown = False  # the question is shown once retrieval has worked
        async for piece in stream:
            if not shown:
                click.echo(f"Q: {question}\n")
                shown = True
            click.echo(piece, nl=False)
        click.echo("\n")
        assert stream.answer is not None
        return stream.answer

    answer = run_graph(ctx, work)
    if as_json:
        echo_json(answer.to_dict())


@click.command()
@click.argument("question")
@format_option(["markdown", "xml", "json", "mermaid"], "markdown", "Context layout.")
@click.option(
    "--budget",
    type=click.IntRange(min=MIN_BUDGET),
    default=None,
    help=f"Token budget (default 4000; at least {MIN_BUDGET}).",
)
@only_option
@show_ended_option
@persona_options
@click.pass_obj
def context(
    ctx: Context,
    question: str,
    fmt: ContextFormat,
    budget: int | None,
    only: Only | None,
    show_ended: bool | None,
    persona: str | None,
    turns: tuple[str, ...],
) -> None:
    """Print the graph-augmented context an LLM would receive for QUESTION (with
    --persona: by category, with how each passage was found)."""
    text = run_graph(
        ctx,
        lambda g: g.context(
            question,
            format=fmt,
            budget=budget,
            **ctx.when(),
            show_ended=show_ended,
            only=only,
            persona=persona_named(persona),
            history=turns,
        ),
    )
    click.echo(text)


@click.command()
@click.argument("query", required=False)
@click.option(
    "--documents", "kind", flag_value="documents", default=True, help="Rank documents (default)."
)
@click.option("--entities", "kind", flag_value="entities", help="Rank entities.")
@click.option("--relations", "kind", flag_value="relations", help="Rank relations.")
@limit_option(10, "-k", "How many results (at least 1).")
@click.option(
    "--batch",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help='A JSONL file of {"id", "question"}: one JSON line of results each.',
)
@json_option("results")
@only_option
@click.pass_obj
def search(
    ctx: Context,
    query: str | None,
    kind: SearchKind,
    limit: int,
    batch: str | None,
    as_json: bool,
    only: Only | None,
) -> None:
    """Ranked documents, entities or relations for QUERY."""
    if not query and not batch:
        raise click.UsageError("give a QUERY or --batch FILE")
    if batch:
        _search_batch(ctx, Path(batch), kind, limit, only)
        return
    assert query is not None
    hits = run_graph(
        ctx, lambda g: g.search(query, kind=kind, limit=limit, **ctx.when(), only=only)
    )
    if as_json:
        echo_json(hits.to_dict())
        return
    if not hits:
        click.echo(f"nothing in the store matches {query!r}", err=True)
    elif not hits.relevant:
        click.echo(
            f"nothing in the store looks relevant to {query!r} (it covers "
            f"{hits.relevance:.0%} of the query's weighted terms, {hits.threshold:.0%} "
            "needed); the closest matches:",
            err=True,
        )
    for rank, hit in enumerate(hits, 1):
        mark = " " if hit.relevant else "?"
        click.echo(f"{rank:>3}. {hit.score:8.4f} {mark} {hit.title}  [{hit.id}]")


def _search_batch(
    ctx: Context, path: Path, kind: SearchKind, limit: int, only: Only | None
) -> None:
    """One JSON line per question of a JSONL file, in the file's order."""
    questions = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            questions.append((str(item["id"]), str(item["question"])))
        except (ValueError, KeyError, TypeError):
            fail(f'{path}:{lineno}: expected {{"id", "question"}}', InputError.exit_code)

    async def work(graph: AsyncGraph) -> None:
        for qid, question in questions:
            hits = await graph.search(question, kind=kind, limit=limit, **ctx.when(), only=only)
            results = [hit.to_dict() for hit in hits]
            line = {
                "id": qid,
                "question": question,
                "relevant": hits.relevant,
                "relevance": round(hits.relevance, 4),
                "results": results,
            }
            click.echo(json.dumps(line, ensure_ascii=False))

    run_graph(ctx, work)


COMMANDS = (ask, context, search)

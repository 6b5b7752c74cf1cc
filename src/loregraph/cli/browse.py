"""Looking around a store: ``entities``, ``entity``, ``documents``, ``stats``, ``scopes``."""

from __future__ import annotations

import dataclasses

import click

from loregraph import CO_OCCURS, AsyncGraph, EntityView, StoreStats
from loregraph.cli.options import json_option, limit_option
from loregraph.cli.runner import Context, echo_json, run_graph, settings_for


@click.command()
@click.option("--type", "entity_type", default=None, help="Only entities of this type.")
@click.option(
    "--order",
    type=click.Choice(["mentions", "degree", "name"]),
    default="mentions",
    show_default=True,
    help="Sort order.",
)
@limit_option(30, "-n", "How many.")
@json_option()
@click.pass_obj
def entities(ctx: Context, entity_type: str | None, order: str, limit: int, as_json: bool) -> None:
    """List entities, most mentioned first."""
    found = run_graph(
        ctx, lambda g: g.explore.entities(entity_type=entity_type, order=order, limit=limit)
    )
    if as_json:
        echo_json([e.to_dict() for e in found])
        return
    for e in found:
        aliases = f"  (also: {', '.join(e.aliases[:6])})" if e.aliases else ""
        click.echo(f"{e.mention_count:>6}  {e.type:<13} {e.name}{aliases}")


@click.command()
@click.argument("name")
@limit_option(25, "-n", "How many relations.")
@click.option(
    "--co-occurrence/--no-co-occurrence",
    default=False,
    help="Also list plain co-occurrence (weaker evidence).",
)
@json_option()
@click.pass_obj
def entity(ctx: Context, name: str, limit: int, co_occurrence: bool, as_json: bool) -> None:
    """Show an entity: its aliases and its relations with evidence passages."""
    view = run_graph(ctx, lambda g: g.explore.entity(name, limit=None, **ctx.when()))
    rels = [r for r in view.relations if co_occurrence or r.type != CO_OCCURS][:limit]
    view = dataclasses.replace(view, relations=rels)
    if as_json:
        echo_json(view.to_dict())
    else:
        _show_entity(view)


def _show_entity(view: EntityView) -> None:
    e = view.entity
    click.echo(f"{e.name}  [{e.type}]  {e.mention_count} mentions  id={e.id}")
    if e.aliases:
        click.echo(f"aliases: {', '.join(e.aliases)}")
    if e.description:
        click.echo(f"description: {e.description}")
    click.echo(f"\nrelations ({len(view.relations)} shown):")

    def label(entity_id: str) -> str:
        other = view.neighbours.get(entity_id)
        return e.name if entity_id == e.id else (other.name if other else entity_id)

    for r in view.relations:
        click.echo(
            f"- {label(r.source_id)} {r.type} {label(r.target_id)}  "
            f"(weight {r.weight:g}, confidence {r.confidence:.2f})"
        )
        for ev in r.evidence[:2]:
            click.echo(f"    “{ev.sentence.strip()[:300]}”")


@click.command()
@json_option()
@click.pass_obj
def stats(ctx: Context, as_json: bool) -> None:
    """Counts of documents, chunks, entities, relations and mentions in the scope."""

    async def work(graph: AsyncGraph) -> tuple[StoreStats, dict[str, StoreStats]]:
        st = await graph.stats()
        others = await graph.scopes() if st.documents == 0 else {}
        return st, others

    st, others = run_graph(ctx, work)
    if as_json:
        echo_json(st.to_dict())
        return
    scope = ctx.scope or settings_for(ctx).scope
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
        by_count = sorted(st.entity_types.items(), key=lambda kv: -kv[1])
        click.echo("entity types: " + ", ".join(f"{k} {v}" for k, v in by_count))
    if st.relation_types:
        top = sorted(st.relation_types.items(), key=lambda kv: -kv[1])[:12]
        click.echo("top relation types: " + ", ".join(f"{k} {v}" for k, v in top))


@click.command()
@json_option()
@click.pass_obj
def scopes(ctx: Context, as_json: bool) -> None:
    """List the scopes that hold data, with their counts."""
    found = run_graph(ctx, lambda g: g.scopes())
    if as_json:
        echo_json({name: st.to_dict() for name, st in found.items()})
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


@click.command()
@json_option()
@click.pass_obj
def documents(ctx: Context, as_json: bool) -> None:
    """List ingested documents."""
    docs = run_graph(ctx, lambda g: g.documents())
    if as_json:
        echo_json([d.to_dict() for d in docs])
        return
    for d in docs:
        readers = "" if d.visibility == "public" else f"  [{d.visibility}: {d.owner or '-'}]"
        click.echo(f"{d.id}  {d.char_count:>9} chars  {d.title}  ({d.source}){readers}")


COMMANDS = (entities, entity, stats, scopes, documents)

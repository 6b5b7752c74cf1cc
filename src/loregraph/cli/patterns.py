"""Graph queries by name: ``relations`` (of an entity), ``neighbors`` (its neighbourhood,
also as a mermaid or GraphML subgraph), ``path`` (between two entities) and ``impact``
(what depends on an entity)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import click

from loregraph import (
    MAX_HOPS,
    Direction,
    EntityLink,
    EntityRelations,
    Impact,
    Neighbourhood,
    evidence_sentence,
    subgraph_text,
)
from loregraph.cli.options import format_option, json_option, limit_option
from loregraph.cli.runner import Context, echo_json, run_graph

F = TypeVar("F", bound=Callable[..., Any])


def _type_option(function: F) -> F:
    """``--type`` (repeatable, parameter ``types``): only relations of these types."""
    return click.option(
        "--type",
        "types",
        multiple=True,
        help="Only relations of this type (repeat for several).",
    )(function)


def _hops_option(name: str, default: int, help: str) -> Callable[[F], F]:
    """A hop count option, from 1 to the most a query accepts."""
    return click.option(
        name, type=click.IntRange(1, MAX_HOPS), default=default, show_default=True, help=help
    )


@click.command()
@click.argument("name")
@click.option("--out", "direction", flag_value="out", help="Only relations from NAME.")
@click.option("--in", "direction", flag_value="in", help="Only relations to NAME.")
@click.option(
    "--both", "direction", flag_value="both", default=True, help="Both ways (the default)."
)
@_type_option
@limit_option(50, "-n", "How many relations.")
@json_option()
@click.pass_obj
def relations(
    ctx: Context,
    name: str,
    direction: Direction,
    types: tuple[str, ...],
    limit: int,
    as_json: bool,
) -> None:
    """List the relations of entity NAME (outgoing and incoming), heaviest first, with the
    other end, confidence and evidence."""
    found = run_graph(
        ctx,
        lambda g: g.explore.relations(
            name, direction=direction, type=list(types) or None, limit=limit, **ctx.when()
        ),
    )
    if as_json:
        echo_json(found.to_dict())
    else:
        _show_relations(found)


def _span(link: EntityLink) -> str:
    """``, 2026-01-15 → 2026-02-10`` for a relation with a time, else ``""``."""
    rel = link.relation
    if rel.valid_at is None and rel.invalid_at is None:
        return ""
    start = rel.valid_at.date().isoformat() if rel.valid_at else "?"
    end = rel.invalid_at.date().isoformat() if rel.invalid_at else "now"
    return f", {start} → {end}"


def _show_relations(found: EntityRelations) -> None:
    e = found.entity
    click.echo(f"{e.name}  [{e.type}]  {len(found.links)} relation(s)")
    for link in found.links:
        other = f"{link.other_name} [{link.other.type}]" if link.other else link.other_name
        arrow = (
            f"-[{link.relation.type}]->"
            if link.direction == "out"
            else (f"<-[{link.relation.type}]-")
        )
        click.echo(f"  {arrow} {other}  (confidence {link.relation.confidence:.2f}){_span(link)}")
        sentence = evidence_sentence(link.relation)
        if sentence:
            click.echo(f"      “{sentence[:300]}”")


@click.command()
@click.argument("name")
@_hops_option("--hops", 1, "How many relations away.")
@_type_option
@limit_option(100, "-n", "At most this many entities.")
@format_option(["text", "json", "mermaid", "graphml"], "text", "Output: a list, or the subgraph.")
@json_option("the neighbourhood")
@click.pass_obj
def neighbors(
    ctx: Context,
    name: str,
    hops: int,
    types: tuple[str, ...],
    limit: int,
    fmt: str,
    as_json: bool,
) -> None:
    """List the entities within --hops relations of entity NAME, with their distance, and
    the relations joining them (--format mermaid or graphml draws the subgraph)."""
    found = run_graph(
        ctx,
        lambda g: g.explore.neighbors(
            name, hops=hops, limit=limit, type=list(types) or None, **ctx.when()
        ),
    )
    if as_json or fmt == "json":
        echo_json(found.to_dict())
    elif fmt != "text":
        drawn: Literal["mermaid", "graphml"] = "mermaid" if fmt == "mermaid" else "graphml"
        click.echo(subgraph_text(found.ordered(), found.relations, drawn), nl=False)
    else:
        _show_neighbourhood(found)


def _show_neighbourhood(found: Neighbourhood) -> None:
    entities = found.ordered()
    click.echo(f"{found.centre.name}: {len(entities) - 1} entities within {found.hops} hop(s)")
    for e in entities[1:]:
        click.echo(f"  {found.distance[e.id]}  {e.type:<13} {e.name}")
    names = found.names()
    click.echo(f"\nrelations ({len(found.relations)}):")
    for r in found.relations:
        click.echo(f"  {names[r.source_id]} -[{r.type}]-> {names[r.target_id]}")


@click.command()
@click.argument("source")
@click.argument("target")
@_hops_option("--max-hops", 3, "The longest path looked for, in relations.")
@_type_option
@limit_option(5, "-n", "How many shortest paths.")
@json_option()
@click.pass_obj
def path(
    ctx: Context,
    source: str,
    target: str,
    max_hops: int,
    types: tuple[str, ...],
    limit: int,
    as_json: bool,
) -> None:
    """Show the shortest paths between entities SOURCE and TARGET, each step with its
    relation type and an evidence sentence."""
    found = run_graph(
        ctx,
        lambda g: g.explore.path(
            source,
            target,
            max_hops=max_hops,
            limit=limit,
            type=list(types) or None,
            **ctx.when(),
        ),
    )
    if as_json:
        echo_json([p.to_dict() for p in found])
        return
    for number, graph_path in enumerate(found, 1):
        click.echo(f"{number}. {graph_path.text()}")  # the route once, then each step's evidence
        for step in graph_path.to_dict()["steps"]:
            said = f"“{step['evidence'][:300]}”" if step["evidence"] else "(no sentence)"
            click.echo(f"     {step['type']}: {said}")


@click.command()
@click.argument("name")
@click.option(
    "--hops", type=click.IntRange(1, 10), default=3, show_default=True, help="How many steps."
)
@limit_option(100, "-n", "At most this many dependents.")
@json_option("the dependents")
@click.pass_obj
def impact(ctx: Context, name: str, hops: int, limit: int, as_json: bool) -> None:
    """List what depends on entity NAME, transitively, nearest first: its callers and
    theirs, the files that import it, its subclasses, the projects that depend on it —
    what a change to it may break."""
    found = run_graph(ctx, lambda g: g.explore.impact(name, hops=hops, limit=limit))
    if as_json:
        echo_json(found.to_dict())
    else:
        _show_impact(found)


def _show_impact(found: Impact) -> None:
    count = len(found.dependents)
    click.echo(f"{found.entity}  [{found.type}]: {count} dependent(s) within {found.hops} step(s)")
    for d in found.dependents:
        click.echo(f"  {d.distance}  {d.type:<13} {d.name}  ({d.via} {d.on})")


COMMANDS = (relations, neighbors, path, impact)

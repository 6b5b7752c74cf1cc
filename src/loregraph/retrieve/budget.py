"""Fit a retrieval result into a token budget (a budget per category).

The budget is split between the graph section (entities and relations), the passages and
their sources. Items go in by descending score until their category is spent; what a
category leaves unused flows to the others; the last passage that does not fit whole is
truncated rather than dropped. The rendered text is then counted exactly (cl100k) and
trimmed until it fits: the budget is never exceeded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from loregraph.retrieve.focus import focused_passages
from loregraph.retrieve.result import Passage, RankedEntity, RankedRelation, RetrievalResult
from loregraph.retrieve.trace import StageRecord, Stopwatch
from loregraph.text.tokens import count_tokens, truncate_to_tokens

GRAPH_SHARE = 0.30
PASSAGE_SHARE = 0.60
SOURCE_SHARE = 0.10
RELATIONSHIP_GRAPH_SHARE = 0.45
MIN_TRUNCATED_TOKENS = 24
ELLIPSIS = " …"
MAX_REFITS = 60


@dataclass(slots=True)
class ContextView:
    """The part of a result that fits: what a renderer prints."""

    result: RetrievalResult
    entities: list[RankedEntity] = field(default_factory=list)
    relations: list[RankedRelation] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    truncated: bool = False


class Renderer(Protocol):
    """A context format: per-item renderings (for costing) and the full rendering."""

    sections: frozenset[str]

    def entity_item(self, entity: RankedEntity) -> str:
        """One entity as it appears in the output."""
        ...

    def relation_item(self, relation: RankedRelation) -> str:
        """One relation as it appears in the output."""
        ...

    def passage_item(self, index: int, passage: Passage) -> str:
        """One numbered passage (and its source line) as it appears in the output."""
        ...

    def render(self, view: ContextView) -> str:
        """The whole context."""
        ...


def _fill(items: list[str], costs: Callable[[str], int], allowance: int) -> tuple[int, int]:
    """How many leading items fit in ``allowance`` tokens, and the tokens they use."""
    used = 0
    for n, item in enumerate(items):
        cost = costs(item)
        if used + cost > allowance:
            return n, used
        used += cost
    return len(items), used


@lru_cache(maxsize=16_384)
def _cost(text: str) -> int:
    """Tokens of one item plus its separator; cached (the same passages recur across queries)."""
    return count_tokens(text) + 1


def fit_budget(result: RetrievalResult, renderer: Renderer, budget: int) -> tuple[ContextView, str]:
    """The largest view of ``result`` whose rendering fits in ``budget`` tokens, rendered.

    Records the fit as the ``budget`` stage of ``result.trace.context``.
    """
    watch = Stopwatch()
    view, text = _fit(result, renderer, max(0, budget))
    result.trace.context = StageRecord(
        "budget",
        watch.ms(),
        len(view.passages),
        details={
            "budget": max(0, budget),
            "entities": len(view.entities),
            "relations": len(view.relations),
            "truncated": view.truncated,
        },
    )
    return view, text


def _fit(result: RetrievalResult, renderer: Renderer, budget: int) -> tuple[ContextView, str]:
    """:func:`fit_budget` without the trace record."""
    view = ContextView(result=result)
    overhead = count_tokens(renderer.render(view))
    available = budget - overhead
    if available <= 0:
        return view, _shrink_to_fit(view, renderer, budget)

    has_graph = "graph" in renderer.sections and bool(result.entities or result.relations)
    has_passages = "passages" in renderer.sections and bool(result.passages)
    graph_share = (
        RELATIONSHIP_GRAPH_SHARE if result.analysis.intent == "relationship" else GRAPH_SHARE
    )
    if not has_passages:
        graph_share = 1.0
    elif not has_graph:
        graph_share = 0.0

    ent_lines = [renderer.entity_item(e) for e in result.entities] if has_graph else []
    rel_lines = [renderer.relation_item(r) for r in result.relations] if has_graph else []

    # Graph section: half for entities, half for relations, each lending what it leaves.
    graph_allow = int(available * graph_share)
    n_ent, used_ent = _fill(ent_lines, _cost, graph_allow // 2)
    n_rel, used_rel = _fill(rel_lines, _cost, graph_allow - used_ent)
    if n_ent < len(ent_lines):
        more, extra = _fill(ent_lines[n_ent:], _cost, graph_allow - used_ent - used_rel)
        n_ent, used_ent = n_ent + more, used_ent + extra
    graph_used = used_ent + used_rel

    # Passages with their sources: everything the graph did not use.
    passages: list[Passage] = []
    room = available - graph_used
    if has_passages:
        candidates = focused_passages([*result.passages, *result.reserve], result.focus)
        for index, passage in enumerate(candidates, start=1):
            cost = _cost(renderer.passage_item(index, passage))
            if cost <= room:
                passages.append(passage)
                room -= cost
                continue
            shell = _cost(renderer.passage_item(index, dataclasses.replace(passage, text="")))
            keep = room - shell - count_tokens(ELLIPSIS)
            if keep >= MIN_TRUNCATED_TOKENS:
                text = truncate_to_tokens(passage.text, keep).rstrip() + ELLIPSIS
                passages.append(dataclasses.replace(passage, text=text))
                view.truncated = True
                room = 0
            break

    # Whatever the passages left goes back to the graph.
    if room > 0 and has_graph:
        more, used = _fill(ent_lines[n_ent:], _cost, room // 2)
        n_ent += more
        room -= used
        more, used = _fill(rel_lines[n_rel:], _cost, room)
        n_rel += more
        room -= used
        more, used = _fill(ent_lines[n_ent:], _cost, room)
        n_ent += more

    view.entities = list(result.entities[:n_ent])
    view.relations = list(result.relations[:n_rel])
    view.passages = passages
    return view, _shrink_to_fit(view, renderer, budget)


def _shrink_to_fit(view: ContextView, renderer: Renderer, budget: int) -> str:
    """Trim the view until its exact rendering fits (item costs are close, not exact)."""
    text = renderer.render(view)
    for _ in range(MAX_REFITS):
        over = count_tokens(text) - budget
        if over <= 0:
            return text
        view.truncated = True
        if view.passages:
            last = view.passages[-1]
            body = last.text.removesuffix(ELLIPSIS)
            keep = count_tokens(body) - over - 4
            if keep >= MIN_TRUNCATED_TOKENS:
                text_kept = truncate_to_tokens(body, keep).rstrip() + ELLIPSIS
                view.passages[-1] = dataclasses.replace(last, text=text_kept)
            else:
                view.passages.pop()
        elif view.relations and (len(view.relations) >= len(view.entities)):
            view.relations.pop()
        elif view.entities:
            view.entities.pop()
        else:
            break
        text = renderer.render(view)
    # last resort: cut the text itself
    return text if count_tokens(text) <= budget else truncate_to_tokens(text, budget)

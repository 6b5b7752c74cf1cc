"""Fit a retrieval result into a token budget (a budget per category).

The graph section (entities and relations) is offered a share of the budget by the
question's intent (a tenth for a fact, 45% for a relationship between two or more entities
the question names, 30% otherwise); the passages, each focused on the sentences that answer
(:mod:`loregraph.retrieve.question.focus`) except the first :data:`WHOLE_FIRST` when each costs at
most :data:`WHOLE_SHARE` of the budget, fill the rest in rank order; then the graph lines
that add something to those passages (:mod:`loregraph.retrieve.context.worth`) fill what is left,
and what they leave goes back to the passages. The last passage that does not fit whole is
truncated rather than dropped. The rendered text is then counted exactly (cl100k) and
trimmed until it fits: the budget is never exceeded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from loregraph.retrieve.context.worth import ShownText, entity_adds, relation_adds
from loregraph.retrieve.graph.pages import named_entities
from loregraph.retrieve.question.focus import focused_passages
from loregraph.retrieve.results.result import Passage, RankedEntity, RankedRelation, RetrievalResult
from loregraph.retrieve.results.trace import StageRecord, Stopwatch
from loregraph.text.tokens import count_tokens, truncate_to_tokens

GRAPH_SHARE = 0.30
FACT_GRAPH_SHARE = 0.10
RELATIONSHIP_GRAPH_SHARE = 0.45
"""The graph's share for a relationship question that names two or more known entities
(:func:`~loregraph.retrieve.graph.pages.named_entities`: capitalised mentions, so a common word
that matches an entity, "plain" or "lock", is no name); one naming fewer ("Is there a
performance difference between char(n), varchar(n) and text?") gets :data:`GRAPH_SHARE`,
as the graph holds no relation of its own to show. Measured on the long-document questions
of ``bench/longdoc.py``: one more quick-manual question answered at 2,000 tokens and one
more whole-manual question at 500, the novel unchanged."""
MIN_TRUNCATED_TOKENS = 24
ELLIPSIS = " …"
MAX_REFITS = 60
WHOLE_FIRST = 3
"""How many of the best-ranked passages may be shown whole rather than focused."""
WHOLE_SHARE = 0.2
"""A best-ranked passage is shown whole when it costs at most this share of the budget
(a 1,000-character chunk from 1,200 tokens up). Measured on the long-document questions of
``bench/longdoc.py``: at 2,000 tokens the default preset's context holds the answer for 3
more of the 78 novel questions and 2 more of the 41 manual ones than with every passage
focused (the focus had kept a sentence next to the answer rather than the answer); at 500
and 1,000 tokens nothing changes on the novel."""


@dataclass(slots=True)
class ContextView:
    """The part of a result that fits: what a renderer prints."""

    result: RetrievalResult
    entities: list[RankedEntity] = field(default_factory=list)
    relations: list[RankedRelation] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    truncated: bool = False
    passages_first: bool = False


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


def _graph_share(result: RetrievalResult, has_graph: bool, has_passages: bool) -> float:
    """The share of the budget the graph section is offered before the passages fill."""
    if not has_passages:
        return 1.0
    if not has_graph:
        return 0.0
    intent = result.analysis.intent
    if intent == "relationship" and len(named_entities(result.analysis)) >= 2:
        return RELATIONSHIP_GRAPH_SHARE
    return FACT_GRAPH_SHARE if intent == "factual" else GRAPH_SHARE


class _PassageFill:
    """Fills focused passages in rank order, in rounds, truncating the last when asked."""

    def __init__(self, result: RetrievalResult, renderer: Renderer, budget: int) -> None:
        self.renderer = renderer
        self.pending = focused_passages(
            [*result.passages, *result.reserve],
            result.focus,
            whole_first=WHOLE_FIRST,
            whole_tokens=int(budget * WHOLE_SHARE),
        )
        self.next: Passage | None = None
        self.chosen: list[Passage] = []
        self.truncated = False
        self.done = False

    def fill(self, room: int, *, truncate: bool) -> int:
        """Add passages within ``room`` tokens; returns the tokens used."""
        used = 0
        while not self.done:
            passage = self.next or next(self.pending, None)
            self.next = None
            if passage is None:
                self.done = True
                break
            index = len(self.chosen) + 1
            cost = _cost(self.renderer.passage_item(index, passage))
            if used + cost <= room:
                self.chosen.append(passage)
                used += cost
                continue
            self.next = passage
            if truncate:
                used += self._truncated(index, passage, room - used)
            break
        return used

    def _truncated(self, index: int, passage: Passage, room: int) -> int:
        shell = _cost(self.renderer.passage_item(index, dataclasses.replace(passage, text="")))
        keep = room - shell - count_tokens(ELLIPSIS)
        if keep < MIN_TRUNCATED_TOKENS:
            return 0
        text = truncate_to_tokens(passage.text, keep).rstrip() + ELLIPSIS
        cut = dataclasses.replace(passage, text=text)
        self.chosen.append(cut)
        self.truncated = self.done = True
        return _cost(self.renderer.passage_item(index, cut))


def _fill_graph(ent_lines: list[str], rel_lines: list[str], allowance: int) -> tuple[int, int, int]:
    """How many entity and relation lines fit (half each, lending what one leaves)."""
    n_ent, used_ent = _fill(ent_lines, _cost, allowance // 2)
    n_rel, used_rel = _fill(rel_lines, _cost, allowance - used_ent)
    if n_ent < len(ent_lines):
        more, extra = _fill(ent_lines[n_ent:], _cost, allowance - used_ent - used_rel)
        n_ent, used_ent = n_ent + more, used_ent + extra
    return n_ent, n_rel, used_ent + used_rel


def _fit(result: RetrievalResult, renderer: Renderer, budget: int) -> tuple[ContextView, str]:
    """:func:`fit_budget` without the trace record.

    Passages fill what the graph's share leaves; the graph lines that add something to the
    passages chosen (:mod:`loregraph.retrieve.context.worth`) then fill the rest; what the graph
    leaves goes back to the passages, the last one truncated rather than dropped.
    """
    view = ContextView(result=result, passages_first=result.analysis.intent == "factual")
    overhead = count_tokens(renderer.render(view))
    available = budget - overhead
    if available <= 0:
        return view, _shrink_to_fit(view, renderer, budget)

    has_graph = "graph" in renderer.sections and bool(result.entities or result.relations)
    has_passages = "passages" in renderer.sections and bool(result.passages)
    graph_allow = int(available * _graph_share(result, has_graph, has_passages))

    fill = _PassageFill(result, renderer, budget)
    used = fill.fill(available - graph_allow, truncate=not has_graph) if has_passages else 0
    entities: list[RankedEntity] = []
    relations: list[RankedRelation] = []
    if has_graph:
        shown = ShownText(fill.chosen, strict=view.passages_first and has_passages)
        entities = [e for e in result.entities if entity_adds(e, shown)]
        types = {e.entity.id: e.entity.type for e in result.entities}
        relations = [r for r in result.relations if relation_adds(r, shown, types)]
        ent_lines = [renderer.entity_item(e) for e in entities]
        rel_lines = [renderer.relation_item(r) for r in relations]
        n_ent, n_rel, graph_used = _fill_graph(ent_lines, rel_lines, available - used)
        entities, relations = entities[:n_ent], relations[:n_rel]
        used += graph_used
        if has_passages:
            used += fill.fill(available - used, truncate=True)

    view.entities = entities
    view.relations = relations
    view.passages = fill.chosen
    view.truncated = fill.truncated
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

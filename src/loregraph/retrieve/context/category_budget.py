"""The context of a question asked through a persona: a budget per category.

Categories, in the order they are shown:

* the **relationship map** (``## Known connections``): the relations the traversal crossed,
  at most :data:`MAP_TOKENS` tokens;
* the **primary results** (``## Relevant passages``): passages the question's words or
  meaning found, :data:`PRIMARY_SHARE` of what the map leaves;
* the **graph-discovered results** (``## Found through connections`` and ``## From linked
  scopes``): passages only the graph traversal or a linked scope found,
  :data:`GRAPH_SHARE`;
* the **provenance** markers, one line under each passage saying how it was found and
  through which link a linked scope's passage was shared, :data:`PROVENANCE_SHARE`.

Passages go in by descending combined score (:mod:`.lens`), each cut to the sentences about
the question (:mod:`.focus`), until their category is spent; the one that no longer fits
whole is truncated. What one passage category leaves unspent is then offered to the other.
Markers are shown in passage order while the provenance share lasts. The rendered text is
counted exactly and trimmed until it fits the budget.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from loregraph.retrieve.context.budget import (
    ELLIPSIS,
    MAX_REFITS,
    MIN_TRUNCATED_TOKENS,
    _cost,
    _fill,
)
from loregraph.retrieve.context.formats import dated, source_label
from loregraph.retrieve.question.focus import focused_passages
from loregraph.retrieve.results.provenance import PassageSource
from loregraph.retrieve.results.result import Passage, RetrievalResult
from loregraph.text.tokens import count_tokens, truncate_to_tokens

MAP_TOKENS = 200
PRIMARY_SHARE = 0.60
GRAPH_SHARE = 0.30
PROVENANCE_SHARE = 0.10

_HEADINGS = {
    "primary": "## Relevant passages",
    "graph": "## Found through connections",
    "linked": "## From linked scopes",
}


@dataclass(slots=True)
class CategoryView:
    """What fits: map lines, passages by section (in number order), markers shown."""

    map_lines: list[str] = field(default_factory=list)
    sections: dict[str, list[Passage]] = field(default_factory=dict)
    markers: dict[str, str] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)

    def passages(self) -> list[Passage]:
        """The passages in the order they are numbered."""
        return [p for name in _HEADINGS for p in self.sections.get(name, [])]


def _source(result: RetrievalResult, passage: Passage) -> PassageSource:
    report = result.persona
    found = report.sources.get(passage.chunk_id) if report is not None else None
    return found or PassageSource("primary", ["search"], result.scope)


def _section(source: PassageSource) -> str:
    if source.category == "primary":
        return "primary"
    return "linked" if source.shared_via else "graph"


def passage_block(index: int, passage: Passage) -> str:
    """``[n] Title › Section (characters a–b) — dated 2026-01-15`` (a dated memory or
    document) and the passage's text."""
    day = dated(passage)
    when = f" — dated {day}" if day else ""
    return f"[{index}] {source_label(passage)}{when}\n{passage.text.strip()}\n"


def _truncate(index: int, passage: Passage, room: int) -> Passage | None:
    shell = _cost(passage_block(index, dataclasses.replace(passage, text="")))
    keep = room - shell - count_tokens(ELLIPSIS)
    if keep < MIN_TRUNCATED_TOKENS:
        return None
    return dataclasses.replace(passage, text=truncate_to_tokens(passage.text, keep) + ELLIPSIS)


def _fill_map(lines: list[str]) -> tuple[list[str], int]:
    count, used = _fill(lines, lambda line: _cost(f"- {line}"), MAP_TOKENS)
    return lines[:count], used


def fit_categories(result: RetrievalResult, budget: int) -> CategoryView:
    """The view of ``result`` each category's share holds (see the module docstring)."""
    report = result.persona
    view = CategoryView()
    view.map_lines, map_used = _fill_map(list(report.relationship_map) if report else [])
    overhead = count_tokens(render_markdown(result, CategoryView(map_lines=view.map_lines)))
    rest = max(0, budget - overhead - map_used)
    allowance = {
        "primary": int(rest * PRIMARY_SHARE),
        "graph": int(rest * GRAPH_SHARE),
        "provenance": int(rest * PROVENANCE_SHARE),
    }
    used = {"primary": 0, "graph": 0, "provenance": 0}
    ranked = sorted([*result.passages, *result.reserve], key=lambda p: -p.score)
    pending = list(focused_passages(ranked, result.focus))
    spent: set[str] = set()
    for lend in (False, True):
        if lend:  # what one passage category left goes to the other
            free = sum(allowance[c] - used[c] for c in ("primary", "graph"))
            for name in ("primary", "graph"):
                allowance[name] = used[name] + free
            spent.clear()
        for passage in list(pending):
            kind = "primary" if _source(result, passage).category == "primary" else "graph"
            if kind in spent:
                continue
            index = len(view.passages()) + 1
            cost = _cost(passage_block(index, passage))
            room = allowance[kind] - used[kind]
            if cost > room:
                passage = _truncate(index, passage, room)  # type: ignore[assignment]
                spent.add(kind)
                if passage is None:
                    continue
                cost = _cost(passage_block(index, passage))
            pending = [p for p in pending if p.chunk_id != passage.chunk_id]
            view.sections.setdefault(_section(_source(result, passage)), []).append(passage)
            used[kind] += cost
    for passage in view.passages():
        marker = _source(result, passage).marker()
        cost = _cost(marker)
        if used["provenance"] + cost > allowance["provenance"]:
            break
        view.markers[passage.chunk_id] = marker
        used["provenance"] += cost
    view.used = {"map": map_used, **used}
    return view


def render_markdown(result: RetrievalResult, view: CategoryView) -> str:
    """The markdown context: connections, then the passage sections, numbered."""
    persona = result.persona.persona if result.persona else ""
    out = [f"## Context for the {persona} persona\n" if persona else "## Context\n"]
    if view.map_lines:
        out.append("\n## Known connections\n")
        out.extend(f"- {line}\n" for line in view.map_lines)
    index = 0
    for name, heading in _HEADINGS.items():
        passages = view.sections.get(name, [])
        if not passages:
            continue
        out.append(f"\n{heading}\n\n")
        for passage in passages:
            index += 1
            out.append(passage_block(index, passage))
            marker = view.markers.get(passage.chunk_id)
            out.append(f"{marker}\n\n" if marker else "\n")
    return "".join(out)


def render_json(result: RetrievalResult, view: CategoryView) -> str:
    """The JSON context: persona, intent, connections, numbered passages with sources."""
    report = result.persona
    passages = []
    for index, passage in enumerate(view.passages(), 1):
        source = _source(result, passage)
        passages.append(
            {
                "n": index,
                "section": _section(source),
                "source": source_label(passage),
                "date": dated(passage) or None,
                "text": passage.text,
                "score": round(passage.score, 4),
                "provenance": view.markers.get(passage.chunk_id),
                "shared_via": source.shared_via,
            }
        )
    data = {
        "question": result.question,
        "persona": report.persona if report else None,
        "intent": report.route.intent if report else None,
        "connections": view.map_lines,
        "passages": passages,
    }
    return json.dumps(data, ensure_ascii=False, indent=1)


def _render(result: RetrievalResult, view: CategoryView, fmt: str) -> str:
    return render_json(result, view) if fmt == "json" else render_markdown(result, view)


def persona_context(
    result: RetrievalResult, fmt: str = "markdown", budget: int | None = None
) -> tuple[list[Passage], str]:
    """The numbered passages and the context (``markdown`` or ``json``) of a result
    retrieved through a persona, within ``budget`` tokens (default: the result's)."""
    limit = max(0, result.token_budget if budget is None else budget)
    view = fit_categories(result, limit)
    text = _render(result, view, fmt)
    for _ in range(MAX_REFITS):
        if count_tokens(text) <= limit:
            break
        _drop_last(view)
        text = _render(result, view, fmt)
    if count_tokens(text) > limit:
        text = truncate_to_tokens(text, limit)
    return view.passages(), text


def _drop_last(view: CategoryView) -> None:
    """Remove the last passage shown (or, with none, the last map line)."""
    for name in reversed(list(_HEADINGS)):
        passages = view.sections.get(name)
        if passages:
            dropped = passages.pop()
            view.markers.pop(dropped.chunk_id, None)
            return
    if view.map_lines:
        view.map_lines.pop()

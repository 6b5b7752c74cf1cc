"""Context formats: markdown, XML definitions/facts, JSON, mermaid.

Every format is fitted to a token budget first (:mod:`loregraph.retrieve.context.budget`).
A context is meant for a model: documents are named by title, and a document's source is
shown only when it is a URL (:func:`public_source`), never a local file path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from loregraph.errors import ConfigError
from loregraph.models import CO_OCCURS
from loregraph.retrieve.context.budget import ContextView, Renderer
from loregraph.retrieve.context.worth import weak
from loregraph.retrieve.results.result import Passage, RankedEntity, RankedRelation
from loregraph.retrieve.results.sections import located

FORMATS = ("markdown", "xml", "json", "mermaid")
DESCRIPTION_CHARS = 240
FACT_CHARS = 300


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def validity(relation: RankedRelation) -> str:
    """`` (from 2020-01-01 until 2023-05-01; replaced by Hono)`` for a temporal relation
    (the replacement only for an ended fact shown as ended), else ``""``."""
    rel = relation.relation
    parts = []
    if rel.valid_at is not None:
        parts.append(f"from {rel.valid_at.date().isoformat()}")
    if rel.invalid_at is not None:
        parts.append(f"until {rel.invalid_at.date().isoformat()}")
    dates = " ".join(parts)
    if relation.replaced_by:
        dates = f"{dates or 'ended'}; replaced by {relation.replaced_by}"
    return f" ({dates})" if dates else ""


def dated(passage: Passage) -> str:
    """The date its memory or document states (``2026-01-15``), ``""`` when timeless."""
    at = passage.document_at
    return at.date().isoformat() if at is not None else ""


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.IGNORECASE)


def public_source(source: str) -> str:
    """``source`` when it is a URL (``https://…``), else ``""``: a local path says nothing
    to a model and shows the user's file system."""
    return source if _URL.match(source.strip()) and not source.startswith("file:") else ""


def source_label(passage: Passage) -> str:
    """``Title › Section (characters a–b)`` for a passage (no section part when its document
    has no headings; ``path:first-last`` for a source file's). The context's passage
    headers leave out the chunk number the answers' source lists give: the offsets locate
    the text, and a long document's context holds a dozen headers, whose every token is one
    the passages cannot use."""
    p = passage
    if p.lines is not None:  # a source file's: where in it, by line
        return f"{located(p.document_title, p.section)}:{p.lines[0]}-{p.lines[1]}"
    return f"{located(p.document_title, p.section)} (characters {p.start}–{p.end})"


class MarkdownRenderer:
    """Entities and relationships, then numbered passages, each headed by its source.

    A passage's heading names its document, the section it is in, its chunk and characters
    (and its URL when it has one), so the context needs no separate list of sources.
    """

    sections = frozenset({"graph", "passages", "sources"})

    def entity_item(self, entity: RankedEntity) -> str:
        """``- Name: description``."""
        desc = _clip(entity.entity.description, DESCRIPTION_CHARS)
        return f"- {entity.entity.name}: {desc}" if desc else f"- {entity.entity.name}"

    def relation_item(self, relation: RankedRelation) -> str:
        """``- Source RELTYPE Target``, with its evidence sentence when the verb is weak."""
        line = (
            f"- {relation.source_name} {relation.relation.type} {relation.target_name}"
            f"{validity(relation)}"
        )
        fact = relation.relation.fact
        return f"{line} — “{_clip(fact, FACT_CHARS)}”" if fact and weak(relation) else line

    def passage_item(self, index: int, passage: Passage) -> str:
        """The passage block: its heading (the source) and its text."""
        url = public_source(passage.document_source)
        where = f" — {url}" if url else ""
        day = dated(passage)
        when = f" — dated {day}" if day else ""
        return f"[{index}] {source_label(passage)}{when}{where}\n{passage.text.strip()}\n"

    def render(self, view: ContextView) -> str:
        """The whole markdown context: passages first when the question asks for a fact."""
        graph = self._graph(view)
        passages = self._passages(view)
        body = [passages, graph] if view.passages_first else [graph, passages]
        return "## Knowledge Graph Context\n\n" + "\n".join(part for part in body if part)

    def _graph(self, view: ContextView) -> str:
        out: list[str] = []
        if view.entities:
            out.append("### Relevant Entities\n")
            groups: dict[str, list[RankedEntity]] = {}
            for entity in view.entities:
                groups.setdefault(entity.entity.type or "Concept", []).append(entity)
            for type_name, members in groups.items():
                out.append(f"\n**{type_name}s:**\n")
                out.extend(self.entity_item(e) + "\n" for e in members)
        if view.relations:
            out.append("\n" if out else "")
            out.append("### Relationships\n")
            out.extend(self.relation_item(r) + "\n" for r in view.relations)
        return "".join(out)

    def _passages(self, view: ContextView) -> str:
        if not view.passages:
            return ""
        out = ["### Passages\n\n"]
        out.extend(self.passage_item(i, p) + "\n" for i, p in enumerate(view.passages, 1))
        return "".join(out)


class XmlRenderer:
    """``<definitions>`` and ``<facts>``, plus ``<passages>`` and ``<sources>``."""

    sections = frozenset({"graph", "passages", "sources"})

    def entity_item(self, entity: RankedEntity) -> str:
        """``Name: summary``."""
        desc = _clip(entity.entity.description, DESCRIPTION_CHARS) or entity.entity.type
        return escape(f"{entity.entity.name}: {desc}")

    def relation_item(self, relation: RankedRelation) -> str:
        """``Source RELTYPE Target, fact text.``."""
        head = (
            f"{relation.source_name} {relation.relation.type} {relation.target_name}"
            f"{validity(relation)}"
        )
        fact = _clip(relation.relation.fact, FACT_CHARS).rstrip(".")
        return escape(f"{head}, {fact}." if fact else f"{head}.")

    def passage_item(self, index: int, passage: Passage) -> str:
        """The passage element and its source element."""
        return f"{self._passage(index, passage)}\n{self._source(index, passage)}"

    @staticmethod
    def _attrs(index: int, passage: Passage) -> str:
        section = f" section={quoteattr(passage.section)}" if passage.section else ""
        day = dated(passage)
        date = f' date="{day}"' if day else ""
        return (
            f'id="{index}" document={quoteattr(passage.document_title)}{section} '
            f'chunk="{passage.seq}" start="{passage.start}" end="{passage.end}"{date}'
        )

    def _passage(self, index: int, passage: Passage) -> str:
        return f"<passage {self._attrs(index, passage)}>{escape(passage.text.strip())}</passage>"

    def _source(self, index: int, passage: Passage) -> str:
        url = public_source(passage.document_source)
        where = f" source={quoteattr(url)}" if url else ""
        return f"<source {self._attrs(index, passage)}{where}/>"

    def render(self, view: ContextView) -> str:
        """The whole XML-like context."""
        parts: list[str] = []
        if view.entities:
            items = ", ".join(self.entity_item(e) for e in view.entities)
            parts.append(f"<definitions>{items}</definitions>")
        if view.relations:
            facts = " ".join(self.relation_item(r) for r in view.relations)
            parts.append(f"<facts>{facts}</facts>")
        if view.passages:
            body = "\n".join(self._passage(i, p) for i, p in enumerate(view.passages, 1))
            parts.append(f"<passages>\n{body}\n</passages>")
            srcs = "\n".join(self._source(i, p) for i, p in enumerate(view.passages, 1))
            parts.append(f"<sources>\n{srcs}\n</sources>")
        return "\n\n".join(parts) + ("\n" if parts else "")


def _entity_json(entity: RankedEntity) -> dict[str, Any]:
    e = entity.entity
    return {
        "id": e.id,
        "name": e.name,
        "type": e.type,
        "description": e.description,
        "aliases": list(e.aliases),
        "mentions": e.mention_count,
        "score": round(entity.score, 6),
        "hop": entity.hop,
        "start": entity.is_start,
        "found_by": entity.found_by,
    }


def _relation_json(relation: RankedRelation) -> dict[str, Any]:
    r = relation.relation
    return {
        "id": r.id,
        "source": relation.source_name,
        "source_id": r.source_id,
        "type": r.type,
        "target": relation.target_name,
        "target_id": r.target_id,
        "fact": r.fact,
        "weight": r.weight,
        "valid_at": r.valid_at.isoformat() if r.valid_at else None,
        "invalid_at": r.invalid_at.isoformat() if r.invalid_at else None,
        "ended": bool(relation.replaced_by),
        "replaced_by": relation.replaced_by or None,
        "score": round(relation.score, 6),
    }


def _passage_json(index: int, passage: Passage) -> dict[str, Any]:
    at = passage.document_at
    data = asdict(passage) | {
        "document_source": public_source(passage.document_source),
        "document_at": at.isoformat() if at is not None else None,
    }
    del data["following"]  # read only to show the rest of a list; the chunk is the passage
    return {"index": index, **data, "score": round(passage.score, 6)}


class JsonRenderer:
    """Everything structured: analysis, seeds, entities, relations, passages, documents, debug."""

    sections = frozenset({"graph", "passages", "sources"})

    def entity_item(self, entity: RankedEntity) -> str:
        """The entity object."""
        return json.dumps(_entity_json(entity), ensure_ascii=False)

    def relation_item(self, relation: RankedRelation) -> str:
        """The relation object."""
        return json.dumps(_relation_json(relation), ensure_ascii=False)

    def passage_item(self, index: int, passage: Passage) -> str:
        """The passage object."""
        return json.dumps(_passage_json(index, passage), ensure_ascii=False)

    def render(self, view: ContextView) -> str:
        """The whole JSON document."""
        result = view.result
        kept_docs = {p.document_id for p in view.passages}
        payload = {
            "question": result.question,
            "scope": result.scope,
            "preset": result.preset,
            "analysis": asdict(result.analysis),
            "start_entities": [
                {
                    "id": s.entity.id,
                    "name": s.entity.name,
                    "score": round(s.score, 6),
                    "found_by": s.found_by,
                }
                for s in result.start_entities
            ],
            "entities": [_entity_json(e) for e in view.entities],
            "relations": [_relation_json(r) for r in view.relations],
            "passages": [_passage_json(i, p) for i, p in enumerate(view.passages, 1)],
            "documents": [
                asdict(d) | {"source": public_source(d.source)}
                for d in result.documents
                if d.document_id in kept_docs
            ],
            "truncated": view.truncated,
            "debug": result.debug,
        }
        return json.dumps(payload, ensure_ascii=False, indent=1, default=str)


_MERMAID_UNSAFE = re.compile(r"[#\"\[\]{}()<>|`;]")
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_ ]")


def mermaid_text(text: str) -> str:
    """A node label safe inside ``["..."]``: specials become ``#code;`` entities."""
    text = " ".join(text.split())
    return _MERMAID_UNSAFE.sub(lambda m: f"#{ord(m.group(0))};", text)


def mermaid_edge_label(text: str) -> str:
    """An edge label safe inside ``|...|``: letters, digits, underscores and spaces only."""
    return _LABEL_UNSAFE.sub(" ", text).strip() or "RELATED"


class MermaidRenderer:
    """A ``graph TD`` diagram of the entities and relations (no passages)."""

    sections = frozenset({"graph"})

    def entity_item(self, entity: RankedEntity) -> str:
        """The node declaration (costing uses a representative id)."""
        return f'    n00["{mermaid_text(entity.entity.name)}"]'

    def relation_item(self, relation: RankedRelation) -> str:
        """The edge line (costing uses representative ids)."""
        return f"    n00 -->|{mermaid_edge_label(relation.relation.type)}| n01"

    def passage_item(self, index: int, passage: Passage) -> str:
        """Passages are not drawn."""
        return ""

    def render(self, view: ContextView) -> str:
        """The whole diagram."""
        labels: dict[str, str] = {}
        for e in view.entities:
            labels.setdefault(e.entity.id, e.entity.name)
        for r in view.relations:
            labels.setdefault(r.relation.source_id, r.source_name)
            labels.setdefault(r.relation.target_id, r.target_name)
        edges = [
            (r.relation.source_id, r.relation.type, r.relation.target_id) for r in view.relations
        ]
        return mermaid_diagram(labels, edges)


def mermaid_diagram(labels: Mapping[str, str], edges: Iterable[tuple[str, str, str]]) -> str:
    """A ``graph TD`` diagram: a node per ``labels`` entry (entity id → name) and an edge per
    ``(source id, type, target id)``, co-occurrence dotted."""
    ids: dict[str, str] = {}
    lines = ["graph TD"]
    for entity_id, name in labels.items():
        ids[entity_id] = f"n{len(ids)}"
        lines.append(f'    {ids[entity_id]}["{mermaid_text(name)}"]')
    for source, rel_type, target in edges:
        arrow = "-.->" if rel_type == CO_OCCURS else "-->"
        lines.append(f"    {ids[source]} {arrow}|{mermaid_edge_label(rel_type)}| {ids[target]}")
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[], Renderer]] = {
    "markdown": MarkdownRenderer,
    "xml": XmlRenderer,
    "json": JsonRenderer,
    "mermaid": MermaidRenderer,
}


def renderer_for(fmt: str) -> Renderer:
    """The renderer of a format name; raises :class:`ConfigError` naming the known ones."""
    try:
        return RENDERERS[fmt]()
    except KeyError:
        raise ConfigError(
            f"unknown context format {fmt!r}; known formats: {', '.join(FORMATS)}"
        ) from None

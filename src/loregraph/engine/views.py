"""What the engine's browse and search methods return: search hits and entity views."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.models import Entity, Relation
from loregraph.retrieve.question.relevance import coverage
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.serial import Record, rounded

SearchKind = Literal["documents", "entities", "relations"]


@dataclass(slots=True)
class EntityView:
    """An entity with its relations (each with its evidence passages)."""

    entity: Entity
    relations: list[Relation] = field(default_factory=list)
    neighbours: dict[str, Entity] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The entity as JSON, with its relations (both ends by name)."""
        names = {entity_id: other.name for entity_id, other in self.neighbours.items()}
        names[self.entity.id] = self.entity.name
        return {**self.entity.to_dict(), "relations": [r.to_dict(names) for r in self.relations]}


@dataclass(slots=True)
class SearchHit(Record):
    """One ranked search result. ``relevance`` is the share of the query's weighted terms
    its text holds (its best passage, an entity's name and description, a relation's fact);
    ``relevant`` tells whether it is about the query: it holds enough of them on its own,
    or the answer is relevant and the hit holds some of the terms the best passages hold
    together (:mod:`loregraph.retrieve.question.relevance`)."""

    kind: str
    id: str
    title: str
    score: float
    extra: dict[str, Any] = field(default_factory=dict)
    relevance: float = field(default=0.0, metadata=rounded(4))
    relevant: bool = True


class SearchResults(list[SearchHit]):
    """The hits of a search, best first, never withheld, with the whole answer's
    relevance: ``relevant`` (the best passages, read together, are about the query),
    ``relevance`` (the coverage it was decided on) and ``threshold`` (the coverage needed)."""

    def __init__(
        self,
        hits: Iterable[SearchHit] = (),
        *,
        relevant: bool = True,
        relevance: float = 0.0,
        threshold: float = 0.0,
    ) -> None:
        super().__init__(hits)
        self.relevant = relevant
        self.relevance = relevance
        self.threshold = threshold

    def to_dict(self) -> dict[str, Any]:
        """The whole answer as JSON: its relevance and its hits."""
        return {
            "relevant": self.relevant,
            "relevance": round(self.relevance, 4),
            "threshold": self.threshold,
            "hits": [hit.to_dict() for hit in self],
        }


def search_hits(result: RetrievalResult, kind: SearchKind, limit: int) -> SearchResults:
    """The best ``limit`` documents, entities or relations of a retrieval, as hits, each
    with its relevance, and the whole answer's."""
    info = result.debug.get("relevance", {})
    judge = _HitJudge(result, float(info.get("threshold", 0.0)))
    hits = [judge(hit) for hit in _ranked_hits(result, kind, limit)]
    return SearchResults(
        hits,
        relevant=result.relevant,
        relevance=float(info.get("score", 1.0 if result.relevant else 0.0)),
        threshold=judge.threshold,
    )


@dataclass(slots=True)
class _HitJudge:
    """Sets a hit's relevance from the text it stands for (see :class:`SearchHit`)."""

    result: RetrievalResult
    threshold: float
    texts: dict[str, str] = field(default_factory=dict)
    together: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        passages = [*self.result.passages, *self.result.reserve]
        self.texts = {p.chunk_id: p.text for p in passages}
        info = self.result.debug.get("relevance", {})
        self.together = frozenset(info.get("covered", ()))

    def __call__(self, hit: SearchHit) -> SearchHit:
        focus = self.result.focus
        if not focus.terms:
            hit.relevance, hit.relevant = (1.0, True) if self.result.relevant else (0.0, False)
            return hit
        text = self._text(hit)
        hit.relevance, held = coverage(text, focus.terms, focus.weights)
        shares = self.result.relevant and bool(self.together.intersection(held))
        hit.relevant = hit.relevance >= self.threshold or shares
        return hit

    def _text(self, hit: SearchHit) -> str:
        if hit.kind == "document":
            chunk = str(hit.extra.get("chunk_id", ""))
            return f"{hit.title}\n{self.texts.get(chunk, '')}"
        if hit.kind == "entity":
            return f"{hit.title}\n{hit.extra.get('description') or ''}"
        return f"{hit.title}\n{hit.extra.get('fact') or ''}"


def _ranked_hits(result: RetrievalResult, kind: SearchKind, limit: int) -> list[SearchHit]:
    """The best ``limit`` documents, entities or relations of a retrieval, as hits."""
    if kind == "documents":
        return [
            SearchHit(
                "document",
                d.document_id,
                d.title,
                d.score,
                {"source": d.source, "chunk_id": d.best_chunk_id},
            )
            for d in result.documents[:limit]
        ]
    if kind == "entities":
        return [
            SearchHit(
                "entity",
                e.entity.id,
                e.entity.name,
                e.score,
                {"type": e.entity.type, "description": e.entity.description},
            )
            for e in result.entities[:limit]
        ]
    names = {e.entity.id: e.entity.name for e in result.entities}
    return [
        SearchHit(
            "relation",
            r.relation.id,
            f"{names.get(r.relation.source_id, r.relation.source_id)} {r.relation.type} "
            f"{names.get(r.relation.target_id, r.relation.target_id)}",
            r.score,
            {"fact": r.relation.fact, "weight": r.relation.weight},
        )
        for r in result.relations[:limit]
    ]

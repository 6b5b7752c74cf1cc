"""What the engine's browse and search methods return: search hits and entity views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.models import Entity, Relation
from loregraph.retrieve.result import RetrievalResult

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
class SearchHit:
    """One ranked search result."""

    kind: str
    id: str
    title: str
    score: float
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON: kind, id, title, score and the kind's extra fields."""
        return {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "score": self.score,
            "extra": self.extra,
        }


def search_hits(result: RetrievalResult, kind: SearchKind, limit: int) -> list[SearchHit]:
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

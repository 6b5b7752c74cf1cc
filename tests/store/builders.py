"""Hand-built document bundles with tiny deterministic vectors, for store tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from loregraph.models import (
    DEFAULT_SCOPE,
    Chunk,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Mention,
    Merge,
    Relation,
    Vector,
    content_hash,
)

DIM = 8


def unit(i: int, dim: int = DIM) -> Vector:
    """The ``i``-th basis vector (``float32``, unit length)."""
    vector = np.zeros(dim, dtype=np.float32)
    vector[i % dim] = 1.0
    return vector


def blend(i: int, j: int, weight: float) -> Vector:
    """A unit vector between basis vectors ``i`` (share ``weight``) and ``j``."""
    vector = weight * unit(i) + (1.0 - weight) * unit(j)
    normalised: Vector = (vector / np.linalg.norm(vector)).astype(np.float32)
    return normalised


@dataclass
class Book:
    """Builds one document's bundle by hand: ``book.chunk(...)``, ``book.entity(...)``, ..."""

    doc_id: str
    scope: str = DEFAULT_SCOPE
    title: str = ""
    source: str = ""
    created_at: datetime | None = None
    chunks: list[Chunk] = field(default_factory=list)
    entities: list[EntityWrite] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)

    def chunk(self, text: str, vector: Vector | None = None) -> Chunk:
        """Append a chunk (offsets as if chunks were concatenated with one space)."""
        start = sum(len(c.text) + 1 for c in self.chunks)
        chunk = Chunk(
            id=f"{self.doc_id}#c{len(self.chunks)}",
            document_id=self.doc_id,
            seq=len(self.chunks),
            start=start,
            end=start + len(text),
            text=text,
            token_count=len(text.split()),
            embedding=vector,
        )
        self.chunks.append(chunk)
        return chunk

    def entity(
        self,
        name: str,
        type: str = "person",
        *,
        description: str = "",
        vector: Vector | None = None,
        salience: float = 1.0,
        entity_id: str | None = None,
        mentions: Sequence[tuple[Chunk, int]] = (),
        surface: str | None = None,
    ) -> Entity:
        """Add an entity this document lists (and optionally its mentions)."""
        entity = Entity(
            id=entity_id or Entity.make_id(self.scope, name),
            name=name,
            type=type,
            scope=self.scope,
            embedding=vector,
        )
        self.entities.append(EntityWrite(entity, description=description, salience=salience))
        for chunk, count in mentions:
            self.mention(entity, chunk, surface or name, count)
        return entity

    def mention(self, entity: Entity | str, chunk: Chunk, surface: str, count: int = 1) -> None:
        """Record that ``entity`` (or an entity id) is seen in ``chunk`` as ``surface``."""
        entity_id = entity if isinstance(entity, str) else entity.id
        self.mentions.append(Mention(entity_id, chunk.id, surface, count))

    def relate(
        self,
        source: Entity | str,
        rel_type: str,
        target: Entity | str,
        *,
        chunk: Chunk | None = None,
        sentence: str = "",
        fact: str = "",
        confidence: float = 1.0,
        valid_at: datetime | None = None,
        invalid_at: datetime | None = None,
        expired_at: datetime | None = None,
        evidence: int = 1,
    ) -> Relation:
        """Add a relation with ``evidence`` evidence rows in ``chunk`` (none without a chunk)."""
        source_id = source if isinstance(source, str) else source.id
        target_id = target if isinstance(target, str) else target.id
        relation = Relation(
            id=Relation.make_id(self.scope, source_id, rel_type, target_id),
            source_id=source_id,
            target_id=target_id,
            type=rel_type,
            scope=self.scope,
            fact=fact,
            confidence=confidence,
            valid_at=valid_at,
            invalid_at=invalid_at,
            expired_at=expired_at,
        )
        if chunk is not None:
            relation.evidence = [
                Evidence(chunk.id, sentence or chunk.text, i, i + 1) for i in range(evidence)
            ]
        self.relations.append(relation)
        return relation

    def merge(self, entity: Entity, surface: str, rule: str = "exact", score: float = 1.0) -> None:
        """Record a resolution decision."""
        self.merges.append(Merge(entity.id, surface, rule, score, scope=self.scope))

    def bundle(self) -> DocumentBundle:
        """The document bundle."""
        text = " ".join(chunk.text for chunk in self.chunks)
        document = Document(
            id=self.doc_id,
            title=self.title or self.doc_id,
            content_hash=content_hash(text),
            scope=self.scope,
            source=self.source or f"{self.doc_id}.txt",
            char_count=len(text),
        )
        if self.created_at is not None:
            document.created_at = self.created_at
        return DocumentBundle(
            document=document,
            chunks=list(self.chunks),
            entities=list(self.entities),
            mentions=list(self.mentions),
            relations=list(self.relations),
            merges=list(self.merges),
        )

"""Property lists and conversions between graph values and the model's dataclasses.

Times are stored as ISO-8601 strings in UTC with microseconds (one fixed width), so that
comparing two of them as strings compares the times. Document metadata is stored as JSON
text; embeddings as vectors (read back as lists of floats).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from loregraph.models import (
    Chunk,
    DocKind,
    DocStatus,
    Document,
    Entity,
    Evidence,
    Merge,
    Relation,
    Vector,
    name_key,
)

DOCUMENT_FIELDS = [
    "id",
    "title",
    "content_hash",
    "scope",
    "source",
    "kind",
    "visibility",
    "owner",
    "metadata",
    "status",
    "char_count",
    "created_at",
    "valid_at",
]
CHUNK_FIELDS = ["id", "document_id", "seq", "char_start", "char_end", "text", "token_count"]
ENTITY_FIELDS = [
    "id",
    "name",
    "type",
    "scope",
    "description",
    "aliases",
    "mention_count",
    "salience",
    "confidence",
    "created_at",
    "updated_at",
]
RELATION_FIELDS = [
    "id",
    "type",
    "scope",
    "fact",
    "weight",
    "confidence",
    "valid_at",
    "invalid_at",
    "created_at",
    "expired_at",
]
MERGE_FIELDS = ["entity_id", "surface", "rule", "score", "scope", "document_id", "created_at"]


def returning(var: str, fields: Sequence[str]) -> str:
    """``var.a, var.b, ...`` for a RETURN clause."""
    return ", ".join(f"{var}.{name}" for name in fields)


def relation_returning(rel: str = "r", source: str = "a", target: str = "b") -> str:
    """The RETURN expressions :func:`relation_from_row` reads."""
    return f"{source}.id, {target}.id, {returning(rel, RELATION_FIELDS)}"


def iso(value: datetime) -> str:
    """A time as fixed-width UTC ISO text (a naive time is taken to be UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def iso_or_none(value: datetime | None) -> str | None:
    """:func:`iso`, passing ``None`` through."""
    return None if value is None else iso(value)


def parse_time(value: str | None) -> datetime | None:
    """The time stored by :func:`iso` (``None`` stays ``None``)."""
    return None if value is None else datetime.fromisoformat(value)


def _time(value: str | None) -> datetime:
    parsed = parse_time(value)
    assert parsed is not None
    return parsed


def to_vector(value: Any) -> Vector | None:
    """A stored embedding as a float32 array."""
    if value is None:
        return None
    return np.asarray(value, dtype=np.float32)


def document_props(doc: Document) -> dict[str, Any]:
    """A document's node properties."""
    return {
        "id": doc.id,
        "title": doc.title,
        "content_hash": doc.content_hash,
        "scope": doc.scope,
        "source": doc.source,
        "kind": str(doc.kind),
        "visibility": doc.visibility,
        "owner": doc.owner,
        "metadata": json.dumps(doc.metadata, ensure_ascii=False, default=str),
        "status": str(doc.status),
        "char_count": doc.char_count,
        "created_at": iso(doc.created_at),
        "valid_at": iso_or_none(doc.valid_at),
    }


ENTITY_PROPS = (
    "id scope name name_key type description aliases alias_text mention_count salience "
    "confidence created_at updated_at"
)
"""The entity node properties :func:`entity_props` gives (the embedding is set apart)."""
RELATION_PROPS = (
    "id type type_text scope fact weight confidence valid_at invalid_at created_at expired_at"
)
"""The relation edge properties :func:`relation_props` gives (besides the end ids)."""


def entity_props(entity: Entity) -> dict[str, Any]:
    """An entity's node properties (its embedding aside)."""
    return {
        "id": entity.id,
        "scope": entity.scope,
        "name": entity.name,
        "name_key": name_key(entity.name),
        "type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "alias_text": " ".join(entity.aliases),
        "mention_count": entity.mention_count,
        "salience": float(entity.salience),
        "confidence": float(entity.confidence),
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
    }


def relation_props(relation: Relation) -> dict[str, Any]:
    """A relation's edge properties (plus its end ids)."""
    return {
        "id": relation.id,
        "source_id": relation.source_id,
        "target_id": relation.target_id,
        "type": relation.type,
        "type_text": type_text(relation.type),
        "scope": relation.scope,
        "fact": relation.fact,
        "weight": float(relation.weight),
        "confidence": float(relation.confidence),
        "valid_at": iso_or_none(relation.valid_at),
        "invalid_at": iso_or_none(relation.invalid_at),
        "created_at": iso(relation.created_at),
        "expired_at": iso_or_none(relation.expired_at),
    }


def document_from_row(row: Sequence[Any]) -> Document:
    """A document from :data:`DOCUMENT_FIELDS` values."""
    (id_, title, hash_, scope, source, kind, visibility, owner, metadata, status, chars) = row[:11]
    return Document(
        id=id_,
        title=title,
        content_hash=hash_,
        scope=scope,
        source=source,
        kind=DocKind(kind),
        visibility=visibility,
        owner=owner,
        metadata=json.loads(metadata) if metadata else {},
        status=DocStatus(status),
        char_count=int(chars),
        created_at=_time(row[11]),
        valid_at=parse_time(row[12]),
    )


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    """A chunk (no embedding) from :data:`CHUNK_FIELDS` values."""
    id_, document_id, seq, start, end, text, tokens = row[:7]
    return Chunk(id_, document_id, int(seq), int(start), int(end), text, int(tokens))


def entity_from_row(row: Sequence[Any], embedding: Any = None) -> Entity:
    """An entity from :data:`ENTITY_FIELDS` values."""
    id_, name, type_, scope, description, aliases, count, salience, confidence = row[:9]
    return Entity(
        id=id_,
        name=name,
        type=type_,
        scope=scope,
        description=description,
        aliases=list(aliases or []),
        mention_count=int(count),
        salience=float(salience),
        confidence=float(confidence),
        embedding=to_vector(embedding),
        created_at=_time(row[9]),
        updated_at=_time(row[10]),
    )


def relation_from_row(row: Sequence[Any]) -> Relation:
    """A relation (no evidence) from :func:`relation_returning` values."""
    source, target, id_, type_, scope, fact, weight, confidence = row[:8]
    return Relation(
        id=id_,
        source_id=source,
        target_id=target,
        type=type_,
        scope=scope,
        fact=fact,
        weight=float(weight),
        confidence=float(confidence),
        valid_at=parse_time(row[8]),
        invalid_at=parse_time(row[9]),
        created_at=_time(row[10]),
        expired_at=parse_time(row[11]),
    )


def evidence_from_row(row: Sequence[Any]) -> Evidence:
    """Evidence from ``chunk_id, sentence, char_start, char_end`` values."""
    chunk_id, sentence, start, end = row[:4]
    return Evidence(chunk_id or "", sentence, int(start), int(end))


def merge_from_row(row: Sequence[Any]) -> Merge:
    """A merge from :data:`MERGE_FIELDS` values."""
    entity_id, surface, rule, score, scope, document_id, created_at = row[:7]
    return Merge(entity_id, surface, rule, float(score), scope, document_id, _time(created_at))


def type_text(rel_type: str) -> str:
    """A relation type as searchable words: ``TRAVELLED_TO`` -> ``travelled to``."""
    return rel_type.replace("_", " ").lower()

"""Property lists and conversions between graph values and the model's dataclasses.

Times are stored as ISO-8601 strings in UTC with microseconds (one fixed width), so that
comparing two of them as strings compares the times. Document metadata is stored as JSON
text; embeddings as vectors (read back as lists of floats). Records are read back in the
field orders of :mod:`loregraph.store.rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from loregraph.models import Document, Entity, Evidence, Relation, Vector, name_key
from loregraph.store.rows import (
    DOCUMENT_FIELDS,
    RELATION_FIELDS,
    TextCodec,
    columns,
    iso,
    iso_or_none,
)

CHUNK_FIELDS = ["id", "document_id", "seq", "char_start", "char_end", "text", "token_count"]
"""The chunk properties, in :data:`loregraph.store.rows.CHUNK_FIELDS` order."""

ENTITY_PROPS = (
    "id scope name name_key type description aliases alias_text mention_count salience "
    "confidence created_at updated_at"
)
"""The entity node properties :func:`entity_props` gives (the embedding is set apart)."""
RELATION_PROPS = (
    "id type type_text scope fact weight confidence valid_at invalid_at created_at expired_at "
    "invalidated_by statement"
)
"""The relation edge properties :func:`relation_props` gives (besides the end ids)."""


class CypherCodec(TextCodec):
    """Times as ISO text, metadata as JSON text, alias lists and vectors as lists."""

    def read_vector(self, value: Any) -> Vector:
        return np.asarray(value, dtype=np.float32)


CODEC = CypherCodec()


def relation_returning(rel: str = "r", source: str = "a", target: str = "b") -> str:
    """The RETURN expressions :func:`relation_from_row` reads."""
    return f"{rel}.id, {source}.id, {target}.id, {columns(RELATION_FIELDS[3:], rel)}"


def to_vector(value: Any) -> Vector | None:
    """A stored embedding as a float32 array."""
    return None if value is None else CODEC.read_vector(value)


def document_props(doc: Document) -> dict[str, Any]:
    """A document's node properties."""
    return dict(zip(DOCUMENT_FIELDS, CODEC.document_values(doc), strict=True))


def entity_props(entity: Entity) -> dict[str, Any]:
    """An entity's node properties (its embedding aside)."""
    values = (
        entity.id, entity.scope, entity.name, name_key(entity.name), entity.type,
        entity.description, list(entity.aliases), " ".join(entity.aliases),
        entity.mention_count, float(entity.salience), float(entity.confidence),
        iso(entity.created_at), iso(entity.updated_at),
    )  # fmt: skip
    return dict(zip(ENTITY_PROPS.split(), values, strict=True))


def relation_props(relation: Relation) -> dict[str, Any]:
    """A relation's edge properties (plus its end ids)."""
    values = (
        relation.id, relation.type, type_text(relation.type), relation.scope, relation.fact,
        float(relation.weight), float(relation.confidence), iso_or_none(relation.valid_at),
        iso_or_none(relation.invalid_at), iso(relation.created_at),
        iso_or_none(relation.expired_at), relation.invalidated_by, relation.statement,
    )  # fmt: skip
    props = dict(zip(RELATION_PROPS.split(), values, strict=True))
    return props | {"source_id": relation.source_id, "target_id": relation.target_id}


def entity_from_row(row: Sequence[Any], embedding: Any = None) -> Entity:
    """An entity from :data:`ENTITY_FIELDS` values (and optionally its embedding)."""
    return CODEC.entity(row, embedding)


def relation_from_row(row: Sequence[Any]) -> Relation:
    """A relation (no evidence) from :func:`relation_returning` values."""
    return CODEC.relation(row)


def evidence_from_row(row: Sequence[Any]) -> Evidence:
    """Evidence from ``chunk_id, sentence, char_start, char_end`` values."""
    chunk_id, sentence, start, end = row[:4]
    return Evidence(chunk_id or "", sentence, int(start), int(end))


def type_text(rel_type: str) -> str:
    """A relation type as searchable words: ``TRAVELLED_TO`` -> ``travelled to``."""
    return rel_type.replace("_", " ").lower()

"""A record's properties as the graph stores (Cypher, SurrealDB) keep them: plain values,
times as fixed-width ISO-8601 UTC text (comparing two as text compares the times), document
metadata as JSON text, alias lists as lists, embeddings apart."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from loregraph.models import Document, Entity, Relation, Vector, name_key
from loregraph.store.rows import DOCUMENT_FIELDS, TextCodec, iso, iso_or_none

ENTITY_PROPS = (
    "id scope name name_key type description aliases alias_text mention_count salience "
    "confidence created_at updated_at"
)
"""The entity properties :func:`entity_props` gives (the embedding is set apart)."""
RELATION_PROPS = (
    "id type type_text scope fact weight confidence valid_at invalid_at created_at expired_at "
    "invalidated_by statement"
)
"""The relation properties :func:`relation_props` gives (besides the end ids)."""


class PropsCodec(TextCodec):
    """Times as ISO text, metadata as JSON text, alias lists and vectors as lists."""

    def read_vector(self, value: Any) -> Vector:
        return np.asarray(value, dtype=np.float32)


CODEC = PropsCodec()


def document_props(doc: Document) -> dict[str, Any]:
    """A document's properties."""
    return dict(zip(DOCUMENT_FIELDS, CODEC.document_values(doc), strict=True))


def entity_props(entity: Entity) -> dict[str, Any]:
    """An entity's properties (its embedding aside)."""
    values = (
        entity.id, entity.scope, entity.name, name_key(entity.name), entity.type,
        entity.description, list(entity.aliases), " ".join(entity.aliases),
        entity.mention_count, float(entity.salience), float(entity.confidence),
        iso(entity.created_at), iso(entity.updated_at),
    )  # fmt: skip
    return dict(zip(ENTITY_PROPS.split(), values, strict=True))


def relation_props(relation: Relation) -> dict[str, Any]:
    """A relation's properties (plus its end ids)."""
    values = (
        relation.id, relation.type, type_text(relation.type), relation.scope, relation.fact,
        float(relation.weight), float(relation.confidence), iso_or_none(relation.valid_at),
        iso_or_none(relation.invalid_at), iso(relation.created_at),
        iso_or_none(relation.expired_at), relation.invalidated_by, relation.statement,
    )  # fmt: skip
    props = dict(zip(RELATION_PROPS.split(), values, strict=True))
    return props | {"source_id": relation.source_id, "target_id": relation.target_id}


def type_text(rel_type: str) -> str:
    """A relation type as searchable words: ``TRAVELLED_TO`` -> ``travelled to``."""
    return rel_type.replace("_", " ").lower()


def plain(value: Any, keep: tuple[type, ...] = ()) -> Any:
    """``value`` as plain JSON-like data for a driver (numpy scalars and arrays converted;
    values of the ``keep`` types passed as they are).

    Raises ``ValueError`` for a non-finite float (no database stores it) and ``TypeError``
    for anything else.
    """
    if value is None or isinstance(value, (str, bool, int, *keep)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a non-finite number cannot be stored: {value!r}")
        return value
    if isinstance(value, np.ndarray):
        return [plain(float(x)) for x in value.reshape(-1).tolist()]
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, Mapping):
        return {str(k): plain(v, keep) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [plain(v, keep) for v in value]
    raise TypeError(f"cannot pass {type(value).__name__} as a query parameter")

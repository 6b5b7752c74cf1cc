"""Conversions between Cypher rows and the model's dataclasses (the properties themselves:
:mod:`loregraph.store.props`). Records are read back in the field orders of
:mod:`loregraph.store.rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loregraph.models import Entity, Evidence, Relation, Vector
from loregraph.store.props import CODEC
from loregraph.store.rows import RELATION_FIELDS, columns

CHUNK_FIELDS = ["id", "document_id", "seq", "char_start", "char_end", "text", "token_count"]
"""The chunk properties, in :data:`loregraph.store.rows.CHUNK_FIELDS` order."""


def relation_returning(rel: str = "r", source: str = "a", target: str = "b") -> str:
    """The RETURN expressions :func:`relation_from_row` reads."""
    return f"{rel}.id, {source}.id, {target}.id, {columns(RELATION_FIELDS[3:], rel)}"


def to_vector(value: Any) -> Vector | None:
    """A stored embedding as a float32 array."""
    return None if value is None else CODEC.read_vector(value)


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

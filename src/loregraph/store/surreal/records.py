"""Record ids and rows of the SurrealDB store.

A record's loregraph id is its SurrealDB record id (``entity:⟨id⟩``, ``relates_to:⟨id⟩``,
``chunk:⟨id⟩``, ``document:⟨id⟩``); queries read it back with ``record::id(id)``. Fields
hold what :mod:`loregraph.store.props` gives, read back in :mod:`loregraph.store.rows`'
field orders.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from surrealdb import RecordID

from loregraph.models import Chunk, Document, Entity, Evidence, Relation
from loregraph.store.props import CODEC
from loregraph.store.rows import DOCUMENT_FIELDS, ENTITY_FIELDS, RELATION_FIELDS

Row = dict[str, Any]


def thing(table: str, key: str) -> RecordID:
    """The record id of ``key`` in ``table``."""
    return RecordID(table, key)


def things(table: str, keys: Iterable[str]) -> list[RecordID]:
    """Record ids, each key once, in order."""
    return [RecordID(table, key) for key in dict.fromkeys(keys)]


def select(fields: Sequence[str], renames: dict[str, str] | None = None) -> str:
    """A select list giving ``fields`` (``id`` read as the plain key; ``renames`` maps a
    field to the expression that gives it)."""
    given = {"id": "record::id(id)"} | (renames or {})
    return ", ".join(f"{given[name]} AS {name}" if name in given else name for name in fields)


DOCUMENT = select(DOCUMENT_FIELDS)
CHUNK_STORED = ("id", "document_id", "seq", "char_start", "char_end", "text", "token_count")
"""The chunk fields, in :data:`~loregraph.store.rows.CHUNK_FIELDS` order."""
CHUNK = select(CHUNK_STORED)
ENTITY = select(ENTITY_FIELDS)
RELATION = select(RELATION_FIELDS, {"source_id": "record::id(in)", "target_id": "record::id(out)"})


def values(row: Row, fields: Sequence[str]) -> list[Any]:
    """A row's values in field order."""
    return [row.get(name) for name in fields]


def document(row: Row) -> Document:
    """A document from a :data:`DOCUMENT` row."""
    return CODEC.document(values(row, DOCUMENT_FIELDS))


def chunk(row: Row, embedding: Any = None) -> Chunk:
    """A chunk from a :data:`CHUNK` row (and its embedding, when given)."""
    return CODEC.chunk(values(row, CHUNK_STORED), embedding)


def entity(row: Row, embedding: Any = None) -> Entity:
    """An entity from an :data:`ENTITY` row (and its embedding, when given)."""
    return CODEC.entity(values(row, ENTITY_FIELDS), embedding)


def relation(row: Row) -> Relation:
    """A relation (no evidence) from a :data:`RELATION` row."""
    return CODEC.relation(values(row, RELATION_FIELDS))


def evidence(row: Row) -> Evidence:
    """Evidence from an evidence row."""
    return Evidence(row.get("chunk_id") or "", row["sentence"], row["char_start"], row["char_end"])

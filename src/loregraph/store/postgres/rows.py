"""Conversions between model records and PostgreSQL rows (vectors, times, column lists)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

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
)
from loregraph.store.postgres.connection import Conn

Row = tuple[Any, ...]


def utc(value: datetime) -> datetime:
    """An aware datetime (naive ones are taken to be UTC, as the SQLite store does)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def utc_or_none(value: datetime | None) -> datetime | None:
    """:func:`utc`, passing ``None`` through."""
    return None if value is None else utc(value)


def vector_text(vector: npt.ArrayLike) -> str:
    """A vector as pgvector's text form; ``float32`` values round-trip exactly."""
    values = np.asarray(vector, dtype=np.float32).reshape(-1).tolist()
    return "[" + ",".join(repr(value) for value in values) + "]"


def vector_or_none(vector: Vector | None) -> tuple[int | None, str | None]:
    """``(dim, text)`` of an optional embedding."""
    if vector is None:
        return None, None
    text = vector_text(vector)
    return int(np.asarray(vector).size), text


def parse_vector(text: str) -> Vector:
    """The inverse of :func:`vector_text`."""
    return np.array(text[1:-1].split(","), dtype=np.float64).astype(np.float32)


# ----------------------------------------------------------------- documents
DOCUMENT_COLUMNS = (
    "id, scope, title, source, content_hash, kind, visibility, owner, metadata, status, "
    "char_count, created_at, valid_at"
)


def document_from_row(row: Row) -> Document:
    """A document from a row of :data:`DOCUMENT_COLUMNS`."""
    return Document(
        id=row[0],
        scope=row[1],
        title=row[2],
        source=row[3],
        content_hash=row[4],
        kind=DocKind(row[5]),
        visibility=row[6],
        owner=row[7],
        metadata=row[8],
        status=DocStatus(row[9]),
        char_count=row[10],
        created_at=row[11],
        valid_at=row[12],
    )


# ----------------------------------------------------------------- chunks
CHUNK_SELECT = (
    'SELECT c.id, d.id, c.seq, c.start, c."end", c.text, c.token_count FROM chunks AS c '
    "JOIN documents AS d ON d.pk = c.document"
)


def chunk_from_row(row: Row) -> Chunk:
    """A chunk (without embedding) from a row of :data:`CHUNK_SELECT`."""
    return Chunk(
        id=row[0],
        document_id=row[1],
        seq=row[2],
        start=row[3],
        end=row[4],
        text=row[5],
        token_count=row[6],
    )


# ----------------------------------------------------------------- entities
ENTITY_COLUMNS = (
    "e.id, e.name, e.type, e.scope, e.description, e.aliases, e.mention_count, e.salience, "
    "e.confidence, e.created_at, e.updated_at"
)
"""Entity columns of alias ``e``."""


def entity_from_row(row: Row, embedding: str | None = None) -> Entity:
    """An entity from a row of :data:`ENTITY_COLUMNS` (and optionally its vector text)."""
    return Entity(
        id=row[0],
        name=row[1],
        type=row[2],
        scope=row[3],
        description=row[4],
        aliases=list(row[5]),
        mention_count=int(row[6]),
        salience=row[7],
        confidence=row[8],
        embedding=None if embedding is None else parse_vector(embedding),
        created_at=row[9],
        updated_at=row[10],
    )


# ----------------------------------------------------------------- relations
RELATION_SELECT = (
    "SELECT r.id, s.id, t.id, r.type, r.scope, r.fact, r.weight, r.confidence, r.valid_at, "
    "r.invalid_at, r.created_at, r.expired_at FROM relations AS r "
    "JOIN entities AS s ON s.pk = r.source JOIN entities AS t ON t.pk = r.target"
)
"""Relation rows (alias ``r``) with their ends' text ids; append ``WHERE``/``ORDER BY``."""


def relation_from_row(row: Row) -> Relation:
    """A relation (evidence not loaded) from a row of :data:`RELATION_SELECT`."""
    return Relation(
        id=row[0],
        source_id=row[1],
        target_id=row[2],
        type=row[3],
        scope=row[4],
        fact=row[5],
        weight=row[6],
        confidence=row[7],
        valid_at=row[8],
        invalid_at=row[9],
        created_at=row[10],
        expired_at=row[11],
    )


async def relations_by_pk(conn: Conn, pks: Sequence[int]) -> list[Relation]:
    """Relations (no evidence) in the order of ``pks`` (missing skipped)."""
    if not pks:
        return []
    cursor = await conn.execute(
        f"SELECT r.pk, {RELATION_SELECT.removeprefix('SELECT ')} WHERE r.pk = ANY(%s)",
        (list(pks),),
    )
    found = {row[0]: relation_from_row(row[1:]) for row in await cursor.fetchall()}
    return [found[pk] for pk in pks if pk in found]


async def attach_evidence(conn: Conn, relations: list[Relation]) -> list[Relation]:
    """Load the evidence of ``relations`` (chunk-less support rows are not listed)."""
    if not relations:
        return relations
    by_id = {relation.id: relation for relation in relations}
    cursor = await conn.execute(
        'SELECT r.id, c.id, v.sentence, v.start, v."end" FROM relations AS r '
        "JOIN relation_evidence AS v ON v.relation = r.pk JOIN chunks AS c ON c.pk = v.chunk "
        "WHERE r.id = ANY(%s) ORDER BY v.pk",
        (list(by_id),),
    )
    for relation_id, chunk_id, sentence, start, end in await cursor.fetchall():
        by_id[relation_id].evidence.append(Evidence(chunk_id, sentence, start, end))
    return relations


# ----------------------------------------------------------------- merges
MERGE_SELECT = (
    "SELECT e.id, m.surface, m.rule, m.score, m.scope, d.id, m.created_at FROM merges AS m "
    "JOIN entities AS e ON e.pk = m.entity LEFT JOIN documents AS d ON d.pk = m.document"
)


def merge_from_row(row: Row) -> Merge:
    """A merge record from a row of :data:`MERGE_SELECT`."""
    return Merge(
        entity_id=row[0],
        surface=row[1],
        rule=row[2],
        score=row[3],
        scope=row[4],
        document_id=row[5],
        created_at=row[6],
    )

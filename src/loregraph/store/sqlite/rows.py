"""Conversions between model records and SQLite rows (datetimes, JSON, vectors)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from loregraph.models import (
    Chunk,
    DocKind,
    DocStatus,
    Document,
    Entity,
    Evidence,
    Merge,
    Relation,
)
from loregraph.store.vectors import blob_to_vector

Row = tuple[Any, ...]

IN_JSON = "(SELECT value FROM json_each(?))"
"""An ``IN`` right-hand side taking one JSON-array parameter (see :func:`json_list`)."""


def json_list(values: Iterable[str] | Iterable[int]) -> str:
    """A JSON array parameter for :data:`IN_JSON` (any length, one bound parameter)."""
    return json.dumps(list(values), ensure_ascii=False)


def iso(value: datetime) -> str:
    """A datetime as fixed-width ISO-8601 UTC text (sorts chronologically as text).

    Naive datetimes are taken to be UTC.
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def iso_or_none(value: datetime | None) -> str | None:
    """:func:`iso`, passing ``None`` through."""
    return None if value is None else iso(value)


def parse_time(text: str) -> datetime:
    """The inverse of :func:`iso`."""
    return datetime.fromisoformat(text)


def parse_time_or_none(text: str | None) -> datetime | None:
    """:func:`parse_time`, passing ``None`` through."""
    return None if text is None else datetime.fromisoformat(text)


# ----------------------------------------------------------------- documents
DOCUMENT_COLUMNS = (
    "id, scope, title, source, content_hash, kind, visibility, owner, metadata, status, "
    "char_count, created_at, valid_at"
)


def document_params(doc: Document) -> Row:
    """The values of :data:`DOCUMENT_COLUMNS` for ``doc``."""
    return (
        doc.id,
        doc.scope,
        doc.title,
        doc.source,
        doc.content_hash,
        str(doc.kind),
        doc.visibility,
        doc.owner,
        json.dumps(doc.metadata, ensure_ascii=False, default=str),
        str(doc.status),
        doc.char_count,
        iso(doc.created_at),
        iso_or_none(doc.valid_at),
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
        metadata=json.loads(row[8]),
        status=DocStatus(row[9]),
        char_count=row[10],
        created_at=parse_time(row[11]),
        valid_at=parse_time_or_none(row[12]),
    )


# ----------------------------------------------------------------- chunks
CHUNK_COLUMNS = 'id, document_id, seq, start, "end", text, token_count'


def chunk_from_row(row: Row) -> Chunk:
    """A chunk (without embedding) from a row of :data:`CHUNK_COLUMNS`."""
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
    "id, name, type, scope, description, aliases, mention_count, salience, confidence, "
    "created_at, updated_at"
)


def entity_from_row(row: Row, embedding: bytes | None = None) -> Entity:
    """An entity from a row of :data:`ENTITY_COLUMNS` (and optionally its embedding blob)."""
    return Entity(
        id=row[0],
        name=row[1],
        type=row[2],
        scope=row[3],
        description=row[4],
        aliases=json.loads(row[5]),
        mention_count=row[6],
        salience=row[7],
        confidence=row[8],
        embedding=None if embedding is None else blob_to_vector(embedding),
        created_at=parse_time(row[9]),
        updated_at=parse_time(row[10]),
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
        valid_at=parse_time_or_none(row[8]),
        invalid_at=parse_time_or_none(row[9]),
        created_at=parse_time(row[10]),
        expired_at=parse_time_or_none(row[11]),
    )


def prefixed(columns: str, alias: str) -> str:
    """``"a, b"`` -> ``"r.a, r.b"`` for joins."""
    return ", ".join(f"{alias}.{name.strip()}" for name in columns.split(","))


def attach_evidence(conn: sqlite3.Connection, relations: list[Relation]) -> list[Relation]:
    """Load the evidence of ``relations`` (chunk-less support rows are not listed)."""
    if not relations:
        return relations
    by_id = {relation.id: relation for relation in relations}
    rows = conn.execute(
        'SELECT r.id, c.id, e.sentence, e.start, e."end" FROM relations AS r '
        "JOIN relation_evidence AS e ON e.relation = r.pk JOIN chunks AS c ON c.pk = e.chunk "
        f"WHERE r.id IN {IN_JSON} ORDER BY e.pk",
        (json_list(by_id),),
    )
    for relation_id, chunk_id, sentence, start, end in rows:
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
        created_at=parse_time(row[6]),
    )

"""PostgreSQL rows: column lists in the record field orders of :mod:`loregraph.store.rows`,
and how the store keeps values (:data:`CODEC`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from psycopg.types.json import Jsonb

from loregraph.models import Evidence, Relation, Vector
from loregraph.store.postgres.connection import Conn
from loregraph.store.rows import (
    DOCUMENT_FIELDS,
    ENTITY_FIELDS,
    Codec,
    columns,
)
from loregraph.store.sqlreads import RELATION_SELECT

Row = tuple[Any, ...]


def utc(value: datetime) -> datetime:
    """An aware datetime (naive ones are taken to be UTC, as the SQLite store does)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


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


class PostgresCodec(Codec):
    """Times as ``timestamptz``, metadata as ``jsonb``, alias lists as ``text[]``, vectors
    read back as pgvector's text form."""

    def time(self, value: datetime) -> Any:
        return utc(value)

    def metadata(self, value: dict[str, Any]) -> Any:
        return Jsonb(value, dumps=_dumps)

    def read_vector(self, value: Any) -> Vector:
        return parse_vector(value)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


CODEC = PostgresCodec()

DOCUMENT_COLUMNS = columns(DOCUMENT_FIELDS)
CHUNK_SELECT = (
    'SELECT c.id, d.id, c.seq, c.start, c."end", c.text, c.token_count FROM chunks AS c '
    "JOIN documents AS d ON d.pk = c.document"
)
ENTITY_COLUMNS = columns(ENTITY_FIELDS, "e")
"""Entity columns of alias ``e``."""


async def fetch(
    conn: Conn, sql: str, params: Sequence[object] | Mapping[str, object] = ()
) -> list[Row]:
    """The rows of one query."""
    cursor = await conn.execute(sql, params)
    return await cursor.fetchall()


async def relations_by_pk(conn: Conn, pks: Sequence[int]) -> list[Relation]:
    """Relations (no evidence) in the order of ``pks`` (missing skipped)."""
    if not pks:
        return []
    cursor = await conn.execute(
        f"SELECT r.pk, {RELATION_SELECT.removeprefix('SELECT ')} WHERE r.pk = ANY(%s)",
        (list(pks),),
    )
    found = {row[0]: CODEC.relation(row[1:]) for row in await cursor.fetchall()}
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

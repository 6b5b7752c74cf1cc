"""SQLite rows: column lists in the record field orders of :mod:`loregraph.store.rows`,
JSON array parameters, and how the store keeps values (:data:`CODEC`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from loregraph.models import Evidence, Relation, Vector
from loregraph.store.rows import (
    DOCUMENT_FIELDS,
    ENTITY_FIELDS,
    TextCodec,
    columns,
)
from loregraph.store.vectors import blob_to_vector

IN_JSON = "(SELECT value FROM json_each(?))"
"""An ``IN`` right-hand side taking one JSON-array parameter (see :func:`json_list`)."""


NO_LIMIT = -1
"""A ``LIMIT`` that lets every row through."""


def json_list(values: Iterable[str] | Iterable[int]) -> str:
    """A JSON array parameter for :data:`IN_JSON` (any length, one bound parameter)."""
    return json.dumps(list(values), ensure_ascii=False)


class SqliteCodec(TextCodec):
    """Times as ISO text, metadata and alias lists as JSON text, vectors as ``float32``
    BLOBs (:func:`~loregraph.store.vectors.vector_to_blob`)."""

    def read_aliases(self, value: Any) -> list[str]:
        aliases: list[str] = json.loads(value)
        return aliases

    def read_vector(self, value: Any) -> Vector:
        return blob_to_vector(value)


CODEC = SqliteCodec()

DOCUMENT_COLUMNS = columns(DOCUMENT_FIELDS)
CHUNK_COLUMNS = 'id, document_id, seq, start, "end", text, token_count'
ENTITY_COLUMNS = columns(ENTITY_FIELDS)


def prefixed(names: str, alias: str) -> str:
    """``"a, b"`` -> ``"r.a, r.b"`` for joins."""
    return ", ".join(f"{alias}.{name.strip()}" for name in names.split(","))


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

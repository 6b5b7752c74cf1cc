"""Records to and from stored values, the same for every backend.

Each backend selects a record's fields in one order (the ``*_FIELDS`` lists here) and says,
with a :class:`Codec`, how its database keeps what is not plain text or a number: times,
document metadata, alias lists and vectors. The records are built here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from loregraph.kinds import Visibility
from loregraph.models import (
    Chunk,
    DocKind,
    DocStatus,
    Document,
    Entity,
    EntityWrite,
    Evidence,
    Merge,
    Relation,
    Vector,
)

Row = Sequence[Any]

DOCUMENT_FIELDS = (
    "id", "scope", "title", "source", "content_hash", "kind", "visibility", "owner", "metadata",
    "status", "char_count", "created_at", "valid_at",
)  # fmt: skip
CHUNK_FIELDS = ("id", "document_id", "seq", "start", "end", "text", "token_count")
ENTITY_FIELDS = (
    "id", "name", "type", "scope", "description", "aliases", "mention_count", "salience",
    "confidence", "created_at", "updated_at",
)  # fmt: skip
RELATION_FIELDS = (
    "id", "source_id", "target_id", "type", "scope", "fact", "weight", "confidence", "valid_at",
    "invalid_at", "created_at", "expired_at", "invalidated_by", "statement",
)  # fmt: skip
MERGE_FIELDS = ("entity_id", "surface", "rule", "score", "scope", "document_id", "created_at")


def columns(fields: Sequence[str], alias: str | None = None) -> str:
    """``"a, b"`` (or ``"x.a, x.b"`` with an ``alias``) for a select list or RETURN clause."""
    return ", ".join(name if alias is None else f"{alias}.{name}" for name in fields)


K = TypeVar("K")


def iso(value: datetime) -> str:
    """A time as fixed-width ISO-8601 UTC text, which sorts chronologically as text.

    A naive time is taken to be UTC.
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def iso_or_none(value: datetime | None) -> str | None:
    """:func:`iso`, passing ``None`` through."""
    return None if value is None else iso(value)


class Codec:
    """How a backend keeps times, metadata, alias lists and vectors, and the records built
    from its rows. This base keeps times as ``datetime`` values and the rest as they are."""

    def time(self, value: datetime) -> Any:
        """A time as the database keeps it."""
        return value

    def read_time(self, value: Any) -> datetime:
        """The inverse of :meth:`time`."""
        time: datetime = value
        return time

    def metadata(self, value: dict[str, Any]) -> Any:
        """Document metadata as the database keeps it."""
        return value

    def read_metadata(self, value: Any) -> dict[str, Any]:
        """The inverse of :meth:`metadata`."""
        return dict(value)

    def read_aliases(self, value: Any) -> list[str]:
        """An entity's alias list as read back."""
        return list(value or [])

    def read_vector(self, value: Any) -> Vector:
        """An embedding as read back."""
        raise NotImplementedError

    def read_time_or_none(self, value: Any) -> datetime | None:
        """:meth:`read_time`, passing ``None`` through."""
        return None if value is None else self.read_time(value)

    # ----------------------------------------------------------------- records
    def document_values(self, doc: Document) -> tuple[Any, ...]:
        """A document's fields as stored, in the document field order."""
        valid = None if doc.valid_at is None else self.time(doc.valid_at)
        return (
            doc.id, doc.scope, doc.title, doc.source, doc.content_hash, str(doc.kind),
            str(doc.visibility), doc.owner, self.metadata(doc.metadata), str(doc.status),
            doc.char_count, self.time(doc.created_at), valid,
        )  # fmt: skip

    def document(self, row: Row) -> Document:
        """A document from its fields."""
        return Document(
            id=row[0], scope=row[1], title=row[2], source=row[3], content_hash=row[4],
            kind=DocKind(row[5]), visibility=Visibility(row[6]), owner=row[7],
            metadata=self.read_metadata(row[8]), status=DocStatus(row[9]),
            char_count=int(row[10]), created_at=self.read_time(row[11]),
            valid_at=self.read_time_or_none(row[12]),
        )  # fmt: skip

    def chunk(self, row: Row, embedding: Any = None) -> Chunk:
        """A chunk from its fields (and optionally its stored embedding)."""
        return Chunk(
            id=row[0], document_id=row[1], seq=int(row[2]), start=int(row[3]), end=int(row[4]),
            text=row[5], token_count=int(row[6]),
            embedding=None if embedding is None else self.read_vector(embedding),
        )  # fmt: skip

    def entity(self, row: Row, embedding: Any = None) -> Entity:
        """An entity from its fields (and optionally its stored embedding)."""
        return Entity(
            id=row[0], name=row[1], type=row[2], scope=row[3], description=row[4],
            aliases=self.read_aliases(row[5]), mention_count=int(row[6]),
            salience=float(row[7]), confidence=float(row[8]),
            embedding=None if embedding is None else self.read_vector(embedding),
            created_at=self.read_time(row[9]), updated_at=self.read_time(row[10]),
        )  # fmt: skip

    def relation(self, row: Row) -> Relation:
        """A relation (evidence not loaded) from its fields."""
        return Relation(
            id=row[0], source_id=row[1], target_id=row[2], type=row[3], scope=row[4],
            fact=row[5], weight=float(row[6]), confidence=float(row[7]),
            valid_at=self.read_time_or_none(row[8]), invalid_at=self.read_time_or_none(row[9]),
            created_at=self.read_time(row[10]), expired_at=self.read_time_or_none(row[11]),
            invalidated_by=row[12], statement=row[13] or "",
        )  # fmt: skip

    def merge(self, row: Row) -> Merge:
        """A merge record from its fields."""
        return Merge(
            entity_id=row[0], surface=row[1], rule=row[2], score=float(row[3]), scope=row[4],
            document_id=row[5], created_at=self.read_time(row[6]),
        )  # fmt: skip


class TextCodec(Codec):
    """Times as :func:`iso` text and metadata as JSON text (SQLite and the graph stores)."""

    def time(self, value: datetime) -> Any:
        return iso(value)

    def read_time(self, value: Any) -> datetime:
        return datetime.fromisoformat(value)

    def metadata(self, value: dict[str, Any]) -> Any:
        return json.dumps(value, ensure_ascii=False, default=str)

    def read_metadata(self, value: Any) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(value) if value else {}
        return loaded


def in_order(found: dict[str, Any], ids: Iterable[str]) -> list[Any]:
    """``found``'s values in the order of ``ids`` (each id once, missing ones skipped)."""
    return [found[i] for i in dict.fromkeys(ids) if i in found]


def supported_relations(rows: Iterable[tuple[Relation, Evidence, float]]) -> list[Relation]:
    """The relations one document supports, from ``(relation, evidence, confidence)`` rows
    in order: each with the document's evidence, ``weight`` = its number and
    ``confidence`` = the highest among it (see :meth:`Store.read_bundle`)."""
    relations: dict[str, Relation] = {}
    for relation, evidence, confidence in rows:
        found = relations.setdefault(relation.id, relation)
        if found is relation:
            found.weight, found.confidence, found.evidence = 0.0, confidence, []
        found.confidence = max(found.confidence, confidence)
        found.weight += 1
        found.evidence.append(evidence)
    return list(relations.values())


def listed_entity(
    entity: Entity,
    description: str,
    aliases: list[str],
    salience: float | None = None,
    confidence: float | None = None,
) -> EntityWrite:
    """How a document lists an entity in its bundle: the stored entity with the document's
    own description, aliases, salience and confidence (see :meth:`Store.read_bundle`); a
    salience or confidence the store does not know per document (``None``) stays the
    entity's."""
    entity.description, entity.aliases = description, aliases
    if salience is not None:
        entity.salience = float(salience)
    if confidence is not None:
        entity.confidence = float(confidence)
    return EntityWrite(entity, description, entity.salience)

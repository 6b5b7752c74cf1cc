"""What the relations a removed document supported become without it (the rules:
:mod:`loregraph.store.remaining`), read before the plan that removes it is applied."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from loregraph.models import Evidence, Relation
from loregraph.store.cypher import state
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.provenance import relation_sources
from loregraph.store.cypher.records import CODEC
from loregraph.store.provenance import RelationSource
from loregraph.store.remaining import derived_again, given_by
from loregraph.store.rows import iso_or_none


@dataclass(frozen=True, slots=True)
class Remains:
    """A relation a removed document supported: what the document gave it (its fact, its
    start), the other documents' evidence and their times, and the relation without it."""

    given: tuple[bool, bool]
    sources: list[RelationSource]
    times: dict[str, datetime | None]
    without: Relation

    @property
    def fact(self) -> str:
        """The fact without the document."""
        return self.without.fact

    @property
    def valid_at(self) -> str | None:
        """The start without the document (ISO)."""
        return iso_or_none(self.without.valid_at)


async def remains(
    conn: Connection, relation_ids: Sequence[str], document_id: str
) -> dict[str, Remains]:
    """Relation id → what ``document_id`` gave it and what it is without it (absent: the
    document gave it nothing that needs deriving again, or it is unknown)."""
    if not relation_ids:
        return {}
    stored = {
        relation_id: Relation(
            relation_id, "", "", "", fact=fact or "", valid_at=CODEC.read_time_or_none(at)
        )
        for relation_id, fact, at in await conn.read(
            "UNWIND $ids AS i MATCH ()-[r:LG_REL {id: i}]->() RETURN r.id, r.fact, r.valid_at",
            {"ids": list(relation_ids)},
        )
    }
    sources = await relation_sources(conn, list(stored))
    documents = sorted({s.document_id for found in sources.values() for s in found})
    times = {
        doc_id: CODEC.read_time_or_none(at)
        for doc_id, at in await conn.read(
            "UNWIND $ids AS i MATCH (d:LgDocument {id: i}) RETURN d.id, d.valid_at",
            {"ids": documents},
        )
    }
    result: dict[str, Remains] = {}
    for relation_id, relation in stored.items():
        found = sources.get(relation_id, [])
        given = given_by(relation, found, document_id, times)
        if not any(given):
            continue
        left = [s for s in found if s.document_id != document_id]
        fact, start = given
        without = derived_again(relation, left, times, fact=fact, start=start)
        result[relation_id] = Remains(given, left, times, without)
    return result


def replaced(
    found: state.RelationState,
    relation: Relation,
    evidence: Iterable[tuple[str, str, int, int]],
    left: dict[str, Remains],
) -> tuple[str, str | None]:
    """Fact and start (ISO) of a stored relation that a written bundle supports: what an
    earlier version of its document gave it is derived again from the other documents'
    evidence and the bundle's; the rest is the stored value joined with the bundle's."""
    start = iso_or_none(relation.valid_at)
    other = left.get(found.id)
    if other is None:
        starts = [s for s in (found.valid_at, start) if s]
        return found.fact or relation.fact, min(starts, default=None)
    doc = ""  # the bundle's evidence: no stored document has this id
    sources = [*other.sources, *(RelationSource(doc, Evidence(*piece)) for piece in evidence)]
    times = other.times | {doc: relation.valid_at}
    stored = replace(
        other.without, fact=found.fact, valid_at=CODEC.read_time_or_none(found.valid_at)
    )
    fact, began = other.given
    again = derived_again(stored, sources, times, fact=fact, start=began)
    starts = [s for s in (iso_or_none(again.valid_at), start) if s]
    return again.fact or relation.fact, min(starts, default=None)

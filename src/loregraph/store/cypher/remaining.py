"""What the relations a removed document supported become without it (the rule:
:mod:`loregraph.store.remaining`), read before the plan that removes it is applied."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from loregraph.models import Relation
from loregraph.store.cypher import state
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.provenance import relation_sources
from loregraph.store.cypher.records import CODEC
from loregraph.store.remaining import remaining_relation, remaining_start
from loregraph.store.rows import iso_or_none


@dataclass(frozen=True, slots=True)
class Remains:
    """A relation as the other documents' evidence makes it: its fact and start (ISO), and
    the sentences that evidence gives."""

    fact: str
    valid_at: str | None
    sentences: frozenset[str]


async def remains(
    conn: Connection, relation_ids: Sequence[str], document_id: str
) -> dict[str, Remains]:
    """Relation id → what it is without ``document_id``'s evidence (absent: nothing else
    supports it, or it is unknown)."""
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
    sources = {
        relation_id: [s for s in found if s.document_id != document_id]
        for relation_id, found in (await relation_sources(conn, list(stored))).items()
    }
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
        again = remaining_relation(relation, found, times)
        if again is None:
            continue
        sentences = frozenset(s.evidence.sentence for s in found if s.evidence.sentence)
        start = iso_or_none(remaining_start(found, times))
        result[relation_id] = Remains(again.fact, start, sentences)
    return result


def replaced(
    found: state.RelationState,
    relation: Relation,
    evidence: Iterable[tuple[str, str, int, int]],
    left: dict[str, Remains],
) -> tuple[str, str | None]:
    """Fact and start (ISO) of a stored relation that a written bundle supports: when it
    lost an earlier version's evidence (it is in ``left``), from the other documents'
    evidence and the bundle's, else the stored ones joined with the bundle's."""
    starts = [iso_or_none(relation.valid_at)]
    if found.id not in left:
        starts.append(found.valid_at)
        return found.fact or relation.fact, min((s for s in starts if s), default=None)
    other = left[found.id]
    said = other.sentences | {sentence for _, sentence, _, _ in evidence}
    fact = found.fact if found.fact in said else relation.fact or other.fact
    starts.append(other.valid_at)
    return fact, min((s for s in starts if s), default=None)

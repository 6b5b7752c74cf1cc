"""Ended facts shown as ended: with the retrieval setting ``show_ended``, a context lists the
question's start entities' facts that held once but no longer do at the query's time, each
with its dates and what replaced it ("until 2026-02-10; replaced by Hono").

By default ended facts are left out of contexts (:mod:`.timeline`); a fact is ended by its
validity data alone (:meth:`~loregraph.timepoint.TimePoint.ended`), never by the question.
"""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.models import ABOUT, CO_OCCURS, DocKind, Relation
from loregraph.retrieve.results.result import RankedRelation
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint

LATER = "a later statement"
"""What replaced an ended fact when neither a successor nor its ending text is known."""
MAX_ENDED = 16
"""Ended facts one retrieval shows (the latest ended first): each costs a lookup of what
replaced it, and a subject with a long history would otherwise fill the context."""


async def ended_facts(
    store: Store,
    facts: Sequence[Relation],
    relations: Sequence[RankedRelation],
    point: TimePoint,
) -> list[RankedRelation]:
    """The facts of ``facts`` ended at ``point`` and not among ``relations`` (the latest
    :data:`MAX_ENDED` to end), each with what replaced it, ranked after ``relations``."""
    have = {r.relation.id for r in relations}
    gone = [r for r in facts if r.id not in have and point.ended(r)]
    if not gone:
        return []
    gone.sort(key=lambda r: r.invalid_at or r.created_at, reverse=True)
    gone = gone[:MAX_ENDED]
    ends = sorted({r.source_id for r in facts} | {r.target_id for r in facts})
    names = {e.id: e.name for e in await store.get_entities(ends)}
    score = min((r.score for r in relations), default=1.0)
    out: list[RankedRelation] = []
    for rel in gone:
        replaced = await _replacement(store, rel, facts, names, point)
        source, target = names.get(rel.source_id, rel.source_id), names.get(rel.target_id, "")
        out.append(RankedRelation(rel, source, target, score, replaced_by=replaced))
    return out


async def _replacement(
    store: Store,
    ended: Relation,
    facts: Sequence[Relation],
    names: dict[str, str],
    point: TimePoint,
) -> str:
    """The other end of the fact of the same subject and type that began when ``ended``
    ended; else, when a memory ended it, the new end that memory states (:func:`_stated`);
    else the title of the memory or document that ended it (quoted)."""
    for other in facts:
        if (
            other.id != ended.id
            and (other.source_id, other.type) == (ended.source_id, ended.type)
            and other.valid_at is not None
            and other.valid_at == ended.invalid_at
            and point.begun(other)
        ):
            return names.get(other.target_id, "") or LATER
    if ended.invalidated_by is not None:
        document = await store.get_document(ended.invalidated_by)
        if document is not None and document.kind == DocKind.MEMORY:
            stated = await _stated(store, ended, document.id)
            if stated:
                return stated
        if document is not None and document.title:
            return f"“{document.title}”"
    return LATER


async def _stated(store: Store, ended: Relation, memory_id: str) -> str:
    """What the memory that ended ``ended`` gives in its place: the other end of a fact it
    states that is neither end of ``ended`` ("Priya Shah moved to Lisbon", "We replaced
    Redis with Valkey"), one about the same subject first, the last stated otherwise."""
    bundle = await store.read_bundle(memory_id)
    if bundle is None:
        return ""
    ends = {ended.source_id, ended.target_id}
    facts = [r for r in bundle.relations if r.type not in (CO_OCCURS, ABOUT)]
    same = [
        r.target_id for r in facts if r.source_id == ended.source_id and r.target_id not in ends
    ]
    other = [
        r.target_id if r.source_id in ends else r.source_id
        for r in facts
        if (r.source_id in ends) != (r.target_id in ends)
    ]
    chosen = (same or other or [""])[-1]
    if not chosen:
        return ""
    found = await store.get_entities([chosen])
    return found[0].name if found else ""

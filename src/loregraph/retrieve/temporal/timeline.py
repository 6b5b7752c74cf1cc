"""Retrieval at a point in world time: what holds now, or what held at ``as_of``.

After the passages are fused, :func:`at_time` applies the time the question is asked at:

* a memory or document not seen at the time point (:mod:`loregraph.timepoint`: its stated
  time after ``as_of``, or, with ``known_at``, stored after it) is not seen at all: its
  passages are left out. Content with no stated time is timeless: seen at any ``as_of``;
* a passage is **history** when, among the facts about the question's seed entities, it
  states only facts that do not hold at the query time (ended before it, or not begun):
  "The API server depends on Express." once a later memory replaced Express (a passage of
  the memory that ended a fact, stating that end, is no history). History
  passages are left out while other passages remain (the ``history`` query shows them);
* the graph lines are the relations holding at that time: with ``as_of`` or
  ``known_at``, relations that have ended since (which the expansion, following what
  holds now, did not take) are added from the seeds' relations, and relations that
  began after ``as_of`` (planned ones, at now) are left out;
  a relation whose every piece of evidence is in a history passage goes with it, others
  keep only their evidence from other passages;
  the entities kept are the seeds and the ends of those relations, without descriptions
  (a description may come from a later memory);
* a statement that a restatement of its fact took over from (``runs.py``) is not history
  while the fact holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from loregraph.models import ABOUT, CO_OCCURS, Relation
from loregraph.retrieve.results.result import (
    Passage,
    RankedDocument,
    RankedEntity,
    RankedRelation,
    StartEntity,
)
from loregraph.retrieve.temporal.ended import ended_facts
from loregraph.retrieve.temporal.runs import chains
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint

SEEDS_CHECKED = 5
"""How many of the best seeds' facts decide which passages are history."""
_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})


@dataclass(slots=True)
class TimedView:
    """The passages, documents and relations seen at the query time."""

    ranked: list[Passage]
    documents: list[RankedDocument]
    entities: list[RankedEntity]
    relations: list[RankedRelation]
    history: int = 0
    later: int = 0
    changes: list[RankedRelation] = field(default_factory=list)
    """The question's start entities' facts that ended by the query time, each with what
    replaced it (:mod:`.ended`), latest first."""
    seen: list[Passage] | None = None
    """Every passage seen at the time point, history passages in their rank: whether the
    store answers a question is judged on these (a fact that a later memory replaced
    still shows the question is answered; the replacement is the answer)."""


async def at_time(
    store: Store,
    ranked: list[Passage],
    documents: list[RankedDocument],
    entities: list[RankedEntity],
    relations: list[RankedRelation],
    seeds: Sequence[StartEntity],
    point: TimePoint | None = None,
    show_ended: bool = False,
) -> TimedView:
    """The passages (best first), documents and relations seen at ``point`` (``None``:
    now, with all the store knows); see the module notes. With ``show_ended``, history
    passages follow the current ones instead of being left out, and the seeds' facts ended
    by then follow the graph lines, marked as ended (:mod:`.ended`)."""
    point = point or TimePoint()
    when = point.world()
    later = await _later_documents(store, ranked, point)
    seen = [p for p in ranked if p.document_id not in later]
    facts = await _seed_facts(store, seeds)
    holding = [r for r in facts if point.holds(r)]
    current = {ev.chunk_id for r in holding for ev in r.evidence}
    current |= _restated(facts, holding, when)
    current |= _stating_ends(facts, {p.chunk_id: p.document_id for p in seen}, when)
    stale = {ev.chunk_id for r in facts for ev in r.evidence} - current
    kept = [p for p in seen if p.chunk_id not in stale]
    if not kept or show_ended:  # history passages after the current ones
        kept += [p for p in seen if p.chunk_id in stale]
    chunks = {p.document_id for p in kept}
    view = TimedView(
        ranked=kept,
        documents=[d for d in documents if d.document_id in chunks],
        entities=entities,
        relations=[_current_first(r, stale) for r in relations if not _only_in(r.relation, stale)],
        history=len(seen) - len(kept),
        later=len(ranked) - len(seen),
        seen=seen,
    )
    if point.now and not later and all(point.holds(r.relation) for r in view.relations):
        pass  # nothing planned in view: the graph as it stands
    else:  # a past time, or planned facts (begun after now) that are not current yet
        view.relations = await _relations_at(store, view.relations, holding, point)
        view.entities = _entities_at(entities, view.relations)
    view.changes = await ended_facts(store, facts, view.relations, point)
    if show_ended:
        view.relations += view.changes
    return view


def _current_first(ranked: RankedRelation, stale: set[str]) -> RankedRelation:
    """The relation without its evidence from history passages (nor a fact quoting it)."""
    rel = ranked.relation
    evidence = [ev for ev in rel.evidence if ev.chunk_id not in stale]
    if len(evidence) == len(rel.evidence):
        return ranked
    fact = rel.fact
    if evidence and fact in {ev.sentence for ev in rel.evidence if ev.chunk_id in stale}:
        fact = evidence[0].sentence
    return replace(ranked, relation=replace(rel, evidence=evidence, fact=fact))


def _restated(facts: Sequence[Relation], holding: Sequence[Relation], when: datetime) -> set[str]:
    """The chunks of earlier statements of a fact that still holds through a restatement
    of it (``runs.py``): "Alice lives in Lisbon." said twice is current in both."""
    held = {r.id for r in holding}
    return {
        ev.chunk_id
        for run in chains(facts)
        if len(run) > 1 and any(r.id in held for r in run)
        for r in run
        if r.valid_at is None or r.valid_at <= when
        for ev in r.evidence
    }


def _stating_ends(facts: Sequence[Relation], documents: dict[str, str], when: datetime) -> set[str]:
    """The chunks that state the end of a fact (by then): its evidence in the memory or
    document that ended it ("The API server no longer depends on Express")."""
    return {
        ev.chunk_id
        for r in facts
        if r.invalidated_by is not None and r.invalid_at is not None and r.invalid_at <= when
        for ev in r.evidence
        if documents.get(ev.chunk_id) == r.invalidated_by
    }


def _only_in(relation: Relation, chunks: set[str]) -> bool:
    """Whether all of a relation's (loaded) evidence is in ``chunks``."""
    found = [ev.chunk_id for ev in relation.evidence if ev.chunk_id]
    return bool(found) and all(chunk in chunks for chunk in found)


def _entities_at(
    entities: list[RankedEntity], relations: list[RankedRelation]
) -> list[RankedEntity]:
    """The seeds and the ends of ``relations``, without their descriptions."""
    ends = {r.relation.source_id for r in relations} | {r.relation.target_id for r in relations}
    return [
        replace(e, entity=replace(e.entity, description=""))
        for e in entities
        if e.is_start or e.entity.id in ends
    ]


async def _later_documents(store: Store, ranked: Sequence[Passage], point: TimePoint) -> set[str]:
    """The documents of ``ranked`` not seen at ``point`` (stated later, or stored after
    ``known_at``); without ``known_at`` the passages' own dates decide (no store call)."""
    if point.known_at is None:
        when = point.world()
        return {p.document_id for p in ranked if p.document_at is not None and p.document_at > when}
    out: set[str] = set()
    for document_id in dict.fromkeys(p.document_id for p in ranked):
        document = await store.get_document(document_id)
        if document is not None and not point.sees(document.valid_at, document.created_at):
            out.add(document_id)
    return out


async def _seed_facts(store: Store, seeds: Sequence[StartEntity]) -> list[Relation]:
    """The typed relations of the best seeds, whatever their time, with evidence."""
    facts: dict[str, Relation] = {}
    for seed in seeds[:SEEDS_CHECKED]:
        found = await store.entity_relations(seed.entity.id, history=True)
        facts.update((r.id, r) for r in found if r.type not in _NOT_FACTS)
    return list(facts.values())


async def _relations_at(
    store: Store, relations: list[RankedRelation], holding: list[Relation], point: TimePoint
) -> list[RankedRelation]:
    """The ranked relations holding at ``point``, then the seeds' facts holding then that
    the expansion did not follow (they have ended since)."""
    kept = [r for r in relations if point.holds(r.relation)]
    have = {r.relation.id for r in kept}
    missing = [r for r in holding if r.id not in have]
    if not missing:
        return kept
    ends = sorted({r.source_id for r in missing} | {r.target_id for r in missing})
    names = {e.id: e.name for e in await store.get_entities(ends)}
    score = min((r.score for r in kept), default=1.0)
    kept += [
        RankedRelation(r, names.get(r.source_id, r.source_id), names.get(r.target_id, ""), score)
        for r in missing
    ]
    return kept

"""A relation timeline: every fact the graph has held about an entity (or between two),
current and ended, with when each held and what ended it.

Facts are the typed relations (co-occurrence and ``ABOUT`` links state none). An ended fact
names the memory or document that ended it (``Relation.invalidated_by``); the timeline shows
that one's time and the sentence of it that states the new fact. Statements of one fact
that follow each other (a restatement, ``retrieve/temporal/runs.py``) show as one span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from loregraph.engine.paths import evidence_sentence
from loregraph.models import ABOUT, CO_OCCURS, Document, Entity, Relation
from loregraph.retrieve.temporal.runs import chains, joined
from loregraph.serial import Record, named
from loregraph.store.base import Store
from loregraph.timepoint import TimePoint

_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})


@dataclass(slots=True)
class Ending(Record):
    """What ended a fact: the memory or document, its time and its sentence."""

    document_id: str = field(metadata=named("id"))
    title: str = ""
    kind: str = ""
    at: datetime | None = None
    sentence: str = ""


@dataclass(slots=True)
class Fact:
    """One relation in a timeline, with the names of its ends."""

    relation: Relation
    source: str
    target: str
    ending: Ending | None = None

    @property
    def current(self) -> bool:
        """Whether the graph holds the fact true now."""
        return self.relation.invalid_at is None and self.relation.expired_at is None

    def to_dict(self) -> dict[str, Any]:
        """The fact as JSON: its ends and type, world and system times, evidence, ending."""
        r = self.relation
        return {
            "source": self.source,
            "type": r.type,
            "target": self.target,
            "current": self.current,
            "valid_at": _iso(r.valid_at),
            "invalid_at": _iso(r.invalid_at),
            "created_at": _iso(r.created_at),
            "expired_at": _iso(r.expired_at),
            "evidence": [piece.sentence for piece in r.evidence],
            "invalidated_by": None if self.ending is None else self.ending.to_dict(),
        }


@dataclass(slots=True)
class History:
    """The timeline of ``entity``'s facts (only those with ``other`` when given), in the
    order they started."""

    entity: Entity
    other: Entity | None = None
    facts: list[Fact] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The timeline as JSON."""
        return {
            "entity": self.entity.name,
            "other": None if self.other is None else self.other.name,
            "facts": [fact.to_dict() for fact in self.facts],
        }


async def relation_history(
    store: Store,
    entity: Entity,
    other: Entity | None = None,
    types: Sequence[str] | None = None,
    point: TimePoint | None = None,
) -> History:
    """The timeline of ``entity``'s facts (see the module notes); with ``point``, only
    those begun by its world time and known at its ``known_at``
    (:meth:`~loregraph.timepoint.TimePoint.begun`)."""
    found = await store.entity_relations(entity.id, direction="both", types=types, history=True)
    facts = [r for r in found if r.type not in _NOT_FACTS]
    if point is not None:  # as it stood then: a fact that held then shows no later end
        facts = [
            r
            if not point.holds(r)
            else replace(r, invalid_at=None, expired_at=None, invalidated_by=None)
            for r in facts
            if point.begun(r)
        ]
    if other is not None:
        facts = [r for r in facts if other.id in (r.source_id, r.target_id)]
    ends = sorted({r.source_id for r in facts} | {r.target_id for r in facts})
    names = {e.id: e.name for e in await store.get_entities(ends)}
    facts.sort(key=lambda r: (r.valid_at or r.created_at, r.created_at, r.id))
    history = History(entity, other)
    for rel in (joined(run) for run in chains(facts)):
        fact = Fact(rel, names.get(rel.source_id, rel.source_id), names.get(rel.target_id, ""))
        if rel.invalidated_by is not None:
            fact.ending = await _ending(store, rel, rel.invalidated_by)
        history.facts.append(fact)
    return history


async def _ending(store: Store, ended: Relation, document_id: str) -> Ending:
    """The memory or document that ended ``ended``, with its sentence stating the new fact
    (of the same source and type; else its first passage)."""
    document = await store.get_document(document_id)
    if document is None:
        return Ending(document_id)
    bundle = await store.read_bundle(document_id)
    sentence = ""
    if bundle is not None:
        for rel in bundle.relations:
            if (rel.source_id, rel.type) == (ended.source_id, ended.type):
                sentence = evidence_sentence(rel)
                if sentence:
                    break
        if not sentence and bundle.chunks:
            sentence = " ".join(bundle.chunks[0].text.split())[:300]
    return Ending(document.id, document.title, str(document.kind), _when(document), sentence)


def _when(document: Document) -> datetime:
    return document.valid_at or document.created_at


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()

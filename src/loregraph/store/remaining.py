"""What a relation is once a memory or document that supported it is gone (forgotten,
deleted, or replaced by a new version): what that document gave it is derived again from
the remaining documents' contributions, by the rule the access-control views use
(:func:`.visible.derive.visible_relation`), so that nothing the removed text said stays.

* its fact, when the removed document wrote it (it supported the relation first, or one of
  its evidence sentences is the fact): a remaining evidence sentence, the stored fact when
  one states it (a fact an LLM wrote from the removed text goes with it); empty when no
  evidence remains. A fact another document wrote, or one edited by hand, stays;
* its start (``valid_at``), when the removed document gave it (the first date one of its
  sentences states, read against its time, or that time): the earliest the remaining
  evidence gives; none when no remaining document has a time.

Weight, confidence and evidence are the backends' recompute (:mod:`.planning`'s rules);
an end the removed document set is opened by the backends' delete (``invalidated_by``).
Each backend, inside the transaction (or plan) that removes the document, reads with
:func:`given_by` what it gave the relations it supported (before its evidence is deleted)
and applies :func:`derived_again` once the evidence left is known (a new version's
included), or :func:`remaining_relation`, which does both from the evidence before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from loregraph.models import Relation
from loregraph.store.provenance import RelationSource
from loregraph.store.visible.derive import visible_relation
from loregraph.text.dates import date_in


def given_by(
    relation: Relation,
    sources: Sequence[RelationSource],
    document_id: str,
    times: Mapping[str, datetime | None],
) -> tuple[bool, bool]:
    """Whether ``document_id`` wrote the relation's fact, and whether it gave its start.
    ``sources``: all the relation's evidence in written order, the document's included
    (read before it is deleted); ``times``: each source document's time."""
    gone = [s for s in sources if s.document_id == document_id]
    first = bool(sources) and sources[0].document_id == document_id
    wrote = bool(relation.fact) and (first or relation.fact in {s.evidence.sentence for s in gone})
    start = relation.valid_at
    return wrote, start is not None and start in _starts(gone, times, both=True)


def derived_again(
    relation: Relation,
    sources: Sequence[RelationSource],
    times: Mapping[str, datetime | None],
    *,
    fact: bool,
    start: bool,
) -> Relation:
    """``relation`` with its ``fact`` and/or its ``start`` derived from ``sources`` (the
    evidence that remains, in written order)."""
    again = relation
    if fact:
        readable = {s.document_id for s in sources}
        shown = visible_relation(replace(relation, evidence=[]), sources, readable)
        again = replace(again, fact="" if shown is None else shown.fact)
    if start:
        again = replace(again, valid_at=min(_starts(sources, times), default=None))
    return again


def remaining_relation(
    relation: Relation,
    sources: Sequence[RelationSource],
    document_id: str,
    times: Mapping[str, datetime | None],
) -> Relation:
    """``relation`` once ``document_id`` is gone (``sources`` as for :func:`given_by`)."""
    fact, start = given_by(relation, sources, document_id, times)
    left = [s for s in sources if s.document_id != document_id]
    return derived_again(relation, left, times, fact=fact, start=start)


def _starts(
    sources: Sequence[RelationSource], times: Mapping[str, datetime | None], *, both: bool = False
) -> set[datetime]:
    """The start each source gives (its first stated date, else its document's time; with
    ``both``, each of the two)."""
    starts: set[datetime] = set()
    for source in sources:
        base = times.get(source.document_id)
        if base is None:
            continue
        sentence = source.evidence.sentence
        stated = date_in(sentence, base) if sentence else None
        starts.add(stated or base)
        if both:
            starts.add(base)
    return starts

"""What a relation is once a memory or document that supported it is gone (forgotten,
deleted, or replaced by a new version): derived again from the remaining documents'
contributions, by the rules the access-control views use (:mod:`.visible.derive`), so that
nothing the removed text said stays in the relation.

* its fact: the stored one when a remaining evidence sentence states it, else the first
  remaining evidence sentence (a fact an LLM wrote cannot be traced to the document it
  came from, so it goes too); an empty fact stays empty;
* its start (``valid_at``): the earliest time the remaining evidence gives: the first date
  a sentence states, read against its document's time, else that document's time; none
  when no remaining document has a time.

Weight, confidence and evidence are the backends' recompute (:mod:`.planning`'s rules);
an end the removed document set is opened by the backends' delete (``invalidated_by``).
Each backend applies :func:`remaining_relation` to the relations that lost evidence, inside
the transaction that removed it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from loregraph.models import Relation
from loregraph.store.provenance import RelationSource
from loregraph.store.visible.derive import visible_relation
from loregraph.text.dates import date_in


def remaining_relation(
    relation: Relation,
    sources: Sequence[RelationSource],
    times: Mapping[str, datetime | None],
) -> Relation | None:
    """``relation`` with its fact and start derived again from ``sources`` (the remaining
    evidence; ``times``: each source document's time). ``None`` when nothing remains."""
    shown = visible_relation(
        replace(relation, evidence=[]), sources, {s.document_id for s in sources}
    )
    if shown is None:
        return None
    return replace(relation, fact=shown.fact, valid_at=remaining_start(sources, times))


def remaining_start(
    sources: Sequence[RelationSource], times: Mapping[str, datetime | None]
) -> datetime | None:
    """The earliest start the sources give (see the module notes)."""
    starts: list[datetime] = []
    for source in sources:
        base = times.get(source.document_id)
        if base is None:
            continue
        stated = date_in(source.evidence.sentence, base) if source.evidence.sentence else None
        starts.append(stated or base)
    return min(starts, default=None)

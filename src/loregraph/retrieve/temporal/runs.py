"""Statements of one fact read as one span.

A dated fact of a functional type is one relation per memory or document stating it
(``ingest/facts/statements.py``): a restatement of the current target takes over from the
statement before it, which then ends at the restatement's time, "ended" by the document
that restated it. :func:`chains` finds those runs, so that a timeline shows one span per
run and a question sees the earlier statements of a fact that still holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from loregraph.models import Relation


def chains(relations: Iterable[Relation]) -> list[list[Relation]]:
    """``relations`` grouped into runs of one fact: a statement ended by a restatement of
    its fact (the relation of the same fact stated by the document that ended it) belongs
    to that one's run. Each run is in time order, the statement that ends it (or holds
    still) last; runs are in the order their first relation was given in."""
    ordered = list(relations)
    by_id = {rel.id: rel for rel in ordered}
    nexts: dict[str, str] = {}
    for rel in ordered:
        if rel.invalidated_by is not None:
            said = Relation.make_id(
                rel.scope, rel.source_id, rel.type, rel.target_id, rel.invalidated_by
            )
            if said in by_id and said != rel.id:
                nexts[rel.id] = said
    runs: dict[str, list[Relation]] = {}
    for rel in ordered:
        last, steps = rel.id, 0
        while last in nexts and steps <= len(ordered):
            last, steps = nexts[last], steps + 1
        runs.setdefault(last, []).append(rel)
    return [
        sorted(run, key=lambda r: (r.valid_at or r.created_at, r.id == last, r.id))
        for last, run in runs.items()
    ]


def joined(run: Sequence[Relation]) -> Relation:
    """A run of :func:`chains` as one relation: from its first start to its last end (and
    what ended that), with the evidence of all of them, latest first."""
    first, last = run[0], run[-1]
    if len(run) == 1:
        return first
    evidence = [ev for rel in reversed(run) for ev in rel.evidence]
    return replace(
        last,
        valid_at=first.valid_at,
        created_at=first.created_at,
        evidence=evidence,
        weight=sum(rel.weight for rel in run),
    )

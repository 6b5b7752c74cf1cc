"""Statements of one fact read as one span.

A dated fact of a functional type is one relation per memory or document stating it
(``ingest/statements.py``): a restatement of the current target takes over from the
statement before it, which then ends at the restatement's time, "ended" by the document
that restated it. :func:`chains` finds those runs, so that a timeline shows one span per
run and a question sees the earlier statements of a fact that still holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from loregraph.models import Relation


def chains(relations: Iterable[Relation]) -> list[list[Relation]]:
    """``relations`` (in the order given) grouped into runs of one fact: a statement ended
    by a restatement of its fact (the relation of the same fact stated by the document that
    ended it) continues into it. Each run is in time order; runs are in the order of their
    first relation."""
    ordered = list(relations)
    by_id = {rel.id: rel for rel in ordered}
    nexts: dict[str, Relation] = {}
    for rel in ordered:
        if rel.invalidated_by is None:
            continue
        source, kind, target = (rel.source_id, rel.type, rel.target_id)
        after = by_id.get(Relation.make_id(rel.scope, source, kind, target, rel.invalidated_by))
        if after is not None and after.id != rel.id:
            nexts[rel.id] = after
    followed = {rel.id for rel in nexts.values()}
    runs: list[list[Relation]] = []
    for rel in ordered:
        if rel.id in followed:
            continue
        run = [rel]
        while run[-1].id in nexts and len(run) <= len(ordered):
            run.append(nexts[run[-1].id])
        runs.append(run)
    return runs


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

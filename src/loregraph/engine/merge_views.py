"""What ``merges`` lists: :class:`MergeView`, one merge of a name into an entity, with the
entity's name and the document that caused it; and the listing itself, from the store's
recorded merges and the scope's remembered decisions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from loregraph.ingest.resolve.decisions import MANUAL
from loregraph.models import Entity, Merge
from loregraph.serial import Record, rounded
from loregraph.store.base import Store
from loregraph.store.changes import JOIN, SPLIT, Decision


@dataclass(slots=True)
class MergeView(Record):
    """A merge: ``surface`` was merged into the entity ``entity`` by ``rule``.

    ``id`` is stable (the same merge keeps it when its document is processed again) and is
    what :meth:`~loregraph.graph.AsyncGraph.unmerge` takes. ``document`` is the title of the
    document that caused it (empty for a merge made by hand); ``undone`` says it was undone
    (listed only when asked for).
    """

    id: str
    surface: str
    entity: str
    entity_id: str
    rule: str
    score: float = field(metadata=rounded(4))
    document_id: str | None
    document: str
    at: datetime
    principal: str = ""
    undone: bool = False


async def list_merge_views(
    store: Store, scope: str, entity: Entity | None, undone: bool
) -> list[MergeView]:
    """The scope's merges, newest first: recorded ones (those of a hand merge are listed
    once, as the hand merge), hand merges, and with ``undone`` the undone ones too."""
    recorded = [
        m for m in await store.list_merges(scope, None if entity is None else entity.id)
        if m.rule != MANUAL
    ]  # fmt: skip
    decisions = [
        d
        for d in await store.list_decisions(scope)
        if (d.kind == JOIN or undone) and (entity is None or d.entity_id == entity.id)
    ]
    ids = {m.entity_id for m in recorded} | {d.entity_id for d in decisions}
    names = {e.id: e.name for e in await store.get_entities(sorted(ids))}
    titles: dict[str, str] = {}
    for doc_id in {m.document_id for m in recorded} | {d.document_id for d in decisions}:
        if doc_id is not None:
            doc = await store.get_document(doc_id)
            titles[doc_id] = doc.title if doc is not None else ""
    views = [_recorded(m, names, titles) for m in recorded]
    views += [_decided(d, names, titles) for d in decisions]
    return sorted(views, key=lambda v: (v.at, v.id), reverse=True)


def _recorded(merge: Merge, names: dict[str, str], titles: dict[str, str]) -> MergeView:
    doc = merge.document_id
    return MergeView(
        merge.id, merge.surface, names.get(merge.entity_id, ""), merge.entity_id, merge.rule,
        merge.score, doc, titles.get(doc, "") if doc else "", merge.created_at,
    )  # fmt: skip


def _decided(decision: Decision, names: dict[str, str], titles: dict[str, str]) -> MergeView:
    doc = decision.document_id
    rule = MANUAL if decision.kind == JOIN else decision.rule
    return MergeView(
        decision.merge_id, decision.surface, names.get(decision.entity_id, ""),
        decision.entity_id, rule, decision.score, doc, titles.get(doc, "") if doc else "",
        decision.created_at, decision.principal, undone=decision.kind == SPLIT,
    )  # fmt: skip

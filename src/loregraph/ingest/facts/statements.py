"""A dated fact of a functional type is one relation per memory or document stating it.

Of a functional type (one current target per source, ``ExtractionSettings.
functional_relations``), a fact can stop holding and hold again: "X depends on A" (t1),
"X now depends on B instead of A" (t2), "X now depends on A instead of B" (t3). One relation
per (source, type, target) has one validity span, so A could not hold again after t2. So
each memory or document that states such a fact with a time gets its own relation (its id
names the document, :meth:`~loregraph.models.Relation.make_id`), with that document's
evidence only, and the functional rule (:func:`~loregraph.ingest.facts.supersede.timeline`) orders
the statements of a source and type: each holds from its time until the next one, whatever
its target, so a restatement of the current target takes over from the one before it and
the two read as one span (``retrieve/temporal/runs.py``). Forgetting or deleting a document then
removes exactly its statements (a relation left with no evidence goes), and the rule, run
again, gives back the spans the other statements make; no evidence moves between relations.

A dated fact of an event type (``ExtractionSettings.event_relations``: a commit's author
``AUTHORED`` a file) is one relation per memory or document too, so that a timeline shows
each event, but no rule orders them, and no rule ends one (:func:`sparing_events`).

Relations without a time (documents read in no order of the world) and of other types keep
one relation per (source, type, target), their evidence accumulated.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from loregraph.ingest.facts.ends import End
from loregraph.models import ABOUT, CO_OCCURS, DocumentBundle, Relation
from loregraph.store.base import Store

_NOT_FACTS = frozenset({CO_OCCURS, ABOUT})


def own_statements(
    bundle: DocumentBundle, functional: Collection[str], events: Collection[str] = ()
) -> None:
    """Give each dated relation of a functional or event type in ``bundle`` the id of its
    statement by the bundle's document (see the module notes)."""
    doc = bundle.document
    bundle.relations = [
        replace(
            rel,
            id=Relation.make_id(doc.scope, rel.source_id, rel.type, rel.target_id, doc.id),
            statement=doc.id,
        )
        if stated(rel, functional) or stated(rel, events)
        else rel
        for rel in bundle.relations
    ]


def stated(relation: Relation, functional: Collection[str]) -> bool:
    """Whether ``relation`` is a per-statement relation (a dated fact of a functional type)."""
    return (
        relation.type in functional
        and relation.type not in _NOT_FACTS
        and relation.valid_at is not None
    )


def triple(relation: Relation) -> tuple[str, str, str]:
    """The fact a relation states, whatever statement it is: (source, type, target)."""
    return (relation.source_id, relation.type, relation.target_id)


async def sparing_events(
    store: Store, bundle: DocumentBundle, ends: list[End], events: Collection[str]
) -> list[End]:
    """``ends`` (what ``bundle`` ends) without those of relations of an event type: an
    event, once it happened, never stops having happened (see the module notes)."""
    ending = [end.relation_id for end in ends if not end.reopen]
    if not events or not ending:
        return ends
    types = {r.id: r.type for r in await store.get_relations(ending)}
    types |= {r.id: r.type for r in bundle.relations}
    return [end for end in ends if end.reopen or types.get(end.relation_id) not in events]

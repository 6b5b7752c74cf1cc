"""Facts a removed memory had opened again end again.

A memory that states an ended fact again ("Sofia has moved back to Turin") opens it
(:mod:`.claim_ends`): the store forgets when and by what it had ended. When that memory is
forgotten or deleted, what it said no longer holds, so the fact must end again where the
memories that remain end it. The store cannot tell which of its open facts the memory
opened, so the ends are derived again from what remains:

1. the candidates are the open facts the memory states again (its claims
   :func:`~loregraph.ingest.clauses.rules.restates` their sentences), read before the delete;
2. for each, the remaining memories that name its source and are dated between its start
   and the removed memory (the latest :data:`MAX_ENDERS`) are read again in time order,
   exactly as they were read when written (:func:`~loregraph.ingest.facts.claim_ends.claim_ends`);
   the first whose claims end the fact ends it again, at its own time.

A fact stated again with no end in between ("still lives in Turin") stays open.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from loregraph.ingest.facts.claim_ends import ClaimReader, claim_ends, restated
from loregraph.ingest.facts.ends import started
from loregraph.models import DocKind, Document, DocumentBundle, Relation, utcnow
from loregraph.store.base import Store

MAX_ENDERS = 16
"""Remaining memories read again for one fact (the latest before the removed memory)."""


async def ends_again(
    store: Store, bundle: DocumentBundle, read: ClaimReader | None
) -> list[Relation]:
    """The open facts ``bundle``'s memory stated again that a remaining memory ends, each as
    a relation carrying its end (for ``Store.delete_document``'s ``ends``); planned before
    the memory is deleted."""
    document = bundle.document
    if read is None or document.kind != DocKind.MEMORY:
        return []
    when = document.valid_at or document.created_at
    gone = {chunk.id for chunk in bundle.chunks}
    now = utcnow()
    out: list[Relation] = []
    for fact in await restated(store, bundle, read):
        if all(ev.chunk_id in gone for ev in fact.evidence if ev.chunk_id) and not fact.statement:
            continue  # only the removed memory supports it: it goes with the memory
        for ender in await _enders(store, fact, document, when):
            found = await _end_by(store, ender, fact, read)
            if found is not None:
                out.append(
                    replace(
                        fact, evidence=[], invalid_at=found, expired_at=now, invalidated_by=ender.id
                    )
                )
                break
    return out


async def _enders(
    store: Store, fact: Relation, removed: Document, until: datetime
) -> list[Document]:
    """The memories other than ``removed`` with a fact of ``fact``'s source, dated after
    ``fact`` started and no later than ``until``: the latest :data:`MAX_ENDERS`, earliest
    first."""
    related = await store.entity_relations(fact.source_id, direction="both", history=True)
    chunk_ids = sorted({ev.chunk_id for r in related for ev in r.evidence if ev.chunk_id})
    ids = {c.document_id for c in await store.get_chunks(chunk_ids)}
    ids |= {r.statement for r in related if r.statement}
    ids.discard(removed.id)
    found = []
    for doc_id in sorted(ids):
        doc = await store.get_document(doc_id)
        if doc is None or doc.kind != DocKind.MEMORY:
            continue
        at = doc.valid_at or doc.created_at
        if started(fact) < at <= until:
            found.append((at, doc))
    found.sort(key=lambda item: item[0])
    return [doc for _, doc in found[-MAX_ENDERS:]]


async def _end_by(
    store: Store, memory: Document, fact: Relation, read: ClaimReader
) -> datetime | None:
    """When ``memory``'s claims end ``fact`` (as they did when it was written), if they do."""
    bundle = await store.read_bundle(memory.id)
    if bundle is None:
        return None
    claimed = await claim_ends(store, bundle, read)
    return next((at for rel, at in claimed.ends if rel.id == fact.id), None)

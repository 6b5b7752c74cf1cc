"""Suggestions: the connections a person did not ask about (``graph.explore.suggest``,
:func:`suggest_for`).

Given a document (a story, a note, a memory), the other documents of the scope about the
same people, places, periods and other things, each with the entities they share and a
short reason ("also about Mina Harker and Whitby"). A shared entity counts by how rare it
is, its inverse document frequency ``log((N + 1) / df)`` over the ``N`` documents of the
scope (``df``: the documents that mention it): two stories meeting at a lake house only
they mention are closer than two that both name the family everyone names. A document that
shares an entity and tells of the same year (both documents' ``valid_at``) shares a period
too, weighed the same way by how many documents tell of that year ("also about Walter
Marsh, in 1962"); a year alone connects nothing. Documents rank by the summed weight of
what they share, then by how many entities they share.

The graph is read from the retrieval's in-memory index (one per scope, rebuilt when the
graph changes), so a suggestion costs no graph query beyond the entities' names.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from loregraph.models import Document
from loregraph.retrieve.graph.graphindex import SHARED_CACHE, GraphCache, GraphIndex
from loregraph.serial import Record
from loregraph.store.base import Store

REASON_NAMES = 3
"""Shared entities a reason names (the weightiest); the rest are counted."""


@dataclass(frozen=True, slots=True)
class SharedEntity(Record):
    """An entity two documents both mention, with its weight (its rarity in the scope)."""

    id: str
    name: str
    type: str
    weight: float


@dataclass(frozen=True, slots=True)
class Suggestion(Record):
    """Another document connected to the one asked about: the entities both mention
    (weightiest first), their summed weight (``score``) and the reason in words."""

    document_id: str
    title: str
    kind: str
    score: float
    shared: tuple[SharedEntity, ...]
    reason: str
    period: str | None = None
    """The year both documents tell of, when they do."""


def reason_for(names: list[str], period: str | None = None) -> str:
    """The reason in words: "also about A, B and C" (the first :data:`REASON_NAMES` names;
    the rest counted), and ", in 1962" with a shared period."""
    shown = names[:REASON_NAMES]
    more = len(names) - len(shown)
    if more:
        listed = ", ".join(shown) + f" and {more} more"
    elif len(shown) > 1:
        listed = ", ".join(shown[:-1]) + " and " + shown[-1]
    else:
        listed = shown[0] if shown else ""
    return f"also about {listed}" + (f", in {period}" if period else "")


def shared_periods(documents: Sequence[Document], document: Document) -> dict[str, float]:
    """Other document id → the weight of the year it tells of with ``document`` (by how
    many of ``documents`` tell of that year)."""
    if document.valid_at is None:
        return {}
    year = document.valid_at.year
    same = {d.id for d in documents if d.valid_at is not None and d.valid_at.year == year}
    weight = math.log((len(documents) + 1) / max(len(same), 1))
    return {d: weight for d in same if d != document.id}


def _documents_of(index: GraphIndex, entity_ids: list[str]) -> dict[str, set[str]]:
    """Entity id → the documents with a chunk mentioning it."""
    documents, chunk_index = index.arrays.chunk_document, index.chunk_index
    out: dict[str, set[str]] = defaultdict(set)
    for entity_id, chunk_id, _ in index.mentions_of(entity_ids):
        out[entity_id].add(documents[chunk_index[chunk_id]])
    return out


def rank_connections(index: GraphIndex, document_id: str) -> list[tuple[str, dict[str, float]]]:
    """Every other document sharing an entity with ``document_id``, best first, with the
    weight of each shared entity (by entity id)."""
    chunks = index.document_chunks([document_id])[document_id]
    own = list(dict.fromkeys(e for ids in index.entities_in(chunks).values() for e in ids))
    holders = _documents_of(index, own)
    total = len(set(index.arrays.chunk_document))
    shared: dict[str, dict[str, float]] = defaultdict(dict)
    for entity_id, docs in holders.items():
        weight = math.log((total + 1) / len(docs))
        for other in docs - {document_id}:
            shared[other][entity_id] = weight
    return sorted(shared.items(), key=lambda kv: (-sum(kv[1].values()), -len(kv[1]), kv[0]))


async def suggest_for(
    store: Store, document: Document, limit: int, cache: GraphCache = SHARED_CACHE
) -> list[Suggestion]:
    """At most ``limit`` documents connected to ``document`` (see the module)."""
    index, _ = await cache.get(store, document.scope)
    ranked = rank_connections(index, document.id)
    listed = await store.list_documents(document.scope) if ranked else []
    documents = {d.id: d for d in listed}
    periods = shared_periods(listed, document)
    ranked.sort(key=lambda kv: (-sum(kv[1].values()) - periods.get(kv[0], 0.0), -len(kv[1])))
    ranked = ranked[:limit]
    wanted = sorted({e for _, weights in ranked for e in weights})
    entities = {e.id: e for e in await store.get_entities(wanted)} if wanted else {}
    year = str(document.valid_at.year) if document.valid_at is not None else None
    out: list[Suggestion] = []
    for doc_id, weights in ranked:
        other = documents.get(doc_id)
        found = [
            SharedEntity(e, entities[e].name, entities[e].type, round(w, 4))
            for e, w in weights.items()
            if e in entities
        ]
        if other is None or not found:
            continue
        found.sort(key=lambda s: (-s.weight, s.name))
        period = year if doc_id in periods else None
        score = round(sum(s.weight for s in found) + periods.get(doc_id, 0.0), 4)
        reason = reason_for([s.name for s in found], period)
        kind = str(other.kind)
        out.append(Suggestion(doc_id, other.title, kind, score, tuple(found), reason, period))
    return out

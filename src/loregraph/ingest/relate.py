"""The relate stage: candidate relations and occurrences mapped onto resolved entities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from loregraph.ingest.types import CandidateEntity, CandidateRelation
from loregraph.models import (
    ABOUT,
    Entity,
    Evidence,
    Mention,
    Relation,
    name_key,
    utcnow,
)
from loregraph.text.dates import date_in
from loregraph.text.entity_types import PERSON
from loregraph.text.names import may_name_one_person


def surface_index(
    candidates: Sequence[CandidateEntity], clustered: Sequence[tuple[str, str, str]]
) -> dict[str, str]:
    """Map the name key of every surface form to the canonical candidate name it belongs to."""
    index: dict[str, str] = {}
    for cand in candidates:
        index.setdefault(name_key(cand.name), cand.name)
    for surface, canonical, _rule in clustered:
        index.setdefault(name_key(surface), canonical)
    for cand in candidates:
        for occ in cand.occurrences:
            index.setdefault(name_key(occ.surface), cand.name)
    return index


def build_mentions(
    nodes: Sequence[CandidateEntity],
    entities: Mapping[str, Entity],
    chunk_ids: Sequence[str],
) -> list[Mention]:
    """One mention per (entity, chunk, surface), counts summed."""
    counts: dict[tuple[str, str, str], int] = {}
    for cand in nodes:
        entity = entities.get(cand.name)
        if entity is None:
            continue
        for occ in cand.occurrences:
            if not 0 <= occ.chunk_seq < len(chunk_ids):
                continue
            key = (entity.id, chunk_ids[occ.chunk_seq], occ.surface.strip() or cand.name)
            counts[key] = counts.get(key, 0) + max(occ.count, 1)
    return [Mention(entity_id=e, chunk_id=c, surface=s, count=n) for (e, c, s), n in counts.items()]


def build_relations(
    candidates: Sequence[CandidateRelation],
    surfaces: Mapping[str, str],
    entities: Mapping[str, Entity],
    chunk_ids: Sequence[str],
    scope: str,
    valid_at: datetime | None = None,
) -> tuple[list[Relation], int]:
    """Relations between resolved entities, duplicates merged; returns (relations, dropped).

    A candidate whose ends do not resolve to a written entity, whose two ends are the same
    entity, or whose ends are two persons one of whose names is part of the other's
    ("Harker" / "Jonathan Harker": perhaps one person, see
    :func:`~loregraph.text.names.may_name_one_person`) is dropped and counted. ``ABOUT``
    (a short document's subject to the names it mentions) states no fact between its ends
    and is kept: from a short form of the subject's name it leads to the subject.
    ``valid_at`` is the time of the memory or document the candidates come from; each
    relation's ``valid_at`` is :func:`fact_time` of it.
    """
    merged: dict[str, Relation] = {}
    dropped = 0
    learnt = utcnow()  # one time for the document's relations: none is later than another
    for cand in candidates:
        src = _lookup(cand.source, surfaces, entities)
        dst = _lookup(cand.target, surfaces, entities)
        if src is None or dst is None or not _relates(cand.type, src, dst):
            dropped += 1
            continue
        rel_type = cand.type.strip().upper() or "RELATED_TO"
        rel_id = Relation.make_id(scope, src.id, rel_type, dst.id)
        rel = merged.get(rel_id)
        if rel is None:
            rel = Relation(
                id=rel_id,
                source_id=src.id,
                target_id=dst.id,
                type=rel_type,
                scope=scope,
                fact=cand.fact,
                weight=0.0,
                confidence=cand.confidence,
                valid_at=fact_time(cand, valid_at),
                created_at=learnt,
            )
            merged[rel_id] = rel
        else:
            rel.confidence = max(rel.confidence, cand.confidence)
            when = fact_time(cand, valid_at)
            if when is not None and rel.valid_at is not None and when < rel.valid_at:
                rel.valid_at = when
            if not rel.fact and cand.fact:
                rel.fact = cand.fact
        seen = {(ev.chunk_id, ev.start, ev.end) for ev in rel.evidence}
        for ev in cand.evidence:
            if not 0 <= ev.chunk_seq < len(chunk_ids):
                continue
            key = (chunk_ids[ev.chunk_seq], ev.start, ev.end)
            if key in seen:
                continue
            seen.add(key)
            rel.evidence.append(
                Evidence(chunk_id=key[0], sentence=ev.sentence, start=ev.start, end=ev.end)
            )
        rel.weight = float(len(rel.evidence)) or 1.0
    kept = [rel for rel in merged.values() if rel.evidence]
    dropped += len(merged) - len(kept)
    return kept, dropped


def fact_time(candidate: CandidateRelation, document_time: datetime | None) -> datetime | None:
    """When the fact of ``candidate`` became true: the first date its sentences give
    ("in March 2025", "last week", read relative to ``document_time``), else the time of
    the memory or document it was read from. The sentences of a document without a time
    are not read: their relative dates have nothing to be read against, and a book's
    dates would set its facts apart in time from one another. A candidate's own time
    (``at``), when its reader knew it, comes first."""
    if candidate.at is not None:
        return candidate.at
    if document_time is None:
        return None
    for piece in candidate.evidence:
        found = date_in(piece.sentence, document_time)
        if found is not None:
            return found
    return document_time


def _relates(kind: str, a: Entity, b: Entity) -> bool:
    """Whether a relation of ``kind`` may join two (resolved) entities (see above)."""
    if a.id == b.id:
        return False
    one_person = a.type == PERSON == b.type and may_name_one_person(a.name, b.name)
    return kind == ABOUT or not one_person


def _lookup(
    name: str, surfaces: Mapping[str, str], entities: Mapping[str, Entity]
) -> Entity | None:
    if name in entities:
        return entities[name]
    canonical = surfaces.get(name_key(name))
    return entities.get(canonical) if canonical is not None else None


def as_written(entity: Entity, cand: CandidateEntity) -> Entity:
    """The entity as this document lists it: with the names this document calls it by as
    aliases and this document's salience and confidence, not those other documents gave a
    stored entity (so that replacing or deleting the document takes exactly its own
    contribution away)."""
    own = name_key(entity.name)
    names = {cand.name, *(o.surface for o in cand.occurrences)}
    aliases = sorted(n for n in names if name_key(n) != own)
    return replace(entity, aliases=aliases, salience=cand.salience, confidence=cand.confidence)

"""What a reader sees of one entity or relation: the values the store derives from every
document's contributions (:mod:`loregraph.store.planning`), derived again from the readable
documents' contributions only.

An entity is visible when a readable document lists or mentions it. Its mention count is the
sum of the readable mentions; its description the longest readable description; its aliases
one surface per alias key the readable documents used; its salience and confidence the
highest the readable listing documents gave. Its name stays when a readable document calls
it by that name; otherwise it is the surface the readable documents use most, so that a name
only an unreadable document gave never shows.

A relation is visible when a readable document supports it. Its evidence is the readable
evidence, its weight the number of readable evidence rows, its confidence the highest among
them; its fact (the sentence that first stated it) is a readable evidence sentence. An end
set by an unreadable document (``invalidated_by``) does not show: to the reader the relation
is still open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import replace

from loregraph.models import Entity, Merge, Relation, name_key
from loregraph.store.planning import alias_list, best_description
from loregraph.store.provenance import EntitySource, RelationSource


def visible_entity(
    entity: Entity, sources: Sequence[EntitySource], readable: Container[str]
) -> Entity | None:
    """``entity`` as the readable documents' contributions make it (``None``: invisible)."""
    seen = [source for source in sources if source.document_id in readable]
    if not seen:
        return None
    listed = [source for source in seen if source.listed]
    surfaces: Counter[str] = Counter()
    for source in seen:
        for surface, count in source.surfaces:
            surfaces[surface] += count
    name = _visible_name(entity.name, surfaces, seen)
    aliases: dict[str, str] = {}
    for source in seen:
        for key, surface in source.aliases:
            if key not in aliases or surface < aliases[key]:
                aliases[key] = surface
    shown, _ = alias_list(name_key(name), aliases)
    return replace(
        entity,
        name=name,
        description=best_description([source.description for source in listed]),
        aliases=shown,
        mention_count=sum(source.mentions for source in seen),
        salience=max((s.salience for s in listed if s.salience is not None), default=0.0),
        confidence=max((s.confidence for s in listed if s.confidence is not None), default=1.0),
    )


def _visible_name(name: str, surfaces: Counter[str], seen: Sequence[EntitySource]) -> str:
    """The stored name when a readable document used it (or used no other name), else the
    readable name used most (mentions first, then the names the documents listed it by)."""
    candidates = Counter(surfaces)
    for source in seen:
        for _, surface in source.aliases:
            candidates.setdefault(surface, 0)
    if not candidates or name_key(name) in {name_key(c) for c in candidates}:
        return name
    return min(candidates, key=lambda c: (-candidates[c], -len(c), c))


def visible_relation(
    relation: Relation, sources: Sequence[RelationSource], readable: Container[str]
) -> Relation | None:
    """``relation`` as the readable documents' evidence makes it (``None``: invisible).

    Evidence is listed only when the store's copy listed it (some reads leave it out);
    chunk-less support counts towards the weight but is not listed, as the stores do.
    """
    seen = [source for source in sources if source.document_id in readable]
    if not seen:
        return None
    evidence = (
        [source.evidence for source in seen if source.evidence.chunk_id]
        if relation.evidence
        else []
    )
    fact = relation.fact
    if fact:  # the stored one is the first stating document's sentence: a readable one
        sentences = [source.evidence.sentence for source in seen if source.evidence.sentence]
        fact = fact if fact in sentences else (sentences[0] if sentences else "")
    shown = replace(
        relation,
        fact=fact,
        weight=float(len(seen)),
        confidence=max(source.confidence for source in seen),
        evidence=evidence,
    )
    if relation.invalidated_by is not None and relation.invalidated_by not in readable:
        shown = replace(shown, invalid_at=None, expired_at=None, invalidated_by=None)
    return shown


def visible_merge(merge: Merge, readable: Container[str]) -> bool:
    """Whether a recorded merge shows: the document it was made in is readable (a merge
    made by hand, without a document, shows to whoever sees its entity)."""
    return merge.document_id is None or merge.document_id in readable

"""Planning a graph store's write or delete: read the touched state (the backend's
:class:`~loregraph.store.planstate.WriteState`), compute every derived value, once for the
graph backends.

Which entities a bundle writes, and what it adds to them, is planned by
:func:`loregraph.store.planning.plan_bundle`, as in the SQL stores; derived values follow
the same rules (see :mod:`loregraph.store.planning`):

* an entity is supported while it has a mention or a document that lists it; an
  unsupported entity is removed with its relations;
* a relation left with no evidence is removed.

The plan is computed in Python from a few reads, then written by the backend in one
atomic statement or transaction, which only runs if no other writer moved the store's
write sequence since the reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.models import DeleteReport, DocumentBundle, Entity, Relation, Vector, utcnow
from loregraph.store.planning import (
    BundlePlan,
    PlannedEntity,
    alias_list,
    best_description,
    contributed_max,
    plan_bundle,
    referenced_ids,
    unknown_keys,
)
from loregraph.store.planstate import (
    EntityState,
    OldDocument,
    Remains,
    WriteState,
    entity_states,
    merge_aliases,
    remains,
    replaced,
)
from loregraph.store.props import document_props, entity_props, relation_props
from loregraph.store.rows import iso, iso_or_none


@dataclass(slots=True)
class WritePlan:
    """Everything one write statement does, as parameter lists."""

    scope: str
    document_id: str
    seq: int
    replace: bool = False
    document: dict[str, Any] | None = None
    chunks: list[dict[str, Any]] = field(default_factory=list)
    dead_entities: list[str] = field(default_factory=list)
    dead_relations: list[str] = field(default_factory=list)
    new_entities: list[dict[str, Any]] = field(default_factory=list)
    entity_updates: list[dict[str, Any]] = field(default_factory=list)
    key_owners: list[str] = field(default_factory=list)
    keys: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    contributions: list[dict[str, Any]] = field(default_factory=list)
    new_relations: list[dict[str, Any]] = field(default_factory=list)
    relation_updates: list[dict[str, Any]] = field(default_factory=list)
    relation_weights: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    merges: list[dict[str, Any]] = field(default_factory=list)
    invalidations: list[dict[str, Any]] = field(default_factory=list)
    """``{id, invalid_at, expired_at, invalidated_by}`` of the relations the document ends."""
    dims: dict[str, int] = field(default_factory=dict)
    """Vector dimension per kind of record written (``entity``, ``chunk``)."""
    report: DeleteReport = field(default_factory=lambda: DeleteReport(""))
    written_entities: list[str] = field(default_factory=list)
    """Ids of entities created or recomputed (for the caller's name index)."""


async def plan_delete(
    reads: WriteState, document_id: str, ends: Sequence[Relation] = ()
) -> WritePlan | None:
    """The plan deleting ``document_id``, then ending ``ends`` (as a bundle's
    invalidations); ``None``: there is no such document."""
    seq = await reads.meta_seq()
    old = await reads.old_document(document_id)
    if old is None:
        return None
    plan = WritePlan(old.scope, document_id, seq, replace=True)
    plan.invalidations = invalidation_rows(ends)
    await _recompute(reads, plan, old, BundlePlan())
    report = plan.report
    report.document_id = document_id
    report.chunks, report.mentions = len(old.chunk_ids), old.mentions
    report.entities_removed = len(plan.dead_entities)
    report.relations_removed = len(plan.dead_relations)
    report.relations_weakened = len(old.relations - set(plan.dead_relations))
    return plan


def invalidation_rows(ends: Sequence[Relation]) -> list[dict[str, Any]]:
    """``{id, invalid_at, expired_at, invalidated_by}`` of relations to end."""
    return [
        {
            "id": rel.id,
            "invalid_at": iso_or_none(rel.invalid_at),
            "expired_at": iso_or_none(rel.expired_at),
            "invalidated_by": rel.invalidated_by,
        }
        for rel in ends
    ]


async def plan_write(reads: WriteState, bundle: DocumentBundle) -> WritePlan:
    """The plan writing (or replacing) a document; raises ``ValueError`` for a bad bundle."""
    bundle.validate()
    doc = bundle.document
    seq = await reads.meta_seq()
    old = await reads.old_document(doc.id)
    if old is not None and old.scope != doc.scope:
        raise ValueError(f"document {doc.id} is stored in scope {old.scope!r}, not {doc.scope!r}")
    foreign = await reads.foreign_chunks(doc.id, [c.id for c in bundle.chunks])
    if foreign:
        raise ValueError(f"chunk {foreign[0]} of document {doc.id} belongs to another document")
    ids = sorted({w.entity.id for w in bundle.entities} | referenced_ids(bundle))
    stored = await reads.stored_by_id(ids)
    by_key = await reads.stored_by_key(doc.scope, sorted(unknown_keys(bundle, stored)))
    ours = plan_bundle(bundle, stored, by_key)
    plan = WritePlan(doc.scope, doc.id, seq, replace=old is not None)
    plan.document = document_props(doc)
    plan.invalidations = invalidation_rows(bundle.invalidations)
    for chunk in bundle.chunks:
        vector = _vector(chunk.embedding)
        _dim(plan, "chunk", vector)
        plan.chunks.append(
            {
                "id": chunk.id,
                "document_id": doc.id,
                "scope": doc.scope,
                "seq": chunk.seq,
                "char_start": chunk.start,
                "char_end": chunk.end,
                "text": chunk.text,
                "title": doc.title,
                "token_count": chunk.token_count,
                "embedding": vector,
            }
        )
    await _recompute(reads, plan, old or OldDocument(doc.scope), ours)
    for offset, merge in enumerate(bundle.merges):
        plan.merges.append(
            {
                "scope": doc.scope,
                "entity_id": ours.final[merge.entity_id],
                "surface": merge.surface,
                "rule": merge.rule,
                "score": float(merge.score),
                "document_id": doc.id,
                "created_at": iso(merge.created_at),
                "ord": seq * 1_000_000 + offset,
            }
        )
    return plan


def _vector(vector: Vector | None) -> npt.NDArray[np.float32] | None:
    """An embedding as a flat float32 array (the connection renders it as a list)."""
    return None if vector is None else np.asarray(vector, dtype=np.float32).reshape(-1)


def _dim(plan: WritePlan, kind: str, vector: npt.NDArray[np.float32] | None) -> None:
    if vector is None:
        return
    dim = plan.dims.setdefault(kind, len(vector))
    if dim != len(vector):
        raise ValueError(f"{kind} embeddings of dimensions {dim} and {len(vector)} in one write")


def _mention_counts(ours: BundlePlan) -> dict[str, tuple[int, int]]:
    """Final entity id -> (sum of the document's mention counts, number of mention rows)."""
    counts: dict[str, tuple[int, int]] = {}
    for (entity_id, _, _), count in ours.mentions.items():
        total, rows = counts.get(entity_id, (0, 0))
        counts[entity_id] = (total + count, rows + 1)
    return counts


async def _recompute(
    reads: WriteState, plan: WritePlan, old: OldDocument, ours: BundlePlan
) -> None:
    """Fill the plan's entity, mention, relation and evidence parts."""
    now = utcnow()
    counts = _mention_counts(ours)
    new = set(ours.new)
    touched = set(old.entities) | set(ours.updated) | (set(counts) - new)
    touched |= set(ours.aliases) - new
    dead = await _update_entities(reads, plan, ours, sorted(touched), counts, iso(now))
    for entity_id in ours.new:
        item = ours.listed[entity_id]
        surfaces = _keys(plan, entity_id, item.key, ours.aliases.get(entity_id, {}))
        count = counts.get(entity_id, (0, 0))[0]
        node = Entity(entity_id, item.entity.name, item.type, plan.scope, item.description())
        node.aliases, node.mention_count = surfaces, count
        node.salience, node.confidence = item.salience, item.confidence
        node.created_at, node.updated_at = item.entity.created_at, now
        row = entity_props(node)
        row["embedding"] = _vector(item.embedding)
        _dim(plan, "entity", row["embedding"])
        plan.new_entities.append(row)
    plan.dead_entities = sorted(dead)
    plan.key_owners = sorted(touched)
    plan.written_entities = [row["id"] for row in plan.entity_updates + plan.new_entities]
    plan.mentions = [
        {"entity_id": entity_id, "chunk_id": chunk_id, "surface": surface, "count": count}
        for (entity_id, chunk_id, surface), count in ours.mentions.items()
    ]
    for entity_id in dict.fromkeys([*ours.listed, *ours.aliases]):
        listing = ours.listed.get(entity_id)
        plan.contributions.append(
            {
                "entity_id": entity_id,
                "document_id": plan.document_id,
                "listed": 1 if listing is not None else 0,
                "description": "" if listing is None else listing.description(),
                "salience": None if listing is None else listing.salience,
                "confidence": None if listing is None else listing.confidence,
                "aliases": json.dumps(ours.aliases.get(entity_id, {}), ensure_ascii=False),
            }
        )
    dead_relations = await reads.relations_of(sorted(dead)) if dead else set()
    await _relations(reads, plan, old, ours, dead, dead_relations)


async def _update_entities(
    reads: WriteState,
    plan: WritePlan,
    ours: BundlePlan,
    touched: list[str],
    counts: dict[str, tuple[int, int]],
    now: str,
) -> set[str]:
    """Recompute the touched stored entities into the plan; returns the unsupported ones."""
    states = await entity_states(reads, touched, plan.document_id)
    dead: set[str] = set()
    for entity_id in touched:
        found = states.get(entity_id)
        if found is None:
            continue
        item = ours.listed.get(entity_id)
        total, rows = counts.get(entity_id, (0, 0))
        if rows + found.mention_rows == 0 and not found.listed and item is None:
            dead.add(entity_id)
            continue
        aliases = merge_aliases(found.aliases, ours.aliases.get(entity_id, {}))
        surfaces = _keys(plan, entity_id, found.key, aliases)
        descriptions = [*found.descriptions, *([] if item is None else [item.description()])]
        update: dict[str, Any] = {
            "id": entity_id,
            "type": found.type,
            "description": best_description(descriptions),
            "aliases": surfaces,
            "alias_text": " ".join(surfaces),
            "mention_count": total + found.mention_sum,
            "salience": found.salience,
            "confidence": found.confidence,
            "updated_at": now,
            "embedding": None,
        }
        update["salience"], update["confidence"] = _scores(found, item)
        if item is not None:
            update["type"] = found.type or item.type
            update["embedding"] = _vector(item.embedding)
            _dim(plan, "entity", update["embedding"])
        plan.entity_updates.append(update)
    return dead


def _scores(found: EntityState, item: PlannedEntity | None) -> tuple[float, float]:
    """A stored entity's salience and confidence from the other documents' contributions
    and this document's (``item``: it lists the entity); see
    :func:`~loregraph.store.planning.contributed_max`."""
    if item is None:
        return (
            contributed_max(found.salience, found.saliences),
            contributed_max(found.confidence, found.confidences),
        )
    return (
        contributed_max(max(found.salience, item.salience), [*found.saliences, item.salience]),
        contributed_max(
            max(found.confidence, item.confidence), [*found.confidences, item.confidence]
        ),
    )


def _keys(plan: WritePlan, entity_id: str, key: str, aliases: dict[str, str]) -> list[str]:
    """Add an entity's name and alias key rows to the plan; returns its alias surfaces."""
    surfaces, alias_keys = alias_list(key, aliases)
    plan.keys.append({"entity_id": entity_id, "scope": plan.scope, "key": key, "canonical": 1})
    plan.keys.extend(
        {"entity_id": entity_id, "scope": plan.scope, "key": k, "canonical": 0} for k in alias_keys
    )
    return surfaces


async def _relations(
    reads: WriteState,
    plan: WritePlan,
    old: OldDocument,
    ours: BundlePlan,
    dead: set[str],
    dead_relations: set[str],
) -> None:
    """Fill the plan's relation, weight and evidence parts."""
    groups = ours.relations
    stored = await reads.relations_by_key(list(groups))
    touched = sorted(set(old.relations) | {found.id for found in stored.values()})
    others = await reads.other_evidence(touched, plan.document_id)
    left = await remains(reads, sorted(old.relations), plan.document_id)
    kept: set[str] = set()
    for key, group in groups.items():
        if key[0] in dead or key[2] in dead:
            continue
        found = stored.get(key)
        count, confidence = (0, 0.0) if found is None else others.get(found.id, (0, 0.0))
        rel = group.relation
        weight = float(count + len(group.evidence))
        best = max(confidence, group.confidence)
        if found is not None:
            kept.add(found.id)
            fact, began = replaced(found, group.relation, group.evidence, left)
            plan.relation_updates.append(
                {
                    "id": found.id,
                    "weight": weight,
                    "confidence": best,
                    "fact": fact,
                    "valid_at": began,
                    "invalid_at": iso_or_none(rel.invalid_at) or found.invalid_at,
                    "expired_at": iso_or_none(rel.expired_at) or found.expired_at,
                }
            )
        else:
            source, _, target, _ = key
            written = relation_props(rel) | {"source_id": source, "target_id": target}
            written |= {"scope": plan.scope, "weight": weight, "confidence": best}
            plan.new_relations.append(written)
        relation_id = rel.id if found is None else found.id
        for chunk_id, sentence, start, end in group.evidence:
            plan.evidence.append(
                {
                    "relation_id": relation_id,
                    "document_id": plan.document_id,
                    "chunk_id": chunk_id or None,
                    "sentence": sentence,
                    "char_start": start,
                    "char_end": end,
                    "confidence": group.confidence,
                    "ord": plan.seq * 1_000_000 + len(plan.evidence),
                }
            )
    _reweigh(plan, touched, kept, others, dead_relations, left)


def _reweigh(
    plan: WritePlan,
    touched: list[str],
    kept: set[str],
    others: dict[str, tuple[int, float]],
    dead_relations: set[str],
    left: dict[str, Remains],
) -> None:
    """Weights of the touched relations the bundle does not support; dead ones go."""
    for relation_id in touched:
        if relation_id in kept or relation_id in dead_relations:
            continue
        count, confidence = others.get(relation_id, (0, 0.0))
        if count == 0:
            dead_relations.add(relation_id)
        else:
            row: dict[str, Any] = {"id": relation_id, "weight": float(count)}
            row["confidence"] = confidence
            if relation_id in left:
                row["fact"], row["valid_at"] = left[relation_id].fact, left[relation_id].valid_at
            plan.relation_weights.append(row)
    plan.dead_relations = sorted(dead_relations - kept)

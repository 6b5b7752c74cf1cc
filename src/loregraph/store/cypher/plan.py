"""Planning a write or a delete: read the touched state, compute every derived value.

Derived values follow the SQL stores exactly (see :mod:`loregraph.store.sqlite.cleanup`):

* entity ``mention_count`` = sum of its mention counts; ``aliases`` = one surface (the
  smallest) per distinct alias key any document used, never the canonical key, sorted;
  ``description`` = the longest non-empty description a listing document gave;
* an entity is supported while it has a mention or a document that lists it; an
  unsupported entity is removed with its relations;
* relation ``weight`` = its number of evidence rows (a relation asserted without evidence
  contributes one chunk-less row), ``confidence`` = their highest; a relation left with no
  evidence is removed.

The plan is computed in Python from a few reads, then written by one statement
(:mod:`.apply`); the statement only runs if no other writer moved the store's write
sequence since the reads (see :mod:`.apply`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.models import DeleteReport, DocumentBundle, Evidence, Relation, Vector, utcnow
from loregraph.store.cypher import state
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.mapping import (
    EntityMap,
    alias_list,
    best_description,
    map_entities,
    referenced_ids,
    wanted_keys,
)
from loregraph.store.cypher.records import document_props, iso, iso_or_none, type_text


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
    dims: dict[str, int] = field(default_factory=dict)
    """Vector dimension per label written (``LgEntity``, ``LgChunk``)."""
    report: DeleteReport = field(default_factory=lambda: DeleteReport(""))
    written_entities: list[str] = field(default_factory=list)
    """Ids of entities created or recomputed (for the caller's name index)."""


async def plan_delete(conn: Connection, document_id: str) -> WritePlan | None:
    """The plan deleting ``document_id`` (``None``: there is no such document)."""
    seq = await state.meta_seq(conn)
    old = await state.old_document(conn, document_id)
    if old is None:
        return None
    plan = WritePlan(old.scope, document_id, seq, replace=True)
    await _recompute(conn, plan, old, None, EntityMap())
    report = plan.report
    report.document_id = document_id
    report.chunks, report.mentions = len(old.chunk_ids), old.mentions
    report.entities_removed = len(plan.dead_entities)
    report.relations_removed = len(plan.dead_relations)
    report.relations_weakened = len(old.relations - set(plan.dead_relations))
    return plan


async def plan_write(conn: Connection, bundle: DocumentBundle) -> WritePlan:
    """The plan writing (or replacing) a document; raises ``ValueError`` for a bad bundle."""
    bundle.validate()
    doc = bundle.document
    seq = await state.meta_seq(conn)
    old = await state.old_document(conn, doc.id)
    if old is not None and old.scope != doc.scope:
        raise ValueError(f"document {doc.id} is stored in scope {old.scope!r}, not {doc.scope!r}")
    foreign = await state.foreign_chunks(conn, doc.id, [c.id for c in bundle.chunks])
    if foreign:
        raise ValueError(f"chunk {foreign[0]} of document {doc.id} belongs to another document")
    ids = sorted({w.entity.id for w in bundle.entities} | referenced_ids(bundle))
    stored = await state.stored_by_id(conn, ids)
    by_key = await state.stored_by_key(conn, doc.scope, sorted(wanted_keys(bundle, stored)), stored)
    mapping = map_entities(bundle, stored, by_key)
    plan = WritePlan(doc.scope, doc.id, seq, replace=old is not None)
    plan.document = document_props(doc)
    for chunk in bundle.chunks:
        vector = _vector(chunk.embedding)
        _dim(plan, "LgChunk", vector)
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
    await _recompute(conn, plan, old or state.OldDocument(doc.scope), bundle, mapping)
    for offset, merge in enumerate(bundle.merges):
        plan.merges.append(
            {
                "scope": doc.scope,
                "entity_id": mapping.final[merge.entity_id],
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


def _dim(plan: WritePlan, label: str, vector: npt.NDArray[np.float32] | None) -> None:
    if vector is None:
        return
    dim = plan.dims.setdefault(label, len(vector))
    if dim != len(vector):
        raise ValueError(f"{label} embeddings of dimensions {dim} and {len(vector)} in one write")


async def _recompute(
    conn: Connection,
    plan: WritePlan,
    old: state.OldDocument,
    bundle: DocumentBundle | None,
    mapping: EntityMap,
) -> None:
    """Fill the plan's entity, mention, relation and evidence parts."""
    now = iso(utcnow())
    touched = set(old.entities) | {i for i, item in mapping.listed.items() if item.stored}
    mention_rows: dict[tuple[str, str, str], int] = {}
    if bundle is not None:
        for mention in bundle.mentions:
            key = (mapping.final[mention.entity_id], mention.chunk_id, mention.surface)
            mention_rows[key] = mention_rows.get(key, 0) + mention.count
    bundle_mentions = state.group_counts([(e, n) for (e, _, _), n in mention_rows.items()])
    new = mapping.new
    new_ids = set(new)
    touched |= {entity_id for entity_id in bundle_mentions if entity_id not in new_ids}
    touched |= set(mapping.aliases) - new_ids
    states = await state.entity_states(conn, sorted(touched), plan.document_id)
    dead: set[str] = set()
    for entity_id in sorted(touched):
        found = states.get(entity_id)
        if found is None:
            continue
        item = mapping.listed.get(entity_id)
        total, rows = bundle_mentions.get(entity_id, [0, 0])
        listed = found.listed or item is not None
        if rows + found.mention_rows == 0 and not listed:
            dead.add(entity_id)
            continue
        descriptions = list(found.descriptions)
        if item is not None:
            descriptions.append(best_description(item.descriptions))
        aliases = state.merge_aliases(found.aliases, mapping.aliases.get(entity_id, {}))
        update = _derived(entity_id, found.key, plan.scope, total + found.mention_sum, now)
        update.update(_aliases(found.key, aliases, descriptions, plan, entity_id))
        update.update(type=found.type, salience=found.salience, confidence=found.confidence)
        update["embedding"] = None
        if item is not None:
            update["type"] = found.type or item.type
            update["salience"] = max(found.salience, item.salience)
            update["confidence"] = max(found.confidence, item.confidence)
            if item.embedding is not None:
                update["embedding"] = _vector(item.embedding)
                _dim(plan, "LgEntity", update["embedding"])
        plan.entity_updates.append(update)
    for entity_id in new:
        item = mapping.listed[entity_id]
        total, _ = bundle_mentions.get(entity_id, [0, 0])
        row = _derived(entity_id, item.key, plan.scope, total, now)
        row.update(_aliases(item.key, mapping.aliases.get(entity_id, {}), [], plan, entity_id))
        row["description"] = best_description(item.descriptions)
        vector = _vector(item.embedding)
        _dim(plan, "LgEntity", vector)
        row.update(
            name=item.entity.name,
            type=item.type,
            salience=item.salience,
            confidence=item.confidence,
            created_at=iso(item.entity.created_at),
            embedding=vector,
        )
        plan.new_entities.append(row)
    plan.dead_entities = sorted(dead)
    plan.key_owners = sorted(touched)
    plan.written_entities = [row["id"] for row in plan.entity_updates + plan.new_entities]
    for (entity_id, chunk_id, surface), count in mention_rows.items():
        plan.mentions.append(
            {"entity_id": entity_id, "chunk_id": chunk_id, "surface": surface, "count": count}
        )
    for entity_id in dict.fromkeys([*mapping.listed, *mapping.aliases]):
        item = mapping.listed.get(entity_id)
        plan.contributions.append(
            {
                "entity_id": entity_id,
                "document_id": plan.document_id,
                "listed": 1 if item is not None else 0,
                "description": "" if item is None else best_description(item.descriptions),
                "aliases": json.dumps(mapping.aliases.get(entity_id, {}), ensure_ascii=False),
            }
        )
    dead_relations = await state.relations_of(conn, sorted(dead)) if dead else set()
    await _relations(conn, plan, old, bundle, mapping, dead, dead_relations)


def _derived(entity_id: str, key: str, scope: str, count: int, now: str) -> dict[str, Any]:
    return {
        "id": entity_id,
        "scope": scope,
        "name_key": key,
        "mention_count": count,
        "updated_at": now,
    }


def _aliases(
    key: str, aliases: dict[str, str], descriptions: list[str], plan: WritePlan, entity_id: str
) -> dict[str, Any]:
    surfaces, alias_keys = alias_list(key, aliases)
    plan.keys.append({"entity_id": entity_id, "scope": plan.scope, "key": key, "canonical": 1})
    plan.keys.extend(
        {"entity_id": entity_id, "scope": plan.scope, "key": k, "canonical": 0} for k in alias_keys
    )
    return {
        "aliases": surfaces,
        "alias_text": " ".join(surfaces),
        "description": best_description(descriptions),
    }


@dataclass(slots=True)
class _Group:
    relation: Relation
    confidence: float = 0.0
    evidence: dict[tuple[str, str, int, int], None] = field(default_factory=dict)


async def _relations(
    conn: Connection,
    plan: WritePlan,
    old: state.OldDocument,
    bundle: DocumentBundle | None,
    mapping: EntityMap,
    dead: set[str],
    dead_relations: set[str],
) -> None:
    groups: dict[tuple[str, str, str], _Group] = {}
    for relation in [] if bundle is None else bundle.relations:
        key = (mapping.final[relation.source_id], relation.type, mapping.final[relation.target_id])
        group = groups.setdefault(key, _Group(relation))
        group.confidence = max(group.confidence, relation.confidence)
        for ev in relation.evidence or [Evidence("")]:
            group.evidence[(ev.chunk_id, ev.sentence, ev.start, ev.end)] = None
    stored = await state.relations_by_triple(conn, list(groups))
    touched = sorted(set(old.relations) | {found.id for found in stored.values()})
    others = await state.other_evidence(conn, touched, plan.document_id)
    kept: set[str] = set()
    for key, group in groups.items():
        if key[0] in dead or key[2] in dead:
            continue
        count, confidence = others.get(stored[key].id, (0, 0.0)) if key in stored else (0, 0.0)
        rel = group.relation
        weight = float(count + len(group.evidence))
        best = max(confidence, group.confidence)
        found = stored.get(key)
        if found is not None:
            kept.add(found.id)
            plan.relation_updates.append(
                {
                    "id": found.id,
                    "weight": weight,
                    "confidence": best,
                    "fact": found.fact or rel.fact,
                    "valid_at": _earliest(found.valid_at, iso_or_none(rel.valid_at)),
                    "invalid_at": iso_or_none(rel.invalid_at) or found.invalid_at,
                    "expired_at": iso_or_none(rel.expired_at) or found.expired_at,
                }
            )
            relation_id = found.id
        else:
            relation_id = rel.id
            plan.new_relations.append(
                {
                    "id": rel.id,
                    "source_id": key[0],
                    "target_id": key[2],
                    "type": rel.type,
                    "type_text": type_text(rel.type),
                    "scope": plan.scope,
                    "fact": rel.fact,
                    "weight": weight,
                    "confidence": best,
                    "valid_at": iso_or_none(rel.valid_at),
                    "invalid_at": iso_or_none(rel.invalid_at),
                    "created_at": iso(rel.created_at),
                    "expired_at": iso_or_none(rel.expired_at),
                }
            )
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
    for relation_id in touched:
        if relation_id in kept or relation_id in dead_relations:
            continue
        count, confidence = others.get(relation_id, (0, 0.0))
        if count == 0:
            dead_relations.add(relation_id)
        else:
            plan.relation_weights.append(
                {"id": relation_id, "weight": float(count), "confidence": confidence}
            )
    plan.dead_relations = sorted(dead_relations - kept)


def _earliest(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return a or b
    return min(a, b)

"""Upserting a bundle's entities, mentions, relations and evidence (inside a transaction).

Rules for what a bundle adds to rows the store already holds:

* entity: keeps its id, ``created_at``, name and type (the type is filled in when empty);
  ``salience`` and ``confidence`` become the maximum seen; a provided embedding replaces
  the stored one; aliases, description and ``mention_count`` are recomputed afterwards
  (see :mod:`.cleanup`);
* entity description: a document's contribution is its ``EntityWrite.description``; for an
  entity new to the store, ``Entity.description`` stands in when that is empty (for a stored
  entity it is not used: it is usually the stored description read back by the caller);
* relation: keeps its id and fact (filled in when empty); ``valid_at`` becomes the earliest
  known, ``invalid_at``/``expired_at`` take the bundle's value when it gives one; ``weight``
  (= evidence count) and ``confidence`` (= max over evidence) are recomputed afterwards.

New rows get explicit, increasing pks (``max(pk) + 1`` onwards, safe inside the write
transaction) so that nothing has to be read back after an ``executemany``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from loregraph.models import DocumentBundle, Evidence, Relation
from loregraph.store.sqlite.cleanup import Changes, alias_fields, best_description
from loregraph.store.sqlite.fts import index_entities, index_relations, unindex_relations
from loregraph.store.sqlite.plan import EntityPlan
from loregraph.store.sqlite.rows import IN_JSON, iso, iso_or_none, json_list
from loregraph.store.vectors import vector_to_blob


@dataclass(slots=True)
class _RelationGroup:
    """Bundle relations with the same (source, type, target), merged."""

    relation: Relation
    evidence: dict[tuple[str, str, int, int], None] = field(default_factory=dict)
    confidence: float = 0.0


def next_pk(conn: sqlite3.Connection, table: str) -> int:
    """The first free pk of ``table``."""
    row = conn.execute(f"SELECT coalesce(max(pk), 0) + 1 FROM {table}").fetchone()
    return int(row[0])


def write_entities(
    conn: sqlite3.Connection,
    bundle: DocumentBundle,
    plan: EntityPlan,
    doc_pk: int,
    chunks: dict[str, int],
    now: str,
) -> None:
    doc = bundle.document
    counts: dict[str, int] = defaultdict(int)
    mentions: dict[tuple[int, int, str], int] = defaultdict(int)
    for mention in bundle.mentions:
        final = plan.final[mention.entity_id]
        counts[final] += mention.count
        mentions[(plan.pks[final], chunks[mention.chunk_id], mention.surface)] += mention.count
    new_rows = []
    vectors: list[tuple[int, bytes]] = []
    for entity_id, new in plan.new.items():
        aliases_json, search_keys = alias_fields(new.key, plan.aliases.get(entity_id, {}))
        if new.embedding is not None:
            vectors.append((plan.pks[entity_id], vector_to_blob(new.embedding)))
        new_rows.append(
            (
                plan.pks[entity_id],
                entity_id,
                doc.scope,
                new.entity.name,
                new.key,
                new.type,
                best_description(plan.descriptions[entity_id]),
                aliases_json,
                search_keys,
                counts.get(entity_id, 0),
                new.salience,
                new.confidence,
                iso(new.entity.created_at),
                now,
            )
        )
    conn.executemany(
        "INSERT INTO entities(pk, id, scope, name, name_key, type, description, aliases, "
        "search_keys, mention_count, salience, confidence, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        new_rows,
    )
    index_entities(conn, json_list(row[0] for row in new_rows))
    conn.executemany(
        "UPDATE entities SET type = CASE WHEN type = '' THEN ? ELSE type END, "
        "salience = max(salience, ?), confidence = max(confidence, ?), updated_at = ? "
        "WHERE pk = ?",
        [
            (update.type, update.salience, update.confidence, now, plan.pks[entity_id])
            for entity_id, update in plan.existing.items()
        ],
    )
    vectors.extend(
        (plan.pks[entity_id], vector_to_blob(update.embedding))
        for entity_id, update in plan.existing.items()
        if update.embedding is not None
    )
    conn.executemany(
        "INSERT INTO entity_vectors(entity, embedding) VALUES (?, ?) "
        "ON CONFLICT(entity) DO UPDATE SET embedding = excluded.embedding",
        vectors,
    )
    conn.executemany(
        "INSERT INTO entity_descriptions(entity, document, description) VALUES (?, ?, ?)",
        [
            (plan.pks[entity_id], doc_pk, best_description(texts))
            for entity_id, texts in plan.descriptions.items()
        ],
    )
    conn.executemany(
        "INSERT INTO entity_aliases(entity, alias_key, document, alias) VALUES (?, ?, ?, ?)",
        [
            (plan.pks[entity_id], key, doc_pk, surface)
            for entity_id, surfaces in plan.aliases.items()
            for key, surface in surfaces.items()
        ],
    )
    conn.executemany(
        "INSERT INTO mentions(entity, chunk, surface, count) VALUES (?, ?, ?, ?)",
        [(e, c, s, n) for (e, c, s), n in mentions.items()],
    )


def write_relations(
    conn: sqlite3.Connection,
    bundle: DocumentBundle,
    plan: EntityPlan,
    doc_pk: int,
    chunks: dict[str, int],
    changes: Changes,
) -> None:
    doc = bundle.document
    groups: dict[tuple[int, str, int], _RelationGroup] = {}
    for relation in bundle.relations:
        source = plan.pks[plan.final[relation.source_id]]
        target = plan.pks[plan.final[relation.target_id]]
        key = (source, relation.type, target)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _RelationGroup(relation)
        group.confidence = max(group.confidence, relation.confidence)
        for ev in relation.evidence or [Evidence("")]:
            group.evidence[(ev.chunk_id, ev.sentence, ev.start, ev.end)] = None
    if not groups:
        return
    stored: dict[tuple[int, str, int], int] = {
        (source, rel_type, target): pk
        for pk, source, rel_type, target in conn.execute(
            "SELECT r.pk, r.source, r.type, r.target FROM json_each(?) AS j CROSS JOIN "
            "relations AS r ON r.source = json_extract(j.value, '$[0]') "
            "AND r.type = json_extract(j.value, '$[1]') "
            "AND r.target = json_extract(j.value, '$[2]')",
            (json.dumps([list(key) for key in groups], ensure_ascii=False),),
        )
    }
    first = next_pk(conn, "relations")
    new_rows, updates, evidence = [], [], []
    facts: dict[int, str] = {}
    for key, group in groups.items():
        rel = group.relation
        valid_at = iso_or_none(rel.valid_at)
        invalid_at = iso_or_none(rel.invalid_at)
        expired_at = iso_or_none(rel.expired_at)
        pk = stored.get(key)
        if pk is not None:
            changes.relations.add(pk)
            updates.append((valid_at, invalid_at, expired_at, pk))
            if rel.fact:
                facts[pk] = rel.fact
        else:
            pk, first = first, first + 1
            new_rows.append(
                (
                    pk,
                    rel.id,
                    doc.scope,
                    key[0],
                    key[2],
                    rel.type,
                    rel.fact,
                    float(len(group.evidence)),
                    group.confidence,
                    valid_at,
                    invalid_at,
                    iso(rel.created_at),
                    expired_at,
                )
            )
        for chunk_id, sentence, start, end in group.evidence:
            chunk = chunks[chunk_id] if chunk_id else None
            evidence.append((pk, doc_pk, chunk, sentence, start, end, group.confidence))
    conn.executemany(
        "INSERT INTO relations(pk, id, scope, source, target, type, fact, weight, confidence, "
        "valid_at, invalid_at, created_at, expired_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        new_rows,
    )
    index_relations(conn, json_list(row[0] for row in new_rows))
    conn.executemany(
        "UPDATE relations SET "
        "valid_at = CASE WHEN ?1 IS NULL THEN valid_at WHEN valid_at IS NULL THEN ?1 "
        "ELSE min(valid_at, ?1) END, "
        "invalid_at = coalesce(?2, invalid_at), expired_at = coalesce(?3, expired_at) "
        "WHERE pk = ?4",
        updates,
    )
    _fill_facts(conn, facts)
    conn.executemany(
        "INSERT INTO relation_evidence(relation, document, chunk, sentence, start, "
        '"end", confidence) VALUES (?, ?, ?, ?, ?, ?, ?)',
        evidence,
    )


def _fill_facts(conn: sqlite3.Connection, facts: dict[int, str]) -> None:
    """Give stored relations that have no fact text the bundle's fact."""
    if not facts:
        return
    empty = [
        pk
        for (pk,) in conn.execute(
            f"SELECT pk FROM relations WHERE pk IN {IN_JSON} AND fact = ''", (json_list(facts),)
        )
    ]
    if not empty:
        return
    pks = json_list(empty)
    unindex_relations(conn, pks)
    conn.executemany(
        "UPDATE relations SET fact = ? WHERE pk = ?", [(facts[pk], pk) for pk in empty]
    )
    index_relations(conn, pks)

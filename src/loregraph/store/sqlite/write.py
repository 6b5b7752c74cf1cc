"""Writing a document bundle and deleting a document, each in one transaction.

Upsert rules for what a bundle adds to rows the store already holds:

* entity: keeps its id, ``created_at``, name and type (the type is filled in when empty);
  ``salience`` and ``confidence`` become the maximum seen; a provided embedding replaces
  the stored one; aliases, description and ``mention_count`` are recomputed
  (see :mod:`loregraph.store.sqlite.cleanup`);
* relation: keeps its id and fact (filled in when empty); ``valid_at`` becomes the earliest
  known, ``invalid_at``/``expired_at`` take the bundle's value when it gives one; ``weight``
  (= evidence count) and ``confidence`` (= max over evidence) are recomputed.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DeleteReport, DocumentBundle, Evidence, Relation, utcnow
from loregraph.store.sqlite.cleanup import (
    Changes,
    alias_fields,
    best_description,
    bump_graph_version,
    detach_document,
    recompute,
)
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.plan import EntityPlan, plan_entities
from loregraph.store.sqlite.rows import (
    DOCUMENT_COLUMNS,
    IN_JSON,
    document_params,
    iso,
    iso_or_none,
    json_list,
)
from loregraph.store.vectors import vector_to_blob

_DOC_UPDATE = ", ".join(
    f"{name.strip()} = excluded.{name.strip()}" for name in DOCUMENT_COLUMNS.split(",")[1:]
)


@dataclass(slots=True)
class Outcome:
    """What a committed write or delete changed, for the store's caches."""

    changes: Changes
    versions: dict[str, int] = field(default_factory=dict)
    """Scope -> its graph version after the transaction (it was one less before)."""
    entity_vectors: list[tuple[str, bytes, str]] = field(default_factory=list)
    """(id, embedding blob, type) of the bundle's entities, when asked for."""
    chunk_vectors: list[tuple[str, bytes]] = field(default_factory=list)
    """(id, embedding blob) of the bundle's chunks."""


@dataclass(slots=True)
class _RelationGroup:
    relation: Relation
    evidence: dict[tuple[str, str, int, int], None] = field(default_factory=dict)
    confidence: float = 0.0


def write_bundle(
    conn: sqlite3.Connection, bundle: DocumentBundle, *, collect_entity_vectors: bool
) -> Outcome:
    """Write (or replace) a document and its derived data atomically.

    Raises :class:`ValueError` for an inconsistent bundle; the store is then unchanged.
    """
    _validate(bundle)
    try:
        with transaction(conn):
            return _write(conn, bundle, collect_entity_vectors)
    except sqlite3.IntegrityError as exc:
        raise ValueError(f"document {bundle.document.id} cannot be written: {exc}") from exc


def delete_document(conn: sqlite3.Connection, document_id: str) -> tuple[DeleteReport, Outcome]:
    """Delete a document and exactly what only it supported, atomically."""
    changes = Changes()
    outcome = Outcome(changes)
    with transaction(conn):
        report = detach_document(conn, document_id, changes)
        if report is None:
            return DeleteReport(document_id=document_id), outcome
        conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
        recompute(conn, changes, iso(utcnow()))
        for scope in changes.scopes:
            outcome.versions[scope] = bump_graph_version(conn, scope)
    report.entities_removed = len(changes.removed_entities)
    report.relations_removed = len(changes.removed_relations)
    report.relations_weakened = len(changes.relations - changes.removed_relations)
    return report, outcome


def _validate(bundle: DocumentBundle) -> None:
    doc = bundle.document
    chunk_ids = set()
    for chunk in bundle.chunks:
        if chunk.document_id != doc.id:
            raise ValueError(f"chunk {chunk.id} belongs to {chunk.document_id}, not {doc.id}")
        if chunk.id in chunk_ids:
            raise ValueError(f"chunk {chunk.id} appears twice in document {doc.id}")
        chunk_ids.add(chunk.id)
    for mention in bundle.mentions:
        if mention.chunk_id not in chunk_ids:
            raise ValueError(f"a mention refers to chunk {mention.chunk_id}, not in {doc.id}")
    for relation in bundle.relations:
        if relation.scope != doc.scope:
            raise ValueError(
                f"relation {relation.id} is in scope {relation.scope!r}, "
                f"its document in {doc.scope!r}"
            )
        for evidence in relation.evidence:
            if evidence.chunk_id and evidence.chunk_id not in chunk_ids:
                raise ValueError(
                    f"relation {relation.id} cites chunk {evidence.chunk_id}, not in {doc.id}"
                )
    for merge in bundle.merges:
        if merge.scope != doc.scope:
            raise ValueError(f"a merge is in scope {merge.scope!r}, its document in {doc.scope!r}")


def _write(conn: sqlite3.Connection, bundle: DocumentBundle, collect: bool) -> Outcome:
    doc = bundle.document
    now = iso(utcnow())
    changes = Changes(scopes={doc.scope})
    outcome = Outcome(changes)
    detach_document(conn, doc.id, changes)
    conn.execute(
        f"INSERT INTO documents({DOCUMENT_COLUMNS}) VALUES ({', '.join('?' * 13)}) "
        f"ON CONFLICT(id) DO UPDATE SET {_DOC_UPDATE}",
        document_params(doc),
    )
    _write_chunks(conn, bundle, outcome)
    plan = plan_entities(conn, bundle)
    _write_entities(conn, bundle, plan, now)
    changes.entities.update(plan.existing)
    changes.entities.update(plan.final[m.entity_id] for m in bundle.mentions)
    changes.entities.difference_update(plan.new)
    _write_relations(conn, bundle, plan, changes)
    conn.executemany(
        "INSERT INTO merges(scope, entity_id, surface, rule, score, document_id, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                doc.scope,
                plan.final[m.entity_id],
                m.surface,
                m.rule,
                m.score,
                doc.id,
                iso(m.created_at),
            )
            for m in bundle.merges
        ],
    )
    recompute(conn, changes, now)
    for scope in changes.scopes:
        outcome.versions[scope] = bump_graph_version(conn, scope)
    if collect:
        wanted = set(plan.new) | set(plan.existing)
        outcome.entity_vectors = conn.execute(
            f"SELECT id, embedding, type FROM entities WHERE id IN {IN_JSON} "
            "AND embedding IS NOT NULL",
            (json_list(wanted),),
        ).fetchall()
    return outcome


def _write_chunks(conn: sqlite3.Connection, bundle: DocumentBundle, outcome: Outcome) -> None:
    doc = bundle.document
    rows = []
    for chunk in bundle.chunks:
        blob = None if chunk.embedding is None else vector_to_blob(chunk.embedding)
        if blob is not None:
            outcome.chunk_vectors.append((chunk.id, blob))
        rows.append(
            (
                chunk.id,
                doc.id,
                doc.scope,
                chunk.seq,
                chunk.start,
                chunk.end,
                chunk.text,
                chunk.token_count,
                blob,
            )
        )
    conn.executemany(
        'INSERT INTO chunks(id, document_id, scope, seq, start, "end", text, token_count, '
        "embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute(
        "INSERT INTO chunks_fts(rowid, text, title) "
        "SELECT pk, text, ? FROM chunks WHERE document_id = ?",
        (doc.title, doc.id),
    )


def _write_entities(
    conn: sqlite3.Connection, bundle: DocumentBundle, plan: EntityPlan, now: str
) -> None:
    doc = bundle.document
    counts: dict[str, int] = defaultdict(int)
    mentions: dict[tuple[str, str, str], int] = defaultdict(int)
    for mention in bundle.mentions:
        final = plan.final[mention.entity_id]
        counts[final] += mention.count
        mentions[(final, mention.chunk_id, mention.surface)] += mention.count
    new_rows = []
    for entity_id, new in plan.new.items():
        aliases_json, search_keys = alias_fields(new.key, plan.aliases.get(entity_id, {}))
        embedding = None if new.embedding is None else vector_to_blob(new.embedding)
        new_rows.append(
            (
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
                embedding,
                iso(new.entity.created_at),
                now,
            )
        )
    conn.executemany(
        "INSERT INTO entities(id, scope, name, name_key, type, description, aliases, "
        "search_keys, mention_count, salience, confidence, embedding, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        new_rows,
    )
    conn.executemany(
        "UPDATE entities SET type = CASE WHEN type = '' THEN ? ELSE type END, "
        "salience = max(salience, ?), confidence = max(confidence, ?), "
        "embedding = coalesce(?, embedding), updated_at = ? WHERE id = ?",
        [
            (
                update.type,
                update.salience,
                update.confidence,
                None if update.embedding is None else vector_to_blob(update.embedding),
                now,
                entity_id,
            )
            for entity_id, update in plan.existing.items()
        ],
    )
    conn.executemany(
        "INSERT INTO entity_descriptions(entity_id, document_id, description) VALUES (?, ?, ?)",
        [
            (entity_id, doc.id, best_description(texts))
            for entity_id, texts in plan.descriptions.items()
        ],
    )
    conn.executemany(
        "INSERT INTO entity_aliases(entity_id, document_id, alias, alias_key) VALUES (?, ?, ?, ?)",
        [
            (entity_id, doc.id, surface, key)
            for entity_id, surfaces in plan.aliases.items()
            for key, surface in surfaces.items()
        ],
    )
    conn.executemany(
        "INSERT INTO mentions(entity_id, chunk_id, surface, count) VALUES (?, ?, ?, ?)",
        [(e, c, s, n) for (e, c, s), n in mentions.items()],
    )


def _write_relations(
    conn: sqlite3.Connection, bundle: DocumentBundle, plan: EntityPlan, changes: Changes
) -> None:
    doc = bundle.document
    groups: dict[tuple[str, str, str], _RelationGroup] = {}
    for relation in bundle.relations:
        key = (plan.final[relation.source_id], relation.type, plan.final[relation.target_id])
        group = groups.get(key)
        if group is None:
            group = groups[key] = _RelationGroup(relation)
        group.confidence = max(group.confidence, relation.confidence)
        for ev in relation.evidence or [Evidence("")]:
            group.evidence[(ev.chunk_id, ev.sentence, ev.start, ev.end)] = None
    if not groups:
        return
    triples = json.dumps([list(key) for key in groups], ensure_ascii=False)
    stored: dict[tuple[str, str, str], str] = {
        (source, rel_type, target): relation_id
        for relation_id, source, rel_type, target in conn.execute(
            "SELECT r.id, r.source_id, r.type, r.target_id FROM json_each(?) AS j CROSS "
            "JOIN relations AS r ON r.scope = ? AND r.source_id = json_extract(j.value, '$[0]') "
            "AND r.type = json_extract(j.value, '$[1]') "
            "AND r.target_id = json_extract(j.value, '$[2]')",
            (triples, doc.scope),
        )
    }
    new_rows, updates, evidence = [], [], []
    for key, group in groups.items():
        rel = group.relation
        relation_id = stored.get(key, rel.id)
        valid_at, invalid_at, expired_at = (
            iso_or_none(rel.valid_at),
            iso_or_none(rel.invalid_at),
            iso_or_none(rel.expired_at),
        )
        if key in stored:
            changes.relations.add(relation_id)
            updates.append((rel.fact, valid_at, invalid_at, expired_at, relation_id))
        else:
            new_rows.append(
                (
                    relation_id,
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
            evidence.append(
                (relation_id, doc.id, chunk_id or None, sentence, start, end, group.confidence)
            )
    conn.executemany(
        "INSERT INTO relations(id, scope, source_id, target_id, type, fact, weight, confidence, "
        "valid_at, invalid_at, created_at, expired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        new_rows,
    )
    conn.executemany(
        "UPDATE relations SET fact = CASE WHEN fact = '' THEN ?1 ELSE fact END, "
        "valid_at = CASE WHEN ?2 IS NULL THEN valid_at WHEN valid_at IS NULL THEN ?2 "
        "ELSE min(valid_at, ?2) END, "
        "invalid_at = coalesce(?3, invalid_at), expired_at = coalesce(?4, expired_at) "
        "WHERE id = ?5",
        updates,
    )
    conn.executemany(
        "INSERT INTO relation_evidence(relation_id, document_id, chunk_id, sentence, start, "
        '"end", confidence) VALUES (?, ?, ?, ?, ?, ?, ?)',
        evidence,
    )


def invalidate_relation(
    conn: sqlite3.Connection, relation_id: str, invalid_at: datetime
) -> Outcome | None:
    """Set a relation's ``invalid_at``; ``None`` when there is no such relation."""
    outcome = Outcome(Changes())
    with transaction(conn):
        rows = conn.execute(
            "UPDATE relations SET invalid_at = ? WHERE id = ? RETURNING scope",
            (iso(invalid_at), relation_id),
        ).fetchall()
        if not rows:
            return None
        scope = rows[0][0]
        outcome.changes.scopes.add(scope)
        outcome.versions[scope] = bump_graph_version(conn, scope)
    return outcome

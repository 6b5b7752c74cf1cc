"""Writing a document bundle and deleting a document, each in one transaction.

A write replaces the document's previous version (its contributions are detached first,
see :mod:`.cleanup`), inserts the new chunks, upserts entities and relations (rules in
:mod:`.upsert`), then recomputes every touched entity and relation and bumps the scope's
graph version, all in one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DeleteReport, DocumentBundle, Relation, utcnow
from loregraph.store.rows import iso, iso_or_none
from loregraph.store.sqlite.cleanup import (
    Changes,
    bump_graph_version,
    detach_document,
    recompute,
)
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.fts import index_chunks, purge_deleted
from loregraph.store.sqlite.rows import (
    CODEC,
    DOCUMENT_COLUMNS,
    IN_JSON,
    json_list,
)
from loregraph.store.sqlite.upsert import (
    next_pk,
    plan_entities,
    write_entities,
    write_relations,
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
    entity_names: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, type, search_keys) of every entity written or recomputed, when asked for."""
    chunk_vectors: list[tuple[str, bytes, str | None]] = field(default_factory=list)
    """(id, embedding blob) of the bundle's chunks."""
    replaced: bool = False
    """Whether the write replaced an earlier version of the document."""


def write_bundle(
    conn: sqlite3.Connection, bundle: DocumentBundle, *, vectors: bool, names: bool
) -> Outcome:
    """Write (or replace) a document and its derived data atomically.

    ``vectors`` and ``names`` ask for the entity data the store's in-memory indexes need.
    Raises :class:`ValueError` for an inconsistent bundle; the store is then unchanged.
    """
    bundle.validate()
    try:
        with transaction(conn):
            outcome = _write(conn, bundle, vectors, names)
    except sqlite3.IntegrityError as exc:
        raise ValueError(f"document {bundle.document.id} cannot be written: {exc}") from exc
    if outcome.replaced:  # the earlier version's text leaves the file as a delete's does
        forget_bytes(conn)
    return outcome


def delete_document(
    conn: sqlite3.Connection, document_id: str, *, names: bool, ends: Sequence[Relation] = ()
) -> tuple[DeleteReport, Outcome]:
    """Delete a document and exactly what only it supported, atomically; then apply
    ``ends`` (relations ended, as a bundle's invalidations).

    ``names`` asks for the recomputed entities' keys (for the store's name index).
    """
    changes = Changes()
    outcome = Outcome(changes)
    with transaction(conn):
        report = detach_document(conn, document_id, changes)
        if report is None:
            return DeleteReport(document_id=document_id), outcome
        reopen_relations(conn, document_id)
        conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
        recompute(conn, changes, iso(utcnow()))
        end_relations(conn, ends)
        for scope in changes.scopes:
            outcome.versions[scope] = bump_graph_version(conn, scope)
        if names:
            outcome.entity_names = _names_of(conn, json_list(changes.entities))
    forget_bytes(conn)
    report.entities_removed = len(changes.removed_entities)
    report.relations_removed = len(changes.removed_relations)
    report.relations_weakened = len(changes.relations - changes.removed_relations)
    return report, outcome


def forget_bytes(conn: sqlite3.Connection) -> None:
    """Make the deleted text leave the file: the indexes' deleted terms merged away (the
    freed pages are zeroed: ``secure_delete`` is on), then the write-ahead log, which still
    holds the pages as they were, copied back and truncated to nothing."""
    with transaction(conn):
        purge_deleted(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _write(conn: sqlite3.Connection, bundle: DocumentBundle, vectors: bool, names: bool) -> Outcome:
    doc = bundle.document
    now = iso(utcnow())
    changes = Changes(scopes={doc.scope})
    outcome = Outcome(changes)
    if detach_document(conn, doc.id, changes) is not None:  # a new version: see below
        reopen_relations(conn, doc.id)
        outcome.replaced = True
    (doc_pk,) = conn.execute(
        f"INSERT INTO documents({DOCUMENT_COLUMNS}) VALUES ({', '.join('?' * 13)}) "
        f"ON CONFLICT(id) DO UPDATE SET {_DOC_UPDATE} RETURNING pk",
        CODEC.document_values(doc),
    ).fetchone()
    chunks = _write_chunks(conn, bundle, outcome)
    plan, pks = plan_entities(conn, bundle)
    write_entities(conn, plan, pks, doc.scope, doc_pk, chunks, now)
    changes.entities.update(pks[entity_id] for entity_id in plan.updated)
    changes.entities.update(pks[plan.final[m.entity_id]] for m in bundle.mentions)
    new_pks = [pks[entity_id] for entity_id in plan.new]
    changes.entities.difference_update(new_pks)
    groups = {
        (pks[s], kind, pks[t], said): group for (s, kind, t, said), group in plan.relations.items()
    }
    changes.relations |= write_relations(conn, groups, doc.scope, doc_pk, chunks)
    end_relations(conn, bundle.invalidations)
    conn.executemany(
        "INSERT INTO merges(scope, entity, surface, rule, score, document, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                doc.scope,
                pks[plan.final[m.entity_id]],
                m.surface,
                m.rule,
                m.score,
                doc_pk,
                iso(m.created_at),
            )
            for m in bundle.merges
        ],
    )
    recompute(conn, changes, now)
    for scope in changes.scopes:
        outcome.versions[scope] = bump_graph_version(conn, scope)
    listed = json_list([*new_pks, *(pks[entity_id] for entity_id in plan.updated)])
    if vectors:
        outcome.entity_vectors = conn.execute(
            "SELECT e.id, v.embedding, e.type FROM entities AS e "
            f"JOIN entity_vectors AS v ON v.entity = e.pk WHERE e.pk IN {IN_JSON}",
            (listed,),
        ).fetchall()
    if names:
        outcome.entity_names = _names_of(conn, listed, json_list(changes.entities))
    return outcome


def _names_of(conn: sqlite3.Connection, *pks_json: str) -> list[tuple[str, str, str]]:
    """(id, type, search_keys) of the (still existing) entities in the JSON pk arrays."""
    rows: list[tuple[str, str, str]] = []
    for pks in pks_json:
        rows += conn.execute(
            f"SELECT id, type, search_keys FROM entities WHERE pk IN {IN_JSON}", (pks,)
        ).fetchall()
    return rows


def _write_chunks(
    conn: sqlite3.Connection, bundle: DocumentBundle, outcome: Outcome
) -> dict[str, int]:
    """Insert the chunks and index them; returns chunk id -> pk."""
    doc = bundle.document
    first = next_pk(conn, "chunks")
    pks: dict[str, int] = {}
    rows = []
    vectors: list[tuple[int, bytes]] = []
    for offset, chunk in enumerate(bundle.chunks):
        pks[chunk.id] = first + offset
        if chunk.embedding is not None:
            blob = vector_to_blob(chunk.embedding)
            outcome.chunk_vectors.append((chunk.id, blob, str(doc.kind)))
            vectors.append((first + offset, blob))
        rows.append(
            (
                first + offset,
                chunk.id,
                doc.id,
                doc.scope,
                chunk.seq,
                chunk.start,
                chunk.end,
                chunk.text,
                chunk.token_count,
            )
        )
    conn.executemany(
        'INSERT INTO chunks(pk, id, document_id, scope, seq, start, "end", text, token_count) '
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany("INSERT INTO chunk_vectors(chunk, embedding) VALUES (?, ?)", vectors)
    index_chunks(conn, doc.id, doc.title)
    return pks


def reopen_relations(conn: sqlite3.Connection, document_id: str) -> None:
    """Open again the relations the document ``document_id`` ended (it is being removed or
    replaced: what it said no longer ends them). A document written for the first time
    opens nothing: a copy writes a relation with the id of the later document that ended
    it before that document."""
    conn.execute(
        "UPDATE relations SET invalid_at = NULL, expired_at = NULL, invalidated_by = NULL "
        "WHERE invalidated_by = ?",
        (document_id,),
    )


def end_relations(conn: sqlite3.Connection, ends: Sequence[Relation]) -> None:
    """Apply invalidations: a bundle's (after its relations are written), or a delete's."""
    conn.executemany(
        "UPDATE relations SET invalid_at = ?, expired_at = ?, invalidated_by = ? WHERE id = ?",
        [
            (iso_or_none(rel.invalid_at), iso_or_none(rel.expired_at), rel.invalidated_by, rel.id)
            for rel in ends
        ],
    )


def invalidate_relation(
    conn: sqlite3.Connection, relation_id: str, invalid_at: datetime, by: str | None
) -> Outcome | None:
    """End a relation (``invalid_at``, ``expired_at`` now, ``invalidated_by``); ``None``
    when there is no such relation."""
    outcome = Outcome(Changes())
    with transaction(conn):
        rows = conn.execute(
            "UPDATE relations SET invalid_at = ?, expired_at = ?, invalidated_by = ? "
            "WHERE id = ? RETURNING scope",
            (iso(invalid_at), iso(utcnow()), by, relation_id),
        ).fetchall()
        if not rows:
            return None
        scope = rows[0][0]
        outcome.changes.scopes.add(scope)
        outcome.versions[scope] = bump_graph_version(conn, scope)
    return outcome

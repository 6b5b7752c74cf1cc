"""Writing a document bundle and deleting a document, each in one transaction: planned by
:mod:`loregraph.store.plan` over reads made inside the transaction (:mod:`.state`), then
applied (:mod:`.apply`), as every backend's writes are planned."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from loregraph.models import DeleteReport, DocumentBundle, Relation, utcnow
from loregraph.store.plan import invalidation_rows, plan_delete, plan_write
from loregraph.store.planstate import at_once
from loregraph.store.sqlite.apply import Outcome, apply_plan, end_relations
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.fts import purge_deleted
from loregraph.store.sqlite.state import SqliteWriteState
from loregraph.store.sqlite.versions import bump_graph_version


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
            plan = at_once(plan_write(SqliteWriteState(conn), bundle))
            outcome = apply_plan(conn, plan, vectors=vectors, names=names)
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
    with transaction(conn):
        plan = at_once(plan_delete(SqliteWriteState(conn), document_id, ends))
        if plan is None:
            return DeleteReport(document_id=document_id), Outcome()
        outcome = apply_plan(conn, plan, names=names)
    forget_bytes(conn)
    return plan.report, outcome


def forget_bytes(conn: sqlite3.Connection) -> None:
    """Make the deleted text leave the file: the indexes' deleted terms merged away (the
    freed pages are zeroed: ``secure_delete`` is on), then the write-ahead log, which still
    holds the pages as they were, copied back and truncated to nothing."""
    with transaction(conn):
        purge_deleted(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def invalidate_relation(
    conn: sqlite3.Connection, relation_id: str, invalid_at: datetime, by: str | None
) -> Outcome | None:
    """End a relation (``invalid_at``, ``expired_at`` now, ``invalidated_by``); ``None``
    when there is no such relation."""
    ended = Relation(relation_id, "", "", "", invalidated_by=by)
    ended.invalid_at, ended.expired_at = invalid_at, utcnow()
    with transaction(conn):
        found = conn.execute("SELECT scope FROM relations WHERE id = ?", (relation_id,)).fetchone()
        if found is None:
            return None
        end_relations(conn, invalidation_rows([ended]))
        return Outcome(versions={found[0]: bump_graph_version(conn, found[0])})

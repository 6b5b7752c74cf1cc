"""Writing a :class:`~loregraph.store.plan.WritePlan` into the SQLite tables, inside the
caller's transaction, and what it changed for the store's in-memory indexes (:class:`Outcome`).

Every derived value (counts, descriptions, aliases, scores, weights, facts derived again)
is the plan's; here the plan's ids become the tables' integer pks and the FTS5 indexes are
kept in step (:mod:`.fts`: a row leaves its index before its indexed text changes or it is
deleted, and enters it after). New rows get explicit, increasing pks (``max(pk) + 1``
onwards, safe inside the write transaction), so nothing is read back after an insert.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loregraph.store.names import key_lines
from loregraph.store.plan import WritePlan
from loregraph.store.sqlite.fts import (
    index_chunks,
    index_entities,
    index_relations,
    unindex_chunks,
    unindex_entities,
    unindex_relations,
)
from loregraph.store.sqlite.rows import DOCUMENT_COLUMNS, IN_JSON, json_list
from loregraph.store.sqlite.versions import bump_graph_version
from loregraph.store.sqlplan import entity_ids, evidence_rows, relation_changes
from loregraph.store.vectors import vector_to_blob

_DOC_UPDATE = ", ".join(
    f"{name.strip()} = excluded.{name.strip()}" for name in DOCUMENT_COLUMNS.split(",")[1:]
)
_ENTITY = "pk, id, scope, name, name_key, type, description, aliases, search_keys, " + (
    "mention_count, salience, confidence, created_at, updated_at"
)
_RELATION = "pk, id, scope, source, target, type, fact, weight, confidence, valid_at, " + (
    "invalid_at, created_at, expired_at, invalidated_by, statement"
)
_PER_DOCUMENT = ("relation_evidence", "entity_descriptions", "entity_aliases", "merges")


@dataclass(slots=True)
class Outcome:
    """What a committed write or delete changed, for the store's in-memory indexes."""

    versions: dict[str, int] = field(default_factory=dict)
    """Scope -> its graph version after the transaction (it was one less before)."""
    removed_chunks: list[str] = field(default_factory=list)
    removed_entities: list[str] = field(default_factory=list)
    entity_vectors: list[tuple[str, bytes, str]] = field(default_factory=list)
    """(id, embedding blob, type) of the entities given an embedding, when asked for."""
    entity_names: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, type, search_keys) of every entity written or recomputed, when asked for."""
    chunk_vectors: list[tuple[str, bytes, str | None]] = field(default_factory=list)
    """(id, embedding blob, document kind) of the chunks written."""
    replaced: bool = False
    """Whether an earlier version of the document was removed."""


def apply_plan(
    conn: sqlite3.Connection, plan: WritePlan, *, vectors: bool = False, names: bool = False
) -> Outcome:
    """Carry out ``plan``; ``vectors`` and ``names`` ask for the entity data the in-memory
    indexes need."""
    outcome = Outcome()
    if plan.replace:
        _detach(conn, plan.document_id, outcome)
    _delete_relations(conn, _pks(conn, "relations", plan.dead_relations))
    _delete_entities(conn, _pks(conn, "entities", plan.dead_entities))
    outcome.removed_entities = list(plan.dead_entities)
    doc_pk, chunks = None, {}
    if plan.document is None:
        conn.execute("DELETE FROM documents WHERE id = ?", (plan.document_id,))
    else:
        doc = plan.document
        (doc_pk,) = conn.execute(
            f"INSERT INTO documents({DOCUMENT_COLUMNS}) VALUES ({', '.join('?' * len(doc))}) "
            f"ON CONFLICT(id) DO UPDATE SET {_DOC_UPDATE} RETURNING pk",
            list(doc.values()),
        ).fetchone()
        chunks = _write_chunks(conn, plan, outcome)
    entities = _write_entities(conn, plan, doc_pk, chunks)
    _write_relations(conn, plan, doc_pk, chunks, entities)
    _update_relations(conn, plan)
    end_relations(conn, plan.invalidations)
    outcome.versions[plan.scope] = bump_graph_version(conn, plan.scope)
    if vectors:
        embedded = [
            e["id"]
            for e in [*plan.new_entities, *plan.entity_updates]
            if e["embedding"] is not None
        ]
        outcome.entity_vectors = conn.execute(
            "SELECT e.id, v.embedding, e.type FROM entities AS e "
            f"JOIN entity_vectors AS v ON v.entity = e.pk WHERE e.id IN {IN_JSON}",
            (json_list(embedded),),
        ).fetchall()
    if names:
        outcome.entity_names = conn.execute(
            f"SELECT id, type, search_keys FROM entities WHERE id IN {IN_JSON}",
            (json_list(plan.written_entities),),
        ).fetchall()
    return outcome


def end_relations(conn: sqlite3.Connection, ends: Iterable[dict[str, Any]]) -> None:
    """End relations: ``{id, invalid_at, expired_at, invalidated_by}`` rows."""
    conn.executemany(
        "UPDATE relations SET invalid_at = :invalid_at, expired_at = :expired_at, "
        "invalidated_by = :invalidated_by WHERE id = :id",
        list(ends),
    )


def _named(columns: str) -> str:
    """The named parameters of a column list: ``a, b`` -> ``:a, :b``."""
    return ", ".join(f":{name}" for name in columns.split(", "))


def next_pk(conn: sqlite3.Connection, table: str) -> int:
    """The first free pk of ``table``."""
    row = conn.execute(f"SELECT coalesce(max(pk), 0) + 1 FROM {table}").fetchone()
    return int(row[0])


def _pks(conn: sqlite3.Connection, table: str, ids: Iterable[str]) -> dict[str, int]:
    rows = conn.execute(f"SELECT id, pk FROM {table} WHERE id IN {IN_JSON}", (json_list(ids),))
    return dict(rows.fetchall())


def _detach(conn: sqlite3.Connection, document_id: str, outcome: Outcome) -> None:
    """Remove what the stored version of a document contributed (not its row), and open
    again the relations it ended: what it said no longer ends them."""
    found = conn.execute("SELECT pk, title FROM documents WHERE id = ?", (document_id,)).fetchone()
    if found is None:
        return
    doc_pk, title = found
    outcome.replaced = True
    outcome.removed_chunks = [
        chunk_id
        for (chunk_id,) in conn.execute(
            "SELECT id FROM chunks WHERE document_id = ?", (document_id,)
        )
    ]
    unindex_chunks(conn, document_id, title)
    for table, column in (("mentions", "chunk"), ("chunk_vectors", "chunk")):
        conn.execute(
            f"DELETE FROM {table} WHERE {column} IN (SELECT pk FROM chunks WHERE document_id = ?)",
            (document_id,),
        )
    for table in _PER_DOCUMENT:
        conn.execute(f"DELETE FROM {table} WHERE document = ?", (doc_pk,))
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
    conn.execute(
        "UPDATE relations SET invalid_at = NULL, expired_at = NULL, invalidated_by = NULL "
        "WHERE invalidated_by = ?",
        (document_id,),
    )


def _delete_relations(conn: sqlite3.Connection, pks: dict[str, int]) -> None:
    if not pks:
        return
    listed = json_list(pks.values())
    unindex_relations(conn, listed)
    conn.execute(f"DELETE FROM relation_evidence WHERE relation IN {IN_JSON}", (listed,))
    conn.execute(f"DELETE FROM relations WHERE pk IN {IN_JSON}", (listed,))


def _delete_entities(conn: sqlite3.Connection, pks: dict[str, int]) -> None:
    if not pks:
        return
    listed = json_list(pks.values())
    for table in ("merges", "entity_aliases", "entity_descriptions", "mentions"):
        conn.execute(f"DELETE FROM {table} WHERE entity IN {IN_JSON}", (listed,))
    conn.execute(f"DELETE FROM entity_vectors WHERE entity IN {IN_JSON}", (listed,))
    unindex_entities(conn, listed)
    conn.execute(f"DELETE FROM entities WHERE pk IN {IN_JSON}", (listed,))


def _write_chunks(conn: sqlite3.Connection, plan: WritePlan, outcome: Outcome) -> dict[str, int]:
    """Insert the chunks and index them; returns chunk id -> pk."""
    doc = plan.document or {}
    first = next_pk(conn, "chunks")
    pks = {row["id"]: first + offset for offset, row in enumerate(plan.chunks)}
    rows = [row | {"pk": pks[row["id"]]} for row in plan.chunks]
    conn.executemany(
        'INSERT INTO chunks(pk, id, document_id, scope, seq, start, "end", text, token_count) '
        "VALUES (:pk, :id, :document_id, :scope, :seq, :char_start, :char_end, :text, "
        ":token_count)",
        rows,
    )
    vectors = [
        (row, vector_to_blob(row["embedding"])) for row in rows if row["embedding"] is not None
    ]
    conn.executemany(
        "INSERT INTO chunk_vectors(chunk, embedding) VALUES (?, ?)",
        [(row["pk"], blob) for row, blob in vectors],
    )
    outcome.chunk_vectors = [(row["id"], blob, doc.get("kind")) for row, blob in vectors]
    index_chunks(conn, plan.document_id, str(doc.get("title", "")))
    return pks


def _write_entities(
    conn: sqlite3.Connection, plan: WritePlan, doc_pk: int | None, chunks: dict[str, int]
) -> dict[str, int]:
    """New entities, the stored ones recomputed, their vectors, and the document's
    contributions (descriptions with scores, aliases), mentions and merges; returns the pk
    of every entity the plan names."""
    keys: dict[str, list[str]] = defaultdict(list)
    for key in plan.keys:
        keys[key["entity_id"]].append(key["key"])
    first = next_pk(conn, "entities")
    new = {e["id"]: first + offset for offset, e in enumerate(plan.new_entities)}
    pks = _pks(conn, "entities", entity_ids(plan) - set(new)) | new

    def row(e: dict[str, Any]) -> dict[str, Any]:
        aliases = json.dumps(list(e["aliases"]), ensure_ascii=False)
        return e | {"pk": pks[e["id"]], "aliases": aliases, "search_keys": key_lines(keys[e["id"]])}

    conn.executemany(
        f"INSERT INTO entities({_ENTITY}) VALUES ({_named(_ENTITY)})",
        [row(e) | {"scope": plan.scope} for e in plan.new_entities],
    )
    index_entities(conn, json_list(new.values()))
    changed = json_list(pks[e["id"]] for e in plan.entity_updates)
    unindex_entities(conn, changed)
    conn.executemany(
        "UPDATE entities SET type = :type, description = :description, aliases = :aliases, "
        "search_keys = :search_keys, mention_count = :mention_count, salience = :salience, "
        "confidence = :confidence, updated_at = :updated_at WHERE pk = :pk",
        [row(e) for e in plan.entity_updates],
    )
    index_entities(conn, changed)
    conn.executemany(
        "INSERT INTO entity_vectors(entity, embedding) VALUES (?, ?) "
        "ON CONFLICT(entity) DO UPDATE SET embedding = excluded.embedding",
        [
            (pks[e["id"]], vector_to_blob(e["embedding"]))
            for e in [*plan.new_entities, *plan.entity_updates]
            if e["embedding"] is not None
        ],
    )
    mine = {"document": doc_pk}
    conn.executemany(
        "INSERT INTO entity_descriptions(entity, document, description, salience, confidence) "
        "VALUES (:entity, :document, :description, :salience, :confidence)",
        [c | mine | {"entity": pks[c["entity_id"]]} for c in plan.contributions if c["listed"]],
    )
    conn.executemany(
        "INSERT INTO entity_aliases(entity, alias_key, document, alias) VALUES (?, ?, ?, ?)",
        [
            (pks[c["entity_id"]], key, doc_pk, surface)
            for c in plan.contributions
            for key, surface in json.loads(c["aliases"]).items()
        ],
    )
    conn.executemany(
        "INSERT INTO mentions(entity, chunk, surface, count) "
        "VALUES (:entity, :chunk, :surface, :count)",
        [
            m | {"entity": pks[m["entity_id"]], "chunk": chunks[m["chunk_id"]]}
            for m in plan.mentions
        ],
    )
    conn.executemany(
        "INSERT INTO merges(scope, entity, surface, rule, score, document, created_at) "
        "VALUES (:scope, :entity, :surface, :rule, :score, :document, :created_at)",
        [m | mine | {"entity": pks[m["entity_id"]]} for m in plan.merges],
    )
    return pks


def _write_relations(
    conn: sqlite3.Connection,
    plan: WritePlan,
    doc_pk: int | None,
    chunks: dict[str, int],
    ends: dict[str, int],
) -> None:
    """The new relations (indexed; ``ends``: entity pks by id) and the document's
    evidence."""
    first = next_pk(conn, "relations")
    new = {r["id"]: first + offset for offset, r in enumerate(plan.new_relations)}
    conn.executemany(
        f"INSERT INTO relations({_RELATION}) VALUES ({_named(_RELATION)})",
        [
            r | {"pk": new[r["id"]], "source": ends[r["source_id"]], "target": ends[r["target_id"]]}
            for r in plan.new_relations
        ],
    )
    index_relations(conn, json_list(new.values()))
    pks = _pks(conn, "relations", {x["relation_id"] for x in plan.evidence} - set(new)) | new
    conn.executemany(
        "INSERT INTO relation_evidence(relation, document, chunk, sentence, start, "
        '"end", confidence) VALUES (:relation, :document, :chunk, :sentence, :char_start, '
        ":char_end, :confidence)",
        evidence_rows(plan, pks, doc_pk, chunks),
    )


def _update_relations(conn: sqlite3.Connection, plan: WritePlan) -> None:
    """The stored relations' weights, confidences, facts and times the plan recomputed;
    those whose fact may change leave the index and enter it again."""
    changes = relation_changes(plan)
    if not changes:
        return
    ids = [r["id"] for rows in changes.values() for r in rows]
    pks = _pks(conn, "relations", ids)
    texts = json_list(
        pks[r["id"]] for names, rows in changes.items() if "fact" in names for r in rows
    )
    unindex_relations(conn, texts)
    for names, rows in changes.items():
        sets = ", ".join(f"{name} = :{name}" for name in names)
        conn.executemany(f"UPDATE relations SET {sets} WHERE id = :id", rows)
    index_relations(conn, texts)

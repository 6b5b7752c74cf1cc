"""Removing a document's contributions and recomputing what depended on them.

Shared by ``delete_document`` and by ``write_document``'s replace path. Everything here runs
inside the caller's transaction.

Derived values, recomputed for every touched entity and relation:

* entity ``mention_count`` = sum of its mention counts;
* entity ``aliases`` = one surface per distinct alias key its documents used (never the
  canonical name's key); ``search_keys`` follows;
* entity ``description`` = the longest non-empty description any of its documents gave
  (empty when none did);
* entity ``salience`` and ``confidence`` = the highest its listing documents gave (kept as
  they are when none lists it or one's values are unknown, NULL: written before version 7);
* an entity is *supported* while it has a mention or a document that lists it
  (``entity_descriptions``); an unsupported entity is removed with its relations;
* relation ``weight`` = its number of evidence rows (a document that asserts a relation
  without evidence contributes one chunk-less row); ``confidence`` = the highest confidence
  among them; a relation left with no evidence is removed.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DeleteReport, Relation
from loregraph.store.names import key_lines
from loregraph.store.planning import alias_list, best_description, contributed_max
from loregraph.store.provenance import RelationSource
from loregraph.store.remaining import derived_again, given_by
from loregraph.store.rows import iso_or_none
from loregraph.store.sqlite.fts import (
    index_entities,
    index_relations,
    unindex_chunks,
    unindex_entities,
    unindex_relations,
)
from loregraph.store.sqlite.provenance import relation_sources
from loregraph.store.sqlite.rows import CODEC, IN_JSON, json_list

_time = CODEC.read_time_or_none
Times = dict[str, datetime | None]


@dataclass(slots=True)
class Changes:
    """What one transaction touched (by pk), to recompute and to keep caches in step."""

    scopes: set[str] = field(default_factory=set)
    entities: set[int] = field(default_factory=set)
    relations: set[int] = field(default_factory=set)
    removed_chunks: list[str] = field(default_factory=list)
    """Ids of deleted chunks."""
    removed_entities: list[str] = field(default_factory=list)
    """Ids of deleted entities."""
    removed_relations: set[int] = field(default_factory=set)
    given: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    """Relation pk → whether a removed document wrote its fact, gave its start: those are
    derived again from what remains (:mod:`loregraph.store.remaining`)."""


def alias_fields(key: str, aliases: dict[str, str]) -> tuple[str, str]:
    """``(aliases_json, search_keys)`` of an entity from ``{alias key: surface}`` (see
    :func:`~loregraph.store.planning.alias_list`)."""
    surfaces, keys = alias_list(key, aliases)
    return json.dumps(surfaces, ensure_ascii=False), key_lines([key, *keys])


def detach_document(
    conn: sqlite3.Connection, document_id: str, changes: Changes
) -> DeleteReport | None:
    """Remove a document's chunks, mentions, evidence and contributions (not its row).

    Records what was touched in ``changes``; returns the counts, or ``None`` when there is
    no such document.
    """
    row = conn.execute(
        "SELECT pk, scope, title FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    if row is None:
        return None
    doc, scope, title = row
    changes.scopes.add(scope)
    touched = conn.execute(
        "SELECT m.entity FROM chunks AS c JOIN mentions AS m ON m.chunk = c.pk "
        "WHERE c.document_id = ? "
        "UNION SELECT entity FROM entity_descriptions WHERE document = ? "
        "UNION SELECT entity FROM entity_aliases WHERE document = ?",
        (document_id, doc, doc),
    )
    changes.entities.update(entity for (entity,) in touched)
    supported = {
        relation
        for (relation,) in conn.execute(
            "SELECT DISTINCT relation FROM relation_evidence WHERE document = ?", (doc,)
        )
    }
    changes.relations |= supported
    _mark_given(conn, supported, document_id, changes)
    changes.removed_chunks.extend(
        chunk_id
        for (chunk_id,) in conn.execute(
            "SELECT id FROM chunks WHERE document_id = ?", (document_id,)
        )
    )
    unindex_chunks(conn, document_id, title)
    mentions = conn.execute(
        "DELETE FROM mentions WHERE chunk IN (SELECT pk FROM chunks WHERE document_id = ?)",
        (document_id,),
    ).rowcount
    conn.execute(
        "DELETE FROM chunk_vectors WHERE chunk IN (SELECT pk FROM chunks WHERE document_id = ?)",
        (document_id,),
    )
    for table in ("relation_evidence", "entity_descriptions", "entity_aliases", "merges"):
        conn.execute(f"DELETE FROM {table} WHERE document = ?", (doc,))
    chunks = conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,)).rowcount
    return DeleteReport(document_id=document_id, chunks=chunks, mentions=mentions)


def delete_relations(conn: sqlite3.Connection, relations: set[int]) -> None:
    """Delete relations (by pk) with their evidence and index entries."""
    if not relations:
        return
    pks = json_list(relations)
    unindex_relations(conn, pks)
    conn.execute(f"DELETE FROM relation_evidence WHERE relation IN {IN_JSON}", (pks,))
    conn.execute(f"DELETE FROM relations WHERE pk IN {IN_JSON}", (pks,))


def delete_entities(conn: sqlite3.Connection, entities: set[int]) -> set[int]:
    """Delete entities (by pk) with everything attached; returns the removed relation pks."""
    if not entities:
        return set()
    pks = json_list(entities)
    relations = {
        relation
        for (relation,) in conn.execute(
            f"SELECT pk FROM relations WHERE source IN {IN_JSON} "
            f"UNION SELECT pk FROM relations WHERE target IN {IN_JSON}",
            (pks, pks),
        )
    }
    delete_relations(conn, relations)
    for table in ("merges", "entity_aliases", "entity_descriptions", "mentions"):
        conn.execute(f"DELETE FROM {table} WHERE entity IN {IN_JSON}", (pks,))
    conn.execute(f"DELETE FROM entity_vectors WHERE entity IN {IN_JSON}", (pks,))
    unindex_entities(conn, pks)
    conn.execute(f"DELETE FROM entities WHERE pk IN {IN_JSON}", (pks,))
    return relations


def recompute(conn: sqlite3.Connection, changes: Changes, now: str) -> None:
    """Recompute touched relations, then touched entities; remove unsupported ones."""
    _recompute_relations(conn, changes)
    _derive_again(conn, changes)
    _recompute_entities(conn, changes, now)


def _recompute_relations(conn: sqlite3.Connection, changes: Changes) -> None:
    if not changes.relations:
        return
    pks = json_list(changes.relations)
    support = {
        relation: (float(count), confidence)
        for relation, count, confidence in conn.execute(
            "SELECT relation, count(*), max(confidence) FROM relation_evidence "
            f"WHERE relation IN {IN_JSON} GROUP BY relation",
            (pks,),
        )
    }
    updates: list[tuple[float, float, int]] = []
    dead: set[int] = set()
    for relation, weight, confidence in conn.execute(
        f"SELECT pk, weight, confidence FROM relations WHERE pk IN {IN_JSON}", (pks,)
    ).fetchall():
        found = support.get(relation)
        if found is None:
            dead.add(relation)
        elif found != (weight, confidence):
            updates.append((found[0], found[1], relation))
    conn.executemany("UPDATE relations SET weight = ?, confidence = ? WHERE pk = ?", updates)
    delete_relations(conn, dead)
    changes.removed_relations |= dead


def _stored(
    conn: sqlite3.Connection, pks: str
) -> tuple[dict[str, tuple[int, Relation]], dict[str, list[RelationSource]], Times]:
    """The relations ``pks`` (a JSON list) by id with their pk, fact and start; their
    evidence by relation id; the times of its documents."""
    stored = {
        relation_id: (pk, Relation(relation_id, "", "", "", fact=fact, valid_at=_time(at)))
        for pk, relation_id, fact, at in conn.execute(
            f"SELECT pk, id, fact, valid_at FROM relations WHERE pk IN {IN_JSON}", (pks,)
        )
    }
    times = {
        doc_id: _time(at)
        for doc_id, at in conn.execute(
            "SELECT DISTINCT d.id, d.valid_at FROM relation_evidence AS x "
            f"JOIN documents AS d ON d.pk = x.document WHERE x.relation IN {IN_JSON}",
            (pks,),
        )
    }
    return stored, relation_sources(conn, list(stored)), times


def _mark_given(
    conn: sqlite3.Connection, relations: set[int], document_id: str, changes: Changes
) -> None:
    """Record what the document ``document_id`` gave the relations it supported (run before
    its evidence goes)."""
    if not relations:
        return
    stored, sources, times = _stored(conn, json_list(relations))
    for relation_id, (pk, relation) in stored.items():
        given = given_by(relation, sources.get(relation_id, []), document_id, times)
        if any(given):
            changes.given[pk] = given


def _derive_again(conn: sqlite3.Connection, changes: Changes) -> None:
    """Fact and start of the surviving relations a removed document gave them, from the
    evidence that remains."""
    alive = set(changes.given) - changes.removed_relations
    if not alive:
        return
    stored, sources, times = _stored(conn, json_list(alive))
    updates: list[tuple[str, str | None, int]] = []
    for relation_id, (pk, relation) in stored.items():
        fact, start = changes.given[pk]
        found = sources.get(relation_id, [])
        again = derived_again(relation, found, times, fact=fact, start=start)
        if (again.fact, again.valid_at) != (relation.fact, relation.valid_at):
            updates.append((again.fact, iso_or_none(again.valid_at), pk))
    if updates:
        changed = json_list(row[-1] for row in updates)
        unindex_relations(conn, changed)
        conn.executemany("UPDATE relations SET fact = ?, valid_at = ? WHERE pk = ?", updates)
        index_relations(conn, changed)


def _recompute_entities(conn: sqlite3.Connection, changes: Changes, now: str) -> None:
    if not changes.entities:
        return
    pks = json_list(changes.entities)
    counts = dict(
        conn.execute(
            f"SELECT entity, sum(count) FROM mentions WHERE entity IN {IN_JSON} GROUP BY entity",
            (pks,),
        ).fetchall()
    )
    descriptions: dict[int, list[str]] = defaultdict(list)
    for entity, text in conn.execute(
        f"SELECT entity, description FROM entity_descriptions WHERE entity IN {IN_JSON}", (pks,)
    ):
        descriptions[entity].append(text)
    aliases: dict[int, dict[str, str]] = defaultdict(dict)
    for entity, key, surface in conn.execute(
        "SELECT entity, alias_key, min(alias) FROM entity_aliases "
        f"WHERE entity IN {IN_JSON} GROUP BY entity, alias_key",
        (pks,),
    ):
        aliases[entity][key] = surface
    counters: list[tuple[int, str, int]] = []
    texts: list[tuple[str, str, str, str, int]] = []
    dead: dict[int, str] = {}
    rows = conn.execute(
        "SELECT pk, id, name_key, mention_count, description, aliases, search_keys "
        f"FROM entities WHERE pk IN {IN_JSON}",
        (pks,),
    ).fetchall()
    for pk, entity_id, key, old_count, old_description, old_aliases, old_keys in rows:
        count = int(counts.get(pk, 0))
        if count == 0 and pk not in descriptions:
            dead[pk] = entity_id
            continue
        if count != old_count:
            counters.append((count, now, pk))
        description = best_description(descriptions.get(pk, []))
        aliases_json, search_keys = alias_fields(key, aliases.get(pk, {}))
        if (description, aliases_json, search_keys) != (old_description, old_aliases, old_keys):
            texts.append((description, aliases_json, search_keys, now, pk))
    conn.executemany("UPDATE entities SET mention_count = ?, updated_at = ? WHERE pk = ?", counters)
    if texts:
        changed = json_list(row[-1] for row in texts)
        unindex_entities(conn, changed)
        conn.executemany(
            "UPDATE entities SET description = ?, aliases = ?, search_keys = ?, updated_at = ? "
            "WHERE pk = ?",
            texts,
        )
        index_entities(conn, changed)
    changes.removed_relations |= delete_entities(conn, set(dead))
    changes.removed_entities.extend(dead.values())
    _recompute_scores(conn, pks, now)


def _recompute_scores(conn: sqlite3.Connection, pks: str, now: str) -> None:
    """Salience and confidence of the entities ``pks`` (a JSON list) from their listing
    documents (see :func:`~loregraph.store.planning.contributed_max`)."""
    scores: dict[int, tuple[list[float | None], list[float | None]]] = defaultdict(lambda: ([], []))
    for entity, salience, confidence in conn.execute(
        f"SELECT entity, salience, confidence FROM entity_descriptions WHERE entity IN {IN_JSON}",
        (pks,),
    ):
        scores[entity][0].append(salience)
        scores[entity][1].append(confidence)
    updates: list[tuple[float, float, str, int]] = []
    for pk, salience, confidence in conn.execute(
        f"SELECT pk, salience, confidence FROM entities WHERE pk IN {IN_JSON}", (pks,)
    ).fetchall():
        saliences, confidences = scores.get(pk, ([], []))
        found = (contributed_max(salience, saliences), contributed_max(confidence, confidences))
        if found != (salience, confidence):
            updates.append((*found, now, pk))
    conn.executemany(
        "UPDATE entities SET salience = ?, confidence = ?, updated_at = ? WHERE pk = ?", updates
    )


def bump_graph_version(conn: sqlite3.Connection, scope: str) -> int:
    """Increment the scope's graph version counter; return the new value."""
    row = conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, 1) "
        "ON CONFLICT(key) DO UPDATE SET value = value + 1 RETURNING value",
        (graph_version_key(scope),),
    ).fetchone()
    return int(row[0])


def graph_version_key(scope: str) -> str:
    """The ``meta`` key holding a scope's graph version."""
    return f"graph_version:{scope}"


def read_graph_version(conn: sqlite3.Connection, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    row = conn.execute(
        "SELECT value FROM meta WHERE key = ?", (graph_version_key(scope),)
    ).fetchone()
    return 0 if row is None else int(row[0])

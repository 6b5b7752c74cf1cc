"""Removing a document's contributions and recomputing what depended on them.

Shared by ``delete_document`` and by ``write_document``'s replace path. Everything here runs
inside the caller's transaction.

Derived values, recomputed for every touched entity and relation:

* entity ``mention_count`` = sum of its mention counts;
* entity ``aliases`` = one surface per distinct alias key its documents used (never the
  canonical name's key); ``search_keys`` follows;
* entity ``description`` = the longest non-empty description any of its documents gave
  (empty when none did);
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

from loregraph.models import DeleteReport
from loregraph.store.sqlite.rows import IN_JSON, json_list


@dataclass(slots=True)
class Changes:
    """What one transaction touched, to recompute and to keep caches in step."""

    scopes: set[str] = field(default_factory=set)
    entities: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)
    removed_chunks: list[str] = field(default_factory=list)
    removed_entities: set[str] = field(default_factory=set)
    removed_relations: set[str] = field(default_factory=set)


def alias_fields(name_key: str, aliases: dict[str, str]) -> tuple[str, str]:
    """``(aliases_json, search_keys)`` for an entity from ``{alias_key: surface}``.

    Aliases whose key is the canonical ``name_key`` (or empty) are left out.
    """
    kept = sorted((surface, key) for key, surface in aliases.items() if key and key != name_key)
    keys = [name_key] if name_key else []
    keys.extend(sorted({key for _, key in kept}))
    aliases_json = json.dumps([surface for surface, _ in kept], ensure_ascii=False)
    return aliases_json, "\n".join(f"  {key} " for key in keys)


def best_description(descriptions: list[str]) -> str:
    """The longest non-empty description (ties: alphabetical first)."""
    candidates = [text for text in descriptions if text]
    if not candidates:
        return ""
    return min(candidates, key=lambda text: (-len(text), text))


def detach_document(
    conn: sqlite3.Connection, document_id: str, changes: Changes
) -> DeleteReport | None:
    """Remove a document's chunks, mentions, evidence and contributions (not its row).

    Records what was touched in ``changes``; returns the counts, or ``None`` when there is
    no such document.
    """
    row = conn.execute("SELECT scope, title FROM documents WHERE id = ?", (document_id,)).fetchone()
    if row is None:
        return None
    scope, title = row
    changes.scopes.add(scope)
    params = (document_id,)
    touched = conn.execute(
        "SELECT DISTINCT m.entity_id FROM chunks c JOIN mentions m ON m.chunk_id = c.id "
        "WHERE c.document_id = ? "
        "UNION SELECT entity_id FROM entity_descriptions WHERE document_id = ? "
        "UNION SELECT entity_id FROM entity_aliases WHERE document_id = ?",
        (document_id, document_id, document_id),
    )
    changes.entities.update(entity_id for (entity_id,) in touched)
    changes.relations.update(
        relation_id
        for (relation_id,) in conn.execute(
            "SELECT DISTINCT relation_id FROM relation_evidence WHERE document_id = ?", params
        )
    )
    changes.removed_chunks.extend(
        chunk_id
        for (chunk_id,) in conn.execute("SELECT id FROM chunks WHERE document_id = ?", params)
    )
    conn.execute(
        "INSERT INTO chunks_fts(chunks_fts, rowid, text, title) "
        "SELECT 'delete', pk, text, ? FROM chunks WHERE document_id = ?",
        (title, document_id),
    )
    mentions = conn.execute(
        "DELETE FROM mentions WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)",
        params,
    ).rowcount
    conn.execute("DELETE FROM relation_evidence WHERE document_id = ?", params)
    conn.execute("DELETE FROM entity_descriptions WHERE document_id = ?", params)
    conn.execute("DELETE FROM entity_aliases WHERE document_id = ?", params)
    conn.execute("DELETE FROM merges WHERE document_id = ?", params)
    chunks = conn.execute("DELETE FROM chunks WHERE document_id = ?", params).rowcount
    return DeleteReport(document_id=document_id, chunks=chunks, mentions=mentions)


def delete_relations(conn: sqlite3.Connection, relation_ids: set[str]) -> None:
    """Delete relations and their evidence (their FTS rows go by trigger)."""
    if not relation_ids:
        return
    ids = json_list(relation_ids)
    conn.execute(f"DELETE FROM relation_evidence WHERE relation_id IN {IN_JSON}", (ids,))
    conn.execute(f"DELETE FROM relations WHERE id IN {IN_JSON}", (ids,))


def delete_entities(conn: sqlite3.Connection, entity_ids: set[str]) -> set[str]:
    """Delete entities with everything attached to them; returns the removed relation ids."""
    if not entity_ids:
        return set()
    ids = json_list(entity_ids)
    relation_ids = {
        relation_id
        for (relation_id,) in conn.execute(
            f"SELECT id FROM relations WHERE source_id IN {IN_JSON} "
            f"UNION SELECT id FROM relations WHERE target_id IN {IN_JSON}",
            (ids, ids),
        )
    }
    delete_relations(conn, relation_ids)
    for table in ("merges", "entity_aliases", "entity_descriptions", "mentions"):
        conn.execute(f"DELETE FROM {table} WHERE entity_id IN {IN_JSON}", (ids,))
    conn.execute(f"DELETE FROM entities WHERE id IN {IN_JSON}", (ids,))
    return relation_ids


def recompute(conn: sqlite3.Connection, changes: Changes, now: str) -> None:
    """Recompute touched relations, then touched entities; remove unsupported ones."""
    _recompute_relations(conn, changes)
    _recompute_entities(conn, changes, now)


def _recompute_relations(conn: sqlite3.Connection, changes: Changes) -> None:
    if not changes.relations:
        return
    ids = json_list(changes.relations)
    support = {
        relation_id: (float(count), confidence)
        for relation_id, count, confidence in conn.execute(
            "SELECT relation_id, count(*), max(confidence) FROM relation_evidence "
            f"WHERE relation_id IN {IN_JSON} GROUP BY relation_id",
            (ids,),
        )
    }
    updates: list[tuple[float, float, str]] = []
    dead: set[str] = set()
    for relation_id, weight, confidence in conn.execute(
        f"SELECT id, weight, confidence FROM relations WHERE id IN {IN_JSON}", (ids,)
    ).fetchall():
        found = support.get(relation_id)
        if found is None:
            dead.add(relation_id)
        elif found != (weight, confidence):
            updates.append((found[0], found[1], relation_id))
    conn.executemany("UPDATE relations SET weight = ?, confidence = ? WHERE id = ?", updates)
    delete_relations(conn, dead)
    changes.removed_relations |= dead


def _recompute_entities(conn: sqlite3.Connection, changes: Changes, now: str) -> None:
    if not changes.entities:
        return
    ids = json_list(changes.entities)
    counts = dict(
        conn.execute(
            "SELECT entity_id, sum(count) FROM mentions "
            f"WHERE entity_id IN {IN_JSON} GROUP BY entity_id",
            (ids,),
        ).fetchall()
    )
    descriptions: dict[str, list[str]] = defaultdict(list)
    for entity_id, text in conn.execute(
        f"SELECT entity_id, description FROM entity_descriptions WHERE entity_id IN {IN_JSON}",
        (ids,),
    ):
        descriptions[entity_id].append(text)
    aliases: dict[str, dict[str, str]] = defaultdict(dict)
    for entity_id, key, surface in conn.execute(
        "SELECT entity_id, alias_key, min(alias) FROM entity_aliases "
        f"WHERE entity_id IN {IN_JSON} GROUP BY entity_id, alias_key",
        (ids,),
    ):
        aliases[entity_id][key] = surface
    counters: list[tuple[int, str, str]] = []
    texts: list[tuple[str, str, str, str, str]] = []
    dead: set[str] = set()
    rows = conn.execute(
        "SELECT id, name_key, mention_count, description, aliases, search_keys "
        f"FROM entities WHERE id IN {IN_JSON}",
        (ids,),
    ).fetchall()
    for entity_id, key, old_count, old_description, old_aliases, old_keys in rows:
        count = int(counts.get(entity_id, 0))
        if count == 0 and entity_id not in descriptions:
            dead.add(entity_id)
            continue
        if count != old_count:
            counters.append((count, now, entity_id))
        description = best_description(descriptions.get(entity_id, []))
        aliases_json, search_keys = alias_fields(key, aliases.get(entity_id, {}))
        if (description, aliases_json, search_keys) != (old_description, old_aliases, old_keys):
            texts.append((description, aliases_json, search_keys, now, entity_id))
    conn.executemany("UPDATE entities SET mention_count = ?, updated_at = ? WHERE id = ?", counters)
    conn.executemany(
        "UPDATE entities SET description = ?, aliases = ?, search_keys = ?, updated_at = ? "
        "WHERE id = ?",
        texts,
    )
    changes.removed_relations |= delete_entities(conn, dead)
    changes.removed_entities |= dead


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

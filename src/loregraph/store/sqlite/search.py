"""Full-text (FTS5 BM25), fuzzy (FTS5 trigram) and vector-index loading queries.

BM25 statistics are per FTS table, i.e. shared by all scopes; results are filtered to the
asked scope. Scores are ``-bm25()`` (higher is better).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence

from loregraph.models import Scored, name_key
from loregraph.store.sqlite.cleanup import read_graph_version
from loregraph.store.sqlite.db import transaction
from loregraph.store.vectors import VectorIndex

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64
FUZZY_CANDIDATES = 200
"""How many trigram-index hits (best BM25 first) are re-scored by exact trigram similarity."""
LOAD_BATCH = 20_000


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any word of ``text`` (each quoted), or ``None`` if it has none."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_TERMS]
    if not words:
        return None
    return " OR ".join(f'"{word}"' for word in words)


def _ranked(conn: sqlite3.Connection, sql: str, params: Sequence[object]) -> list[Scored]:
    return [Scored(item, float(score)) for item, score in conn.execute(sql, params)]


def search_chunks_text(
    conn: sqlite3.Connection, scope: str, query: str, limit: int
) -> list[Scored]:
    """Chunk ids by BM25 over chunk text (weight 1) and document title (weight 0.5)."""
    match = fts_query(query)
    if match is None or limit <= 0:
        return []
    return _ranked(
        conn,
        "SELECT c.id, -bm25(chunks_fts, 1.0, 0.5) AS score FROM chunks_fts "
        "JOIN chunks AS c ON c.pk = chunks_fts.rowid "
        "WHERE chunks_fts MATCH ? AND c.scope = ? ORDER BY score DESC, c.pk LIMIT ?",
        (match, scope, limit),
    )


def search_entities_text(
    conn: sqlite3.Connection, scope: str, query: str, limit: int
) -> list[Scored]:
    """Entity ids by BM25 over name (weight 3), aliases (2) and description (1)."""
    match = fts_query(query)
    if match is None or limit <= 0:
        return []
    return _ranked(
        conn,
        "SELECT e.id, -bm25(entities_fts, 3.0, 2.0, 1.0) AS score FROM entities_fts "
        "JOIN entities AS e ON e.pk = entities_fts.rowid "
        "WHERE entities_fts MATCH ? AND e.scope = ? ORDER BY score DESC, e.pk LIMIT ?",
        (match, scope, limit),
    )


def search_relations_text(
    conn: sqlite3.Connection, scope: str, query: str, limit: int
) -> list[Scored]:
    """Relation ids by BM25 over fact (weight 1) and type (0.5); expired relations skipped."""
    match = fts_query(query)
    if match is None or limit <= 0:
        return []
    return _ranked(
        conn,
        "SELECT r.id, -bm25(relations_fts, 1.0, 0.5) AS score FROM relations_fts "
        "JOIN relations AS r ON r.pk = relations_fts.rowid "
        "WHERE relations_fts MATCH ? AND r.scope = ? AND r.expired_at IS NULL "
        "ORDER BY score DESC, r.pk LIMIT ?",
        (match, scope, limit),
    )


def trigrams(key: str) -> set[str]:
    """The trigrams of a name key padded like PostgreSQL's pg_trgm (``"  key "``)."""
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def trigram_similarity(a: set[str], b: set[str]) -> float:
    """``|a & b| / |a | b|`` (0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def search_entities_fuzzy(
    conn: sqlite3.Connection,
    scope: str,
    name: str,
    limit: int,
    entity_type: str | None = None,
) -> list[Scored]:
    """Entity ids by trigram similarity of ``name_key(name)`` to their name or alias keys.

    The trigram index holds each key padded as ``"  key "``, so one- and two-letter names
    have trigrams too. Candidates sharing any trigram are taken best-BM25 first, then
    re-scored exactly; the score is the best similarity over the entity's keys.
    """
    key = name_key(name)
    if not key or limit <= 0:
        return []
    grams = trigrams(key)
    match = " OR ".join(f'"{gram}"' for gram in sorted(grams))
    type_filter = "" if entity_type is None else "AND e.type = ? "
    params: list[object] = [match, scope]
    if entity_type is not None:
        params.append(entity_type)
    params.append(max(FUZZY_CANDIDATES, limit * 10))
    rows = conn.execute(
        "SELECT e.id, e.search_keys, e.mention_count FROM entities_trgm "
        "JOIN entities AS e ON e.pk = entities_trgm.rowid "
        f"WHERE entities_trgm MATCH ? AND e.scope = ? {type_filter}"
        "ORDER BY entities_trgm.rank LIMIT ?",
        params,
    ).fetchall()
    scored: list[tuple[float, int, str]] = []
    for entity_id, search_keys, mentions in rows:
        best = max(
            (trigram_similarity(grams, trigrams(line.strip())) for line in search_keys.split("\n")),
            default=0.0,
        )
        if best > 0.0:
            scored.append((best, mentions, entity_id))
    scored.sort(key=lambda item: (-item[0], -item[1], item[2]))
    return [Scored(entity_id, score) for score, _, entity_id in scored[:limit]]


def load_vector_index(conn: sqlite3.Connection, scope: str, kind: str) -> VectorIndex:
    """Load a scope's ``entity`` or ``chunk`` embeddings into a :class:`VectorIndex`."""
    if kind == "entity":
        sql = "SELECT id, embedding, type FROM entities WHERE scope = ? AND embedding IS NOT NULL"
        count = "SELECT count(*) FROM entities WHERE scope = ? AND embedding IS NOT NULL"
    else:
        sql = "SELECT id, embedding, NULL FROM chunks WHERE scope = ? AND embedding IS NOT NULL"
        count = "SELECT count(*) FROM chunks WHERE scope = ? AND embedding IS NOT NULL"
    with transaction(conn, write=False):
        version = read_graph_version(conn, scope)
        total = conn.execute(count, (scope,)).fetchone()[0]
        cursor = conn.execute(sql, (scope,))

        def batches() -> Iterator[tuple[list[str], list[bytes], list[str | None]]]:
            while rows := cursor.fetchmany(LOAD_BATCH):
                yield [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]

        return VectorIndex.build(batches(), total=total, version=version)

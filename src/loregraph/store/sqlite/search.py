"""Full-text search (FTS5 BM25) and loading the in-memory vector and name indexes.

BM25 statistics are per FTS table, i.e. shared by all scopes; results are filtered to the
asked scope. Scores are ``-bm25()`` (higher is better).

Chunk search splits the query by script (:func:`loregraph.store.scripts.split_query`):
words go to the Porter word index ``chunks_fts``; terms in scripts written without spaces
(Chinese, Japanese, Thai...) or with attached particles (Arabic, Hebrew, Korean) go to the
trigram index ``chunks_trigram`` as substrings. A query with both kinds fuses the two
rankings (reciprocal rank); a query of words only runs exactly as before.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Iterator

from loregraph.models import Scored
from loregraph.store.names import NameIndex
from loregraph.store.queries import TextSearch
from loregraph.store.scripts import fuse_rankings, split_query
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.versions import read_graph_version
from loregraph.store.vectors import VectorIndex

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64
LOAD_BATCH = 20_000
SHORT_TERM_PIECES = 128
"""A one- or two-character substring term matches through at most this many indexed
three-character pieces that start with it."""
_LAST_CHAR = "\U0010ffff"

KIND_CLAUSE = "t.document_id IN (SELECT id FROM documents WHERE kind = ?)"
"""Keeps the chunks (``t``) of documents of one kind."""
CHUNK_WEIGHTS = "1.0, 0.5"
"""BM25 weights of a chunk's text and its document's title."""
DOCUMENTS_CLAUSE = "t.document_id IN (SELECT value FROM json_each(?))"
"""Keeps the chunks (``t``) of the documents listed (a JSON array)."""


@functools.lru_cache(maxsize=16)
def listed(documents: frozenset[str]) -> str:
    """``documents`` as the JSON array :data:`DOCUMENTS_CLAUSE` takes, made once for the
    readable set a principal asks with question after question (a frozenset keeps its hash;
    the order of the ids does not matter to the query)."""
    return json.dumps(list(documents))


def chunk_filter(ask: TextSearch) -> tuple[str, list[object]]:
    """:meth:`TextSearch.chunk_clauses` on chunks ``t``."""
    return ask.chunk_clauses(KIND_CLAUSE, DOCUMENTS_CLAUSE, listed)


def fts_query(text: str) -> str | None:
    """An FTS5 query matching any word of ``text`` (each quoted), or ``None`` if it has none."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_TERMS]
    if not words:
        return None
    return " OR ".join(f'"{word}"' for word in words)


def _bm25(
    conn: sqlite3.Connection, table: str, weights: str, query: str, ask: TextSearch
) -> list[Scored]:
    """Ids of ``table`` rows matching ``query`` ranked by BM25 over its FTS5 index
    ``{table}_fts`` (chunks kept as :func:`chunk_filter` keeps them)."""
    match = fts_query(query)
    if match is None or ask.limit <= 0:
        return []
    extra, filters = chunk_filter(ask)
    params = (match, ask.scope, *filters, ask.limit)
    sql = (
        f"SELECT t.id, -bm25({table}_fts, {weights}) AS score FROM {table}_fts "
        f"JOIN {table} AS t ON t.pk = {table}_fts.rowid "
        f"WHERE {table}_fts MATCH ? AND t.scope = ? {extra}"
        "ORDER BY score DESC, t.pk LIMIT ?"
    )
    return [Scored(item, float(score)) for item, score in conn.execute(sql, params)]


def search_chunks_text(conn: sqlite3.Connection, ask: TextSearch) -> list[Scored]:
    """Chunk ids by BM25 over chunk text (weight 1) and document title (weight 0.5), of
    documents of the asked kind and of the documents listed only, each when given.

    Words are matched as words, terms of substring-matched scripts as substrings (see the
    module docstring).
    """
    terms = split_query(ask.query, MAX_TERMS)
    if not terms.substrings:
        return _bm25(conn, "chunks", CHUNK_WEIGHTS, ask.query, ask)
    found = search_substrings(conn, ask, terms.substrings)
    if not terms.words:
        return found
    words = _bm25(conn, "chunks", CHUNK_WEIGHTS, " ".join(terms.words), ask)
    return fuse_rankings([words, found], ask.limit)


def _phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def substring_query(conn: sqlite3.Connection, terms: list[str]) -> str | None:
    """An FTS5 query of ``chunks_trigram`` matching any of ``terms`` as a substring.

    A term of three characters or more is a phrase (its trigrams in sequence). A shorter
    one has no trigram of its own: it matches through the indexed trigrams that start with
    it, read from ``chunks_trigram_vocab`` (indexed text ends with two spaces, so a term at
    the very end has one too).
    """
    pieces: dict[str, None] = {}
    for term in terms:
        if len(term) >= 3:
            pieces.setdefault(_phrase(term), None)
            continue
        rows = conn.execute(
            "SELECT term FROM chunks_trigram_vocab WHERE term >= ? AND term < ? LIMIT ?",
            (term, term + _LAST_CHAR, SHORT_TERM_PIECES),
        )
        for (piece,) in rows:
            pieces.setdefault(_phrase(piece), None)
    return " OR ".join(pieces) if pieces else None


def search_substrings(conn: sqlite3.Connection, ask: TextSearch, terms: list[str]) -> list[Scored]:
    """Chunk ids by BM25 over the trigram index, matching any of ``terms`` as a substring
    of chunk text (weight 1) or document title (weight 0.5); chunks kept as
    :func:`chunk_filter` keeps them."""
    if ask.limit <= 0:
        return []
    match = substring_query(conn, terms)
    if match is None:
        return []
    extra, filters = chunk_filter(ask)
    params = (match, ask.scope, *filters, ask.limit)
    sql = (
        "SELECT t.id, -bm25(chunks_trigram, 1.0, 0.5) AS score FROM chunks_trigram "
        "JOIN chunks AS t ON t.pk = chunks_trigram.rowid "
        f"WHERE chunks_trigram MATCH ? AND t.scope = ? {extra}ORDER BY score DESC, t.pk LIMIT ?"
    )
    return [Scored(item, float(score)) for item, score in conn.execute(sql, params)]


def search_entities_text(conn: sqlite3.Connection, ask: TextSearch) -> list[Scored]:
    """Entity ids by BM25 over name (weight 3), aliases (2) and description (1)."""
    return _bm25(conn, "entities", "3.0, 2.0, 1.0", ask.query, ask)


def load_name_index(conn: sqlite3.Connection, scope: str) -> NameIndex:
    """Load a scope's entity name and alias keys into a :class:`NameIndex`."""
    with transaction(conn, write=False):
        version = read_graph_version(conn, scope)
        rows = conn.execute(
            "SELECT id, type, search_keys FROM entities NOT INDEXED WHERE scope = ? ORDER BY pk",
            (scope,),
        )
        return NameIndex.build(rows, version)


def chunk_ids_of(conn: sqlite3.Connection, scope: str, documents: frozenset[str]) -> list[str]:
    """The ids of the chunks of ``documents`` in ``scope``."""
    rows = conn.execute(
        f"SELECT t.id FROM chunks AS t WHERE t.scope = ? AND {DOCUMENTS_CLAUSE}",
        (scope, listed(documents)),
    )
    return [row[0] for row in rows]


def load_vector_index(conn: sqlite3.Connection, scope: str, kind: str) -> VectorIndex:
    """Load a scope's ``entity`` or ``chunk`` embeddings into a :class:`VectorIndex`, each
    tagged with its entity type or its document's kind."""
    # the vector table drives (one sequential scan); CROSS JOIN keeps that order
    if kind == "entity":
        sql = (
            "SELECT e.id, v.embedding, e.type FROM entity_vectors AS v "
            "CROSS JOIN entities AS e ON e.pk = v.entity WHERE e.scope = ?"
        )
        count = "SELECT count(*) FROM entities WHERE scope = ?"
    else:
        sql = (
            "SELECT c.id, v.embedding, d.kind FROM chunk_vectors AS v "
            "CROSS JOIN chunks AS c ON c.pk = v.chunk "
            "JOIN documents AS d ON d.id = c.document_id WHERE c.scope = ?"
        )
        count = "SELECT count(*) FROM chunks WHERE scope = ?"
    with transaction(conn, write=False):
        version = read_graph_version(conn, scope)
        total = conn.execute(count, (scope,)).fetchone()[0]
        cursor = conn.execute(sql, (scope,))

        def batches() -> Iterator[tuple[list[str], list[bytes], list[str | None]]]:
            while rows := cursor.fetchmany(LOAD_BATCH):
                yield [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]

        return VectorIndex.build(batches(), total=total, version=version)

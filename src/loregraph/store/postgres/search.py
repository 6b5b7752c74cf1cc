"""Search: full text (tsvector + ``ts_rank_cd``), fuzzy names (pg_trgm), vectors (pgvector).

* Full text matches any word of the query (an OR of its words, English stemming) and ranks
  by cover density, normalised by document length (a BM25-like ranking); fields are weighted
  A (chunk text, entity name, relation fact), B (document title, entity aliases, relation
  type) and C (entity description).
* Chunk search splits the query by script (:func:`loregraph.store.scripts.split_query`):
  terms in scripts written without spaces or with attached particles are matched as
  substrings of chunk text (``ILIKE``, served by the pg_trgm index ``chunks_substrings``)
  and ranked by how many of them a chunk holds and how often; a query with words too fuses
  both rankings (reciprocal rank).
* Fuzzy search ranks the trigram similarity (0..1) of ``name_key(name)`` to entity name and
  alias keys; the candidates come from a GiST k-nearest-neighbour scan of ``entity_keys``.
* Vector search ranks by cosine similarity over an HNSW index per dimension, with pgvector's
  iterative scan so that scope and type filters still fill the limit.
"""

from __future__ import annotations

import re

from loregraph.errors import ConfigError
from loregraph.models import Scored, name_key
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import vector_or_none
from loregraph.store.postgres.schema import SUBSTRING_ROWS, vector_cast
from loregraph.store.queries import TextSearch, VectorSearch
from loregraph.store.scripts import fuse_rankings, split_query

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64
FUZZY_CANDIDATES = 100
TABLES = {"entity": "entities", "chunk": "chunks"}
_RANK_NORMALISATION = 1  # divide the rank by 1 + log(document length)
KIND_CLAUSE = "{alias}.document IN (SELECT pk FROM documents WHERE kind = %s)"
"""Keeps the chunks (``alias``) of documents of one kind."""
DOCUMENTS_CLAUSE = "{alias}.document IN (SELECT pk FROM documents WHERE id = ANY(%s))"
"""Keeps the chunks (``alias``) of the documents listed."""


def chunk_filter(alias: str, ask: TextSearch) -> tuple[str, list[object]]:
    """:meth:`TextSearch.chunk_clauses` on chunks ``alias``."""
    return ask.chunk_clauses(
        KIND_CLAUSE.format(alias=alias), DOCUMENTS_CLAUSE.format(alias=alias), list
    )


def ts_query(text: str) -> str | None:
    """A ``to_tsquery`` text matching any word of ``text`` (each quoted), or ``None``."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_TERMS]
    if not words:
        return None
    return " | ".join(f"'{word}'" for word in words)


async def _full_text(conn: Conn, table: str, query: str, ask: TextSearch) -> list[Scored]:
    match = ts_query(query)
    if match is None or ask.limit <= 0:
        return []
    extra, filters = chunk_filter("t", ask)
    params = (match, ask.scope, *filters, ask.limit)
    cursor = await conn.execute(
        f"SELECT t.id, ts_rank_cd(t.search, q, {_RANK_NORMALISATION}) AS score "
        f"FROM {table} AS t, to_tsquery('english', %s) AS q "
        f"WHERE t.scope = %s AND t.search @@ q {extra}"
        "ORDER BY score DESC, t.pk LIMIT %s",
        params,
    )
    return [Scored(item, float(score)) for item, score in await cursor.fetchall()]


async def search_chunks_text(conn: Conn, ask: TextSearch) -> list[Scored]:
    """Chunk ids by full-text rank over chunk text and document title; terms of
    substring-matched scripts are matched as substrings of the text (module docstring).
    Only chunks of documents of the asked kind, and of the documents listed, when given."""
    terms = split_query(ask.query, MAX_TERMS)
    if not terms.substrings:
        return await _full_text(conn, "chunks", ask.query, ask)
    found = await search_substrings(conn, ask, terms.substrings)
    if not terms.words:
        return found
    words = await _full_text(conn, "chunks", " ".join(terms.words), ask)
    return fuse_rankings([words, found], ask.limit)


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def search_substrings(conn: Conn, ask: TextSearch, terms: list[str]) -> list[Scored]:
    """Chunk ids holding any of ``terms`` (case-insensitive substrings), ranked by the sum
    over the terms of ``ln(1 + occurrences)``; chunks kept as :func:`chunk_filter` keeps
    them."""
    if not terms or ask.limit <= 0:
        return []
    matches = " OR ".join(["c.text ILIKE %s"] * len(terms))
    of_kind, filters = chunk_filter("c", ask)
    cursor = await conn.execute(
        "SELECT c.id, (SELECT sum(ln(1 + (length(c.text) - length(replace(lower(c.text), t, ''))) "
        "/ length(t))) FROM unnest(%s::text[]) AS t) AS score FROM chunks AS c "
        f"WHERE c.scope = %s AND {SUBSTRING_ROWS} AND ({matches}) {of_kind}"
        "ORDER BY score DESC, c.pk LIMIT %s",
        (terms, ask.scope, *[_like(t) for t in terms], *filters, ask.limit),
    )
    return [Scored(item, float(score)) for item, score in await cursor.fetchall()]


async def search_entities_text(conn: Conn, ask: TextSearch) -> list[Scored]:
    """Entity ids by full-text rank over name, aliases and description."""
    return await _full_text(conn, "entities", ask.query, ask)


async def search_entities_fuzzy(
    conn: Conn, scope: str, name: str, limit: int, entity_type: str | None
) -> list[Scored]:
    """Entity ids by the best trigram similarity of their name or alias keys to ``name``."""
    key = name_key(name)
    if not key or limit <= 0:
        return []
    typed = "" if entity_type is None else "AND k.type = %(type)s "
    cursor = await conn.execute(
        "SELECT e.id, best.score FROM ("
        "SELECT near.entity, max(similarity(near.key, %(key)s)) AS score FROM ("
        f"SELECT k.entity, k.key FROM entity_keys AS k WHERE k.scope = %(scope)s {typed}"
        "ORDER BY k.key <-> %(key)s LIMIT %(candidates)s) AS near GROUP BY near.entity"
        ") AS best JOIN entities AS e ON e.pk = best.entity WHERE best.score > 0 "
        "ORDER BY best.score DESC, e.id LIMIT %(limit)s",
        {
            "key": key,
            "scope": scope,
            "type": entity_type,
            "candidates": max(FUZZY_CANDIDATES, limit * 10),
            "limit": limit,
        },
    )
    return [Scored(item, float(score)) for item, score in await cursor.fetchall()]


async def search_vector(conn: Conn, ask: VectorSearch) -> list[Scored]:
    """Entity or chunk ids by cosine similarity to the asked vector.

    Raises :class:`ConfigError` when the scope holds vectors of another dimension only.
    """
    dim, text = vector_or_none(ask.vector)
    if ask.limit <= 0 or not dim:
        return []
    table = TABLES[ask.kind]
    expression = vector_cast(dim)
    typed = "" if ask.entity_type is None else "AND t.type = %(type)s "
    if ask.document_kind is not None:
        typed += "AND " + KIND_CLAUSE.format(alias="t").replace("%s", "%(kind)s") + " "
    if ask.documents is not None:
        typed += "AND " + DOCUMENTS_CLAUSE.format(alias="t").replace("%s", "%(docs)s") + " "
    cursor = await conn.execute(
        f"SELECT t.id, 1 - ({expression} <=> %(q)s::vector({dim})) FROM {table} AS t "
        f"WHERE t.scope = %(scope)s AND t.dim = {dim} {typed}"
        f"ORDER BY {expression} <=> %(q)s::vector({dim}) LIMIT %(limit)s",
        {
            "q": text,
            "scope": ask.scope,
            "type": ask.entity_type,
            "kind": ask.document_kind,
            "docs": list(ask.documents or ()),
            "limit": ask.limit,
        },
    )
    hits = [Scored(item, float(score)) for item, score in await cursor.fetchall()]
    if not hits:
        cursor = await conn.execute(
            f"SELECT dim FROM {table} WHERE scope = %s AND dim <> %s LIMIT 1", (ask.scope, dim)
        )
        other = await cursor.fetchone()
        if other is not None:
            raise ConfigError(
                f"the query vector has dimension {dim} but the stored vectors have {other[0]}; "
                "they were probably made by a different embedding model "
                "(re-embed the store or use the model it was built with)"
            )
    return hits

"""Full-text, vector and fuzzy-name search.

* Full-text: the database's full-text indexes (FalkorDB ``db.idx.fulltext``, RediSearch
  scoring; Neo4j ``db.index.fulltext``, Lucene scoring). A query matches any of its words;
  the words are extracted here (``\\w+``), so no query syntax from the caller reaches the
  full-text engine. Indexes are global; hits are filtered to the scope.
* Vector: the database's vector index (HNSW, cosine). The index is global too, so it is
  asked for ``k`` neighbours and hits outside the scope (or type) are dropped; ``k`` grows
  until ``limit`` hits are found or the index has no more.
* Chunk search splits the query by script (:func:`loregraph.store.scripts.split_query`):
  terms in scripts written without spaces or with attached particles are matched as
  substrings of chunk text (``CONTAINS`` over the scope's chunks: no index serves it) and
  ranked in Python by ``sum(ln(1 + occurrences))``; a query with words too fuses both
  rankings (reciprocal rank).
* Fuzzy names: neither database offers trigram similarity; the store's default
  (:mod:`loregraph.store.fuzzy`) scores name and alias keys in Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from loregraph.models import Scored
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.dialect import CHUNK, DOCUMENT, ENTITY, search_words
from loregraph.store.cypher.schema import SchemaState, ensure_vector_index, refresh_dims
from loregraph.store.queries import TextSearch, VectorSearch
from loregraph.store.scripts import fuse_rankings, split_query
from loregraph.store.widen import widening

MAX_K = 100_000
LABELS = {"entity": ENTITY, "chunk": CHUNK}


async def search_chunks_text(conn: Connection, ask: TextSearch) -> list[Scored]:
    """Chunk ids of the asked scope by full-text score (chunks kept as :func:`_kept` keeps
    them); terms of substring-matched scripts are matched as substrings (see the module
    docstring)."""
    terms = split_query(ask.query)
    if not terms.substrings:
        return await search_text(conn, CHUNK, ask.query, ask)
    found = await search_substrings(conn, ask, terms.substrings)
    if not terms.words:
        return found
    words = await search_text(conn, CHUNK, " ".join(terms.words), ask)
    return fuse_rankings([words, found], ask.limit)


def _kept(ask: TextSearch, node: str) -> str:
    """The conditions keeping the chunk ``node`` to the documents listed (``$docs``) and to
    documents of the asked kind (``$kind``), each when given."""
    kept = "" if ask.documents is None else f"AND {node}.document_id IN $docs "
    if ask.document_kind is not None:
        kept += f"MATCH (d:{DOCUMENT} {{id: {node}.document_id}}) WHERE d.kind = $kind "
    return kept


def _params(ask: TextSearch) -> dict[str, Any]:
    """The parameters of :func:`_kept`'s conditions and of the scope and limit."""
    docs = list(ask.documents or ())
    return {"scope": ask.scope, "limit": ask.limit, "kind": ask.document_kind, "docs": docs}


async def search_substrings(conn: Connection, ask: TextSearch, terms: list[str]) -> list[Scored]:
    """Chunk ids of the asked scope holding any of ``terms`` (case-insensitive substrings),
    ranked by the sum over the terms of ``ln(1 + occurrences)``."""
    if not terms or ask.limit <= 0:
        return []
    rows = await conn.read(
        f"MATCH (c:{CHUNK} {{scope: $scope}}) WITH c, toLower(c.text) AS text "
        f"WHERE any(term IN $terms WHERE text CONTAINS term) {_kept(ask, 'c')}"
        "RETURN c.id, text",
        _params(ask) | {"terms": terms},
    )
    hits = [
        Scored(row[0], sum(math.log1p(str(row[1]).count(term)) for term in terms)) for row in rows
    ]
    hits.sort(key=lambda hit: (-hit.score, hit.id))
    return hits[: ask.limit]


async def search_text(conn: Connection, label: str, query: str, ask: TextSearch) -> list[Scored]:
    """Ids of ``label`` nodes (chunks or entities) of the asked scope matching ``query``,
    ranked by full-text score (chunks kept as :func:`_kept` keeps them)."""
    words = search_words(query)
    if not words or ask.limit <= 0:
        return []
    rows = await conn.read(
        f"{conn.dialect.fulltext_nodes(label)} WITH node, score WHERE node.scope = $scope "
        f"{_kept(ask, 'node')}"
        "RETURN node.id, score ORDER BY score DESC, node.id LIMIT $limit",
        _params(ask) | {"query": conn.dialect.fulltext_query(words)},
    )
    return [Scored(row[0], float(row[1])) for row in rows]


async def search_vector(conn: Connection, schema: SchemaState, ask: VectorSearch) -> list[Scored]:
    """Ids of entity or chunk nodes of the asked scope (and type) by cosine similarity."""
    if ask.limit <= 0:
        return []
    label = LABELS[ask.kind]
    if label not in schema.dims:
        await refresh_dims(conn, schema)
    dim = schema.dims.get(label)
    if dim is None:
        return []
    ask.check(dim, label)
    await ensure_vector_index(conn, schema, label, dim)
    params: dict[str, Any] = {"vector": [float(x) for x in ask.vector]}
    if ask.kind == "entity":
        tagged, tag, wanted = "", "node.type", ask.entity_type
    else:  # a chunk's tag is its document's kind
        tagged = f"OPTIONAL MATCH (d:{DOCUMENT} {{id: node.document_id}}) WITH node, score, d"
        tag, wanted = "d.kind", ask.document_kind
        if wanted is None:
            tagged, tag = "", "null"

    async def nearest(k: int) -> list[Any]:
        return await conn.read(
            f"{conn.dialect.vector_nodes(label)} {tagged} "
            f"RETURN node.id, node.scope, {tag}, {conn.dialect.similarity('score')}, "
            f"{'node.document_id' if ask.kind == 'chunk' else 'null'}",
            {**params, "k": k},
        )

    async def ours(rows: Sequence[Any]) -> list[Scored]:
        return [
            Scored(row[0], float(row[3]))
            for row in rows
            if row[1] == ask.scope
            and wanted in (None, row[2])
            and (ask.documents is None or row[4] in ask.documents)
        ]

    first = max(4 * ask.limit, 16)
    hits = await widening(nearest, ours, ask.limit, first=first, most=MAX_K)
    hits.sort(key=lambda hit: (-hit.score, hit.id))
    return hits[: ask.limit]

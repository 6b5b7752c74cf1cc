"""Full-text, vector and fuzzy-name search in SurrealDB.

* Full-text: the BM25 indexes find the matches (a query matches any of its words, each
  word a parameter, so no query syntax from the caller reaches the engine) and give each
  word's occurrences (``search::offsets``); the score is BM25 computed from them
  (:func:`loregraph.store.bm25.bm25_scores`, ``N`` the scope's number of chunks or
  entities, kept with its graph version). The engine's own ``search::score`` is 0 whenever a
  word is in half the texts or more, which ties every hit in a small store.
* Chunk search splits the query by script (:func:`loregraph.store.scripts.split_query`):
  terms in scripts written without spaces are matched as substrings and ranked by
  ``sum(ln(1 + occurrences))``; a query with words too fuses both rankings.
* Vector: the HNSW index (cosine) of ``entity_vector`` or ``chunk_vector``, which every
  scope shares: hits of other scopes (or of another type or kind) are dropped and ``k``
  grows until ``limit`` hits are found or the index has no more. (A condition on the scope
  in the same query made the engine read every candidate record: 600 ms against 20 ms.)
* Fuzzy names: the store's default (:mod:`loregraph.store.fuzzy`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from loregraph.models import Scored
from loregraph.store.bm25 import bm25_scores
from loregraph.store.planned import Opened
from loregraph.store.queries import TextSearch, VectorSearch
from loregraph.store.scripts import fuse_rankings, split_query
from loregraph.store.surreal.connection import SurrealConnection
from loregraph.store.surreal.records import thing, things
from loregraph.store.surreal.schema import SchemaState, ensure_vector_index, refresh_dims
from loregraph.store.widen import widening

MAX_WORDS = 32
MAX_K = 100_000


def _where(ask: TextSearch) -> tuple[str, dict[str, Any]]:
    """The condition keeping records to the asked scope, to documents of the asked kind and
    to the documents listed (each when given), and its parameters."""
    kind = None if ask.document_kind is None else str(ask.document_kind)
    where = "scope = $scope" + ("" if kind is None else " AND kind = $kind")
    if ask.documents is not None:
        where += " AND document_id INSIDE $docs"
    return where, {"scope": ask.scope, "kind": kind, "docs": list(ask.documents or ())}


async def bm25(conn: SurrealConnection, ask: TextSearch, words: list[str]) -> list[Scored]:
    """Ids of the asked kind of records (``chunk`` or ``entity``) ranked by BM25 over their
    ``search_text`` (kept as :func:`_where` keeps them)."""
    words = list(dict.fromkeys(w.casefold() for w in words))[:MAX_WORDS]
    if not words or ask.limit <= 0:
        return []
    table = ask.kind
    where, params = _where(ask)
    params["counts"] = thing("scope_version", ask.scope)
    params |= {f"w{i}": word for i, word in enumerate(words)}
    matches = " OR ".join(f"search_text @{i}@ $w{i}" for i in range(len(words)))
    offsets = ", ".join(f"search::offsets({i}) AS o{i}" for i in range(len(words)))
    counted, hits = await conn.run(
        f"RETURN (SELECT VALUE {table}s FROM $counts)[0]; "
        f"SELECT record::id(id) AS id, array::len(string::words(search_text)) AS dl, {offsets} "
        f"FROM {table} WHERE {where} AND ({matches});",
        params,
    )
    if not hits:
        return []
    freqs = [[_occurrences(hit.get(f"o{i}")) for i in range(len(words))] for hit in hits]
    lengths = [int(hit["dl"] or 0) for hit in hits]
    scores = bm25_scores(freqs, lengths, max(int(counted or 0), len(hits)))
    scored = [Scored(hit["id"], score) for hit, score in zip(hits, scores, strict=True)]
    scored.sort(key=lambda hit: (-hit.score, hit.id))
    return scored[: ask.limit]


def _occurrences(offsets: Any) -> int:
    """How many times a word occurs, from ``search::offsets`` (per field: a list)."""
    if not offsets:
        return 0
    return sum(len(found) for found in offsets.values())


async def search_substrings(
    conn: SurrealConnection, ask: TextSearch, terms: list[str]
) -> list[Scored]:
    """Chunk ids of the asked scope holding any of ``terms`` (case-insensitive substrings),
    ranked by the sum over the terms of ``ln(1 + occurrences)``."""
    if not terms or ask.limit <= 0:
        return []
    where, params = _where(ask)
    matches = " OR ".join(f"string::contains(lowered, $t{i})" for i in range(len(terms)))
    found = await conn.rows(
        "SELECT * FROM (SELECT record::id(id) AS id, string::lowercase(text) AS lowered "
        f"FROM chunk WHERE {where}) WHERE {matches}",
        params | {f"t{i}": term for i, term in enumerate(terms)},
    )
    hits = [Scored(r["id"], sum(math.log1p(r["lowered"].count(t)) for t in terms)) for r in found]
    hits.sort(key=lambda hit: (-hit.score, hit.id))
    return hits[: ask.limit]


class SurrealSearch(Opened[SurrealConnection, SchemaState]):
    """The store's full-text and vector search; chunk searches keep to the documents asked
    in the query (:attr:`~loregraph.store.base.Store.filters_documents`)."""

    filters_documents = True

    async def _search_text(self, ask: TextSearch) -> list[Scored]:
        terms = split_query(ask.query)
        words = await bm25(self._conn(), ask, terms.words)
        if not terms.substrings or ask.kind == "entity":
            return words
        found = await search_substrings(self._conn(), ask, terms.substrings)
        return fuse_rankings([words, found], ask.limit) if terms.words else found

    async def _search_vector(self, ask: VectorSearch) -> list[Scored]:
        if ask.limit <= 0:
            return []
        conn, schema = self._conn(), self._state()
        if ask.kind not in schema.dims:
            await refresh_dims(conn, schema)
        dim = schema.dims.get(ask.kind)
        if dim is None:
            return []
        ask.check(dim, ask.kind)
        await ensure_vector_index(conn, schema, ask.kind, dim)
        tag = ask.entity_type if ask.kind == "entity" else ask.document_kind
        tagged = "type" if ask.kind == "entity" else "kind"
        params = {"v": [float(x) for x in ask.vector]}
        docs = ask.documents if ask.kind == "chunk" else None
        of_document = "" if docs is None else "document_id, "

        async def nearest(k: int) -> list[dict[str, Any]]:
            return await self._conn().rows(
                f"SELECT record::id(id) AS id, scope, {of_document}"
                "vector::distance::knn() AS distance "
                f"FROM {ask.kind}_vector WHERE embedding <|{k},{max(k, 64)}|> $v",
                params,
            )

        async def ours(found: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
            hits = [row for row in found if row["scope"] == ask.scope]
            if docs is not None:
                hits = [row for row in hits if row["document_id"] in docs]
            if tag is None or not hits:
                return hits
            keep = set(
                await self._conn().rows(
                    f"SELECT VALUE record::id(id) FROM $ids WHERE {tagged} = $tag",
                    {"ids": things(ask.kind, [row["id"] for row in hits]), "tag": tag},
                )
            )
            return [row for row in hits if row["id"] in keep]

        # the index is shared by every scope: ask for more until enough are ours
        first = max(4 * ask.limit, 16)
        hits = await widening(nearest, ours, ask.limit, first=first, most=MAX_K)
        scored = [Scored(row["id"], 1.0 - float(row["distance"])) for row in hits]
        scored.sort(key=lambda hit: (-hit.score, hit.id))
        return scored[: ask.limit]

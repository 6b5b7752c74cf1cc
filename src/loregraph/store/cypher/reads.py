"""Plain reads: documents, chunks, entities, merges, paging and counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loregraph.models import Chunk, Document, Entity, Merge, StoreStats, Vector
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.records import (
    CHUNK_FIELDS,
    entity_from_row,
    to_vector,
)
from loregraph.store.props import CODEC
from loregraph.store.queries import DocumentQuery, EntityListing, Page, PageKey
from loregraph.store.rows import DOCUMENT_FIELDS, ENTITY_FIELDS, MERGE_FIELDS, columns, in_order

_DOC = columns(DOCUMENT_FIELDS, "d")
_CHUNK = columns(CHUNK_FIELDS, "c")
ENTITY_RETURN = columns(ENTITY_FIELDS, "e")
_ORDERS = {
    "mentions": "e.mention_count DESC, e.name, e.id",
    "name": "toLower(e.name), e.id",
    "degree": "degree DESC, e.mention_count DESC, e.name, e.id",
}


def _window(limit: int | None, offset: int) -> tuple[str, dict[str, Any]]:
    text = " SKIP $offset"
    params: dict[str, Any] = {"offset": max(0, offset)}
    if limit is not None:
        text += " LIMIT $limit"
        params["limit"] = max(0, limit)
    return text, params


# ----------------------------------------------------------------- documents
async def get_document(conn: Connection, document_id: str) -> Document | None:
    """A document by id."""
    rows = await conn.read(f"MATCH (d:LgDocument {{id: $id}}) RETURN {_DOC}", {"id": document_id})
    return CODEC.document(rows[0]) if rows else None


async def documents(conn: Connection, query: DocumentQuery) -> list[Document]:
    """A scope's documents matching every criterion, oldest (or newest) first, in a window."""
    where = "".join(f" AND d.{name} = ${name}" for name in query.criteria)
    order = " DESC" if query.newest_first else ""
    window, params = _window(query.limit, query.offset)
    rows = await conn.read(
        f"MATCH (d:LgDocument) WHERE d.scope = $scope{where} RETURN {_DOC} "
        f"ORDER BY d.created_at{order}, d.id{order}" + window,
        {"scope": query.scope, **query.criteria, **params},
    )
    return [CODEC.document(row) for row in rows]


async def scopes(conn: Connection) -> list[str]:
    """Scopes holding at least one document, sorted."""
    rows = await conn.read("MATCH (d:LgDocument) RETURN DISTINCT d.scope AS s ORDER BY s")
    return [row[0] for row in rows]


# ----------------------------------------------------------------- chunks
async def get_chunks(conn: Connection, chunk_ids: Sequence[str]) -> list[Chunk]:
    """Chunks by id in the order asked (missing skipped), without embeddings."""
    rows = await conn.read(
        f"UNWIND $ids AS i MATCH (c:LgChunk {{id: i}}) RETURN {_CHUNK}", {"ids": list(chunk_ids)}
    )
    found = {row[0]: CODEC.chunk(row) for row in rows}
    return [found[i] for i in chunk_ids if i in found]


# ----------------------------------------------------------------- entities
async def get_entities(conn: Connection, entity_ids: Sequence[str]) -> list[Entity]:
    """Entities by id in the order asked (missing skipped), without embeddings."""
    rows = await conn.read(
        f"UNWIND $ids AS i MATCH (e:LgEntity {{id: i}}) RETURN {ENTITY_RETURN}",
        {"ids": list(dict.fromkeys(entity_ids))},
    )
    found = {row[0]: entity_from_row(row) for row in rows}
    return in_order(found, entity_ids)


async def find_entities_by_key(
    conn: Connection, scope: str, keys: Sequence[str]
) -> dict[str, Entity]:
    """Exact lookup of name keys: canonical names first, then aliases (most mentioned wins)."""
    rows = await conn.read(
        "UNWIND $keys AS k MATCH (n:LgKey {key: k}) WHERE n.scope = $scope WITH k, n "
        f"MATCH (e:LgEntity {{id: n.entity_id}}) RETURN k, n.canonical, {ENTITY_RETURN} "
        "ORDER BY n.canonical DESC, e.mention_count DESC, e.id",
        {"keys": list(dict.fromkeys(keys)), "scope": scope},
    )
    result: dict[str, Entity] = {}
    for row in rows:
        if row[0] not in result:
            result[row[0]] = entity_from_row(row[2:])
    return result


async def entity_embeddings(conn: Connection, entity_ids: Sequence[str]) -> dict[str, Vector]:
    """Stored embeddings by entity id (entities without one are absent)."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (e:LgEntity {id: i}) WHERE e.embedding IS NOT NULL "
        "RETURN e.id, e.embedding",
        {"ids": list(entity_ids)},
    )
    out: dict[str, Vector] = {}
    for entity_id, value in rows:
        vector = to_vector(value)
        if vector is not None:
            out[entity_id] = vector
    return out


async def list_entities(conn: Connection, listing: EntityListing) -> list[Entity]:
    """A scope's entities by mentions, degree or name (without embeddings)."""
    where = " WHERE e.type = $type" if listing.entity_type is not None else ""
    degree = ""
    if listing.order == "degree":
        degree = "OPTIONAL MATCH (e)-[r:LG_REL]-() WITH e, count(r) AS degree "
    window, params = _window(listing.limit, listing.offset)
    rows = await conn.read(
        f"MATCH (e:LgEntity {{scope: $scope}}){where} {degree}"
        f"RETURN {ENTITY_RETURN} ORDER BY {_ORDERS[listing.order]}" + window,
        {"scope": listing.scope, "type": listing.entity_type, **params},
    )
    return [entity_from_row(row) for row in rows]


async def entities_page(conn: Connection, scope: str, after: PageKey, batch: int) -> Page[Entity]:
    """The next ``batch`` entities (with embeddings) with ids after ``after``, by id."""
    rows = await conn.read(
        "MATCH (e:LgEntity {scope: $scope}) WHERE e.id > $after "
        f"RETURN {ENTITY_RETURN}, e.embedding ORDER BY e.id LIMIT $batch",
        {"scope": scope, "after": after or "", "batch": max(1, batch)},
    )
    return [(row[0], entity_from_row(row, row[len(ENTITY_FIELDS)])) for row in rows]


# ----------------------------------------------------------------- merges
async def list_merges(conn: Connection, scope: str, entity_id: str | None) -> list[Merge]:
    """Recorded resolution decisions, newest first."""
    where = " WHERE g.entity_id = $entity" if entity_id is not None else ""
    rows = await conn.read(
        f"MATCH (g:LgMerge {{scope: $scope}}){where} RETURN {columns(MERGE_FIELDS, 'g')} "
        "ORDER BY g.created_at DESC, g.ord DESC",
        {"scope": scope, "entity": entity_id},
    )
    return [CODEC.merge(row) for row in rows]


# ----------------------------------------------------------------- counts
async def stats(conn: Connection, scope: str, version: int) -> StoreStats:
    """Counts for a scope."""
    params = {"scope": scope}
    out = StoreStats(schema_version=version)
    out.documents = await _count(conn, "MATCH (d:LgDocument {scope: $scope})", params)
    out.chunks = await _count(conn, "MATCH (d:LgChunk {scope: $scope})", params)
    out.mentions = await _count(
        conn, "MATCH (c:LgChunk {scope: $scope})-[d:LG_MENTIONS]->()", params
    )
    for kind, total in await conn.read(
        "MATCH (e:LgEntity {scope: $scope}) RETURN e.type, count(e)", params
    ):
        out.entity_types[kind] = int(total)
    for kind, total in await conn.read(
        "MATCH ()-[r:LG_REL {scope: $scope}]->() RETURN r.type, count(r)", params
    ):
        out.relation_types[kind] = int(total)
    out.entities = sum(out.entity_types.values())
    out.relations = sum(out.relation_types.values())
    out.entity_types = dict(sorted(out.entity_types.items()))
    out.relation_types = dict(sorted(out.relation_types.items()))
    return out


async def _count(conn: Connection, match: str, params: dict[str, Any]) -> int:
    rows = await conn.read(f"{match} RETURN count(d)", params)
    return int(rows[0][0]) if rows else 0

"""Relation queries, breadth-first expansion (one Cypher query, see :mod:`.expand`), snapshots.

As in the SQL stores, relations with ``expired_at`` set are skipped by the graph queries
(``entity_relations``, ``relations_among``, ``expand``, ``graph_arrays``) and still returned
by ``get_relations`` and ``iter_relations``; relation types from callers are compared as
parameters (``r.type IN $types``), never placed in the query text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from loregraph.models import GraphArrays, Relation, Subgraph
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.expand import expand_once
from loregraph.store.cypher.records import evidence_from_row, relation_from_row, relation_returning
from loregraph.store.rows import iso

REL_RETURN = relation_returning()


def filters(
    types: Sequence[str] | None, at: datetime | None = None, min_weight: float = 0.0
) -> tuple[str, dict[str, Any]]:
    """Conditions on relation ``r`` (each starting with `` AND``) and their parameters."""
    text = " AND r.expired_at IS NULL"
    params: dict[str, Any] = {}
    if types is not None:
        text += " AND r.type IN $types"
        params["types"] = list(types)
    if at is not None:
        text += " AND (r.valid_at IS NULL OR r.valid_at <= $at)"
        text += " AND (r.invalid_at IS NULL OR r.invalid_at > $at)"
        params["at"] = iso(at)
    if min_weight > 0:
        text += " AND r.weight >= $min_weight"
        params["min_weight"] = float(min_weight)
    return text, params


async def attach_evidence(conn: Connection, relations: list[Relation]) -> list[Relation]:
    """Load each relation's evidence (in the order it was written)."""
    if not relations:
        return relations
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (v:LgEvidence {relation_id: i}) "
        "RETURN i, v.chunk_id, v.sentence, v.char_start, v.char_end "
        "ORDER BY i, v.ord",
        {"ids": list({r.id for r in relations})},
    )
    by_id: dict[str, list[Any]] = {}
    for row in rows:
        by_id.setdefault(row[0], []).append(evidence_from_row(row[1:]))
    for relation in relations:
        relation.evidence = [ev for ev in by_id.get(relation.id, []) if ev.chunk_id]
    return relations


async def get_relations(conn: Connection, relation_ids: Sequence[str]) -> list[Relation]:
    """Relations by id in the order asked (missing skipped), with evidence."""
    rows = await conn.read(
        f"UNWIND $ids AS i MATCH (a:LgEntity)-[r:LG_REL {{id: i}}]->(b:LgEntity) "
        f"RETURN {REL_RETURN}",
        {"ids": list(dict.fromkeys(relation_ids))},
    )
    found = {row[0]: relation_from_row(row) for row in rows}
    return await attach_evidence(
        conn, [found[i] for i in dict.fromkeys(relation_ids) if i in found]
    )


async def entity_relations(
    conn: Connection,
    entity_id: str,
    direction: str,
    types: Sequence[str] | None,
    at: datetime | None,
    limit: int | None,
) -> list[Relation]:
    """An entity's live relations, heaviest first, with evidence."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
    where, params = filters(types, at)
    patterns = []
    if direction in ("out", "both"):
        patterns.append("(a:LgEntity {id: $id})-[r:LG_REL]->(b:LgEntity)")
    if direction in ("in", "both"):
        patterns.append("(a:LgEntity)-[r:LG_REL]->(b:LgEntity {id: $id})")
    text = " UNION ".join(
        f"MATCH {pattern} WHERE true{where} RETURN {REL_RETURN}" for pattern in patterns
    )
    found = {
        row[0]: relation_from_row(row) for row in await conn.read(text, {"id": entity_id, **params})
    }
    ordered = sorted(found.values(), key=lambda r: (-r.weight, r.id))
    if limit is not None:
        ordered = ordered[: max(0, limit)]
    return await attach_evidence(conn, ordered)


async def relations_among(
    conn: Connection,
    entity_ids: Sequence[str],
    types: Sequence[str] | None = None,
    min_weight: float = 0.0,
) -> list[Relation]:
    """Live relations with both ends in ``entity_ids``, heaviest first, without evidence."""
    if not entity_ids:
        return []
    where, params = filters(types, None, min_weight)
    rows = await conn.read(
        # WITH: match from the source by id; a WHERE on b.id would start from b (see .expand)
        "UNWIND $ids AS i MATCH (a:LgEntity {id: i})-[r:LG_REL]->(b:LgEntity) "
        f"WITH a, r, b WHERE b.id IN $ids{where} RETURN {REL_RETURN} ORDER BY r.weight DESC, r.id",
        {"ids": list(dict.fromkeys(entity_ids)), **params},
    )
    return [relation_from_row(row) for row in rows]


async def expand(
    conn: Connection,
    scope: str,
    seed_ids: Sequence[str],
    depth: int,
    per_node: int,
    max_entities: int,
    types: Sequence[str] | None,
    min_weight: float,
) -> Subgraph:
    """Breadth-first expansion (relations followed both ways, heaviest first), one query."""
    where, params = filters(types, None, min_weight)
    return await expand_once(conn, scope, seed_ids, depth, per_node, max_entities, where, params)


async def graph_arrays(conn: Connection, scope: str) -> GraphArrays:
    """Index arrays of the scope's entities, live relations, chunks and mentions."""
    params = {"scope": scope}
    entity_ids = [
        row[0]
        for row in await conn.read(
            "MATCH (e:LgEntity {scope: $scope}) RETURN e.id ORDER BY e.id", params
        )
    ]
    chunk_rows = await conn.read(
        "MATCH (c:LgChunk {scope: $scope}) RETURN c.id, c.document_id "
        "ORDER BY c.document_id, c.seq",
        params,
    )
    edges = await conn.read(
        "MATCH (a:LgEntity {scope: $scope})-[r:LG_REL]->(b:LgEntity) "
        "WHERE r.expired_at IS NULL RETURN a.id, b.id, r.weight",
        params,
    )
    mentions = await conn.read(
        "MATCH (c:LgChunk {scope: $scope})-[m:LG_MENTIONS]->(e:LgEntity) "
        "WITH e.id AS entity, c.id AS chunk, sum(m.count) AS n RETURN entity, chunk, n "
        "ORDER BY entity, chunk",
        params,
    )
    entity_index = {entity_id: i for i, entity_id in enumerate(entity_ids)}
    chunk_index = {row[0]: i for i, row in enumerate(chunk_rows)}
    mentions = [row for row in mentions if row[0] in entity_index and row[1] in chunk_index]
    return GraphArrays(
        entity_ids=entity_ids,
        edge_src=np.asarray([entity_index[row[0]] for row in edges], dtype=np.int64),
        edge_dst=np.asarray([entity_index[row[1]] for row in edges], dtype=np.int64),
        edge_weight=np.asarray([row[2] for row in edges], dtype=np.float32),
        chunk_ids=[row[0] for row in chunk_rows],
        chunk_document=[row[1] for row in chunk_rows],
        mention_entity=np.asarray([entity_index[row[0]] for row in mentions], dtype=np.int64),
        mention_chunk=np.asarray([chunk_index[row[1]] for row in mentions], dtype=np.int64),
        mention_count=np.asarray([row[2] for row in mentions], dtype=np.float32),
    )


async def relations_page(conn: Connection, scope: str, after: str, batch: int) -> list[Relation]:
    """The next ``batch`` relations (with evidence) with ids after ``after``, by id."""
    rows = await conn.read(
        "MATCH (a:LgEntity)-[r:LG_REL {scope: $scope}]->(b:LgEntity) WHERE r.id > $after "
        f"RETURN {REL_RETURN} ORDER BY r.id LIMIT $batch",
        {"scope": scope, "after": after, "batch": max(1, batch)},
    )
    return await attach_evidence(conn, [relation_from_row(row) for row in rows])


async def invalidate_relation(conn: Connection, relation_id: str, invalid_at: datetime) -> bool:
    """Set a relation's ``invalid_at`` and bump its scope's version; ``False``: unknown id."""
    rows = await conn.write(
        "MATCH ()-[r:LG_REL {id: $id}]->() SET r.invalid_at = $at "
        "WITH r MATCH (meta:LgMeta) SET meta.seq = meta.seq + 1 "
        "MERGE (s:LgScope {scope: r.scope}) SET s.version = coalesce(s.version, 0) + 1 "
        "RETURN r.scope",
        {"id": relation_id, "at": iso(invalid_at)},
    )
    return bool(rows)


async def graph_version(conn: Connection, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    rows = await conn.read("MATCH (s:LgScope {scope: $scope}) RETURN s.version", {"scope": scope})
    return int(rows[0][0]) if rows else 0

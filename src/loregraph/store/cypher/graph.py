"""Relation queries, breadth-first expansion (one Cypher query, see :mod:`.expand`), snapshots.

As in the SQL stores, relations with ``expired_at`` set are skipped by the graph queries
(``entity_relations``, ``relations_among``, ``expand``, ``graph_arrays``) and still returned
by ``get_relations`` and ``iter_relations``; relation types from callers are compared as
parameters (``r.type IN $types``), never placed in the query text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from loregraph.models import GraphArrays, Relation, utcnow
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.records import evidence_from_row, relation_from_row, relation_returning
from loregraph.store.hops import Hop
from loregraph.store.queries import Page, PageKey, RelationFilter
from loregraph.store.rows import in_order, iso

REL_RETURN = relation_returning()
RELATIONS_BY_ID = f"UNWIND $ids AS i MATCH (a)-[r:LG_REL {{id: i}}]->(b) RETURN {REL_RETURN}"
"""Relations by id. The ends have no labels: with them FalkorDB scans the entities instead
of using the relations' id index (about 1,000 times slower at 10k entities)."""


_CONDITIONS = {
    "live": "r.expired_at IS NULL",
    "types": "r.type IN $types",
    "at": "(r.valid_at IS NULL OR r.valid_at <= $at) "
    "AND (r.invalid_at IS NULL OR r.invalid_at > $at) "
    "AND (r.expired_at IS NULL OR r.invalid_at IS NOT NULL)",
    "min_weight": "r.weight >= $min_weight",
}
"""How this store spells each condition of a :class:`RelationFilter` on relation ``r``."""


def filters(live: RelationFilter) -> tuple[str, dict[str, Any]]:
    """The filter's conditions (each starting with `` AND``) and their parameters."""
    conditions, params = live.spelled(_CONDITIONS)
    return "".join(f" AND {condition}" for condition in conditions), params


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
    rows = await conn.read(RELATIONS_BY_ID, {"ids": list(dict.fromkeys(relation_ids))})
    found = {row[0]: relation_from_row(row) for row in rows}
    return await attach_evidence(conn, in_order(found, relation_ids))


async def relations_touching(conn: Connection, hop: Hop) -> list[Relation]:
    """Relations with either end among ``entity_ids`` (filtered; with ``reaching``, only
    those whose other end is among it), each once, with their ends, type and weight only
    (a hop of a path search reads no more)."""
    entity_ids, live, reaching = hop.entity_ids, hop.live, hop.reaching
    if not entity_ids or reaching == []:
        return []
    where, params = filters(live)
    ids = list(dict.fromkeys(entity_ids))
    out, back = "", ""
    if reaching is not None:
        # only the relations that meet the other side: far fewer rows to send and read
        out, back = " AND b.id IN $far", " AND a.id IN $far"
        params = {**params, "far": list(dict.fromkeys(reaching))}
    fields = "r.id, a.id, b.id, r.type, r.weight"
    rows = await conn.read(
        # each pattern starts from the node matched by id (see .expand on the planner)
        "UNWIND $ids AS i MATCH (a:LgEntity {id: i})-[r:LG_REL]->(b:LgEntity) "
        f"WHERE true{where}{out} RETURN {fields} "
        "UNION UNWIND $ids AS i MATCH (b:LgEntity {id: i})<-[r:LG_REL]-(a:LgEntity) "
        f"WHERE true{where}{back} RETURN {fields}",
        {"ids": ids, **params},
    )
    found = {row[0]: Relation(row[0], row[1], row[2], row[3], weight=float(row[4])) for row in rows}
    return sorted(found.values(), key=lambda r: (-r.weight, r.id))


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


async def relations_page(
    conn: Connection, scope: str, after: PageKey, batch: int
) -> Page[Relation]:
    """The next ``batch`` relations (with evidence) with ids after ``after``, by id."""
    rows = await conn.read(
        "MATCH (a:LgEntity)-[r:LG_REL {scope: $scope}]->(b:LgEntity) WHERE r.id > $after "
        f"RETURN {REL_RETURN} ORDER BY r.id LIMIT $batch",
        {"scope": scope, "after": after or "", "batch": max(1, batch)},
    )
    relations = await attach_evidence(conn, [relation_from_row(row) for row in rows])
    return [(relation.id, relation) for relation in relations]


async def invalidate_relation(
    conn: Connection, relation_id: str, invalid_at: str, by: str | None
) -> bool:
    """End a relation (``invalid_at``, ``expired_at`` now, ``invalidated_by``) and bump its
    scope's version; ``False``: unknown id."""
    rows = await conn.write(
        "MATCH ()-[r:LG_REL {id: $id}]->() "
        "SET r.invalid_at = $at, r.expired_at = $now, r.invalidated_by = $by "
        "WITH r MATCH (meta:LgMeta) SET meta.seq = meta.seq + 1 "
        "MERGE (s:LgScope {scope: r.scope}) SET s.version = coalesce(s.version, 0) + 1 "
        "RETURN r.scope",
        {"id": relation_id, "at": invalid_at, "now": iso(utcnow()), "by": by},
    )
    return bool(rows)


async def graph_version(conn: Connection, scope: str) -> int:
    """A scope's graph version (0 when it was never written)."""
    rows = await conn.read("MATCH (s:LgScope {scope: $scope}) RETURN s.version", {"scope": scope})
    return int(rows[0][0]) if rows else 0

"""Relation queries, breadth-first expansion and whole-graph snapshots.

Relations with ``expired_at`` set (retired by the graph, system time) are skipped by every
graph query here (``entity_relations``, ``relations_among``, ``expand``, ``graph_arrays``);
``get_relations`` and ``iter_relations`` still return them. Relations invalidated in world
time (``invalid_at`` set) are kept: they are history the graph still knows; only the ``at``
filter of ``entity_relations`` drops relations not valid at that time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from loregraph.models import GraphArrays, Relation, Subgraph
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.reads import get_entities
from loregraph.store.sqlite.rows import (
    IN_JSON,
    RELATION_COLUMNS,
    attach_evidence,
    iso,
    json_list,
    prefixed,
    relation_from_row,
)

_R_COLUMNS = prefixed(RELATION_COLUMNS, "r")


def _filters(
    types: Sequence[str] | None, at: datetime | None, min_weight: float | None = None
) -> tuple[str, list[object]]:
    """SQL conditions (each starting with AND) on relation ``r`` and their parameters."""
    sql = " AND r.expired_at IS NULL"
    params: list[object] = []
    if types is not None:
        sql += f" AND r.type IN {IN_JSON}"
        params.append(json_list(types))
    if at is not None:
        when = iso(at)
        sql += " AND (r.valid_at IS NULL OR r.valid_at <= ?)"
        sql += " AND (r.invalid_at IS NULL OR r.invalid_at > ?)"
        params.extend((when, when))
    if min_weight is not None and min_weight > 0:
        sql += " AND r.weight >= ?"
        params.append(min_weight)
    return sql, params


def get_relations(conn: sqlite3.Connection, relation_ids: Sequence[str]) -> list[Relation]:
    """Relations by id in the order asked (missing skipped), with evidence."""
    rows = conn.execute(
        f"SELECT {RELATION_COLUMNS} FROM relations WHERE id IN {IN_JSON}",
        (json_list(relation_ids),),
    ).fetchall()
    found = {row[0]: relation_from_row(row) for row in rows}
    ordered = [found[i] for i in dict.fromkeys(relation_ids) if i in found]
    return attach_evidence(conn, ordered)


def entity_relations(
    conn: sqlite3.Connection,
    entity_id: str,
    direction: str,
    types: Sequence[str] | None,
    at: datetime | None,
    limit: int | None,
) -> list[Relation]:
    """An entity's relations, heaviest first, with evidence (see module notes)."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
    where, params = _filters(types, at)
    parts: list[str] = []
    all_params: list[object] = []
    if direction in ("out", "both"):
        parts.append(f"SELECT {_R_COLUMNS}, r.pk FROM relations AS r WHERE r.source_id = ?{where}")
        all_params += [entity_id, *params]
    if direction in ("in", "both"):
        self_loops = " AND r.source_id != r.target_id" if direction == "both" else ""
        parts.append(
            f"SELECT {_R_COLUMNS}, r.pk FROM relations AS r "
            f"WHERE r.target_id = ?{self_loops}{where}"
        )
        all_params += [entity_id, *params]
    sql = " UNION ALL ".join(parts) + " ORDER BY weight DESC, pk"
    if limit is not None:
        sql += " LIMIT ?"
        all_params.append(limit)
    relations = [relation_from_row(row) for row in conn.execute(sql, all_params)]
    return attach_evidence(conn, relations)


def relations_among(
    conn: sqlite3.Connection,
    entity_ids: Sequence[str],
    types: Sequence[str] | None = None,
    min_weight: float | None = None,
) -> list[Relation]:
    """Relations with both ends in ``entity_ids``, heaviest first, without evidence."""
    if not entity_ids:
        return []
    where, params = _filters(types, None, min_weight)
    ids = json_list(entity_ids)
    rows = conn.execute(
        f"SELECT {_R_COLUMNS} FROM relations AS r WHERE r.source_id IN {IN_JSON} "
        f"AND r.target_id IN {IN_JSON}{where} ORDER BY r.weight DESC, r.pk",
        (ids, ids, *params),
    )
    return [relation_from_row(row) for row in rows]


def _neighbours(
    conn: sqlite3.Connection,
    frontier: list[str],
    per_node: int,
    where: str,
    params: list[object],
) -> dict[str, list[tuple[float, int, str]]]:
    """For each frontier node, its ``per_node`` heaviest (weight, pk, other end) edges."""
    edges: dict[str, list[tuple[float, int, str]]] = {node: [] for node in frontier}
    nodes = json_list(frontier)
    for near, far in (("source_id", "target_id"), ("target_id", "source_id")):
        sql = (
            f"SELECT f.value, o.{far}, o.weight, o.pk FROM json_each(?) AS f "
            "JOIN relations AS o ON o.pk IN ("
            f"SELECT r.pk FROM relations AS r WHERE r.{near} = f.value{where} "
            "ORDER BY r.weight DESC LIMIT ?)"
        )
        for node, other, weight, pk in conn.execute(sql, (nodes, *params, per_node)):
            edges[node].append((weight, pk, other))
    for found in edges.values():
        found.sort(key=lambda edge: (-edge[0], edge[1]))
        del found[per_node:]
    return edges


def expand(
    conn: sqlite3.Connection,
    scope: str,
    seed_ids: Sequence[str],
    depth: int,
    per_node: int,
    max_entities: int,
    types: Sequence[str] | None,
    min_weight: float,
) -> Subgraph:
    """Breadth-first expansion (relations followed both ways, heaviest first)."""
    with transaction(conn, write=False):
        found = {
            entity_id
            for (entity_id,) in conn.execute(
                f"SELECT id FROM entities WHERE scope = ? AND id IN {IN_JSON}",
                (scope, json_list(seed_ids)),
            )
        }
        hops: dict[str, int] = {}
        for seed in seed_ids:
            if seed in found and seed not in hops and len(hops) < max_entities:
                hops[seed] = 0
        where, params = _filters(types, None, min_weight)
        frontier = list(hops)
        for hop in range(1, depth + 1):
            if not frontier or len(hops) >= max_entities or per_node <= 0:
                break
            edges = _neighbours(conn, frontier, per_node, where, params)
            next_frontier: list[str] = []
            for node in frontier:
                for _, _, other in edges[node]:
                    if other in hops:
                        continue
                    if len(hops) >= max_entities:
                        break
                    hops[other] = hop
                    next_frontier.append(other)
            frontier = next_frontier
        entities = get_entities(conn, list(hops))
        relations = relations_among(conn, list(hops), types, min_weight)
    return Subgraph(
        entities={entity.id: entity for entity in entities}, relations=relations, hops=hops
    )


def graph_arrays(conn: sqlite3.Connection, scope: str) -> GraphArrays:
    """Index arrays of the scope's entities, live relations, chunks and mentions."""
    with transaction(conn, write=False):
        entity_rows = conn.execute(
            "SELECT pk, id FROM entities WHERE scope = ? ORDER BY pk", (scope,)
        ).fetchall()
        edge_rows = conn.execute(
            "SELECT s.pk, t.pk, r.weight FROM relations AS r "
            "JOIN entities AS s ON s.id = r.source_id JOIN entities AS t ON t.id = r.target_id "
            "WHERE r.scope = ? AND r.expired_at IS NULL",
            (scope,),
        ).fetchall()
        chunk_rows = conn.execute(
            "SELECT pk, id, document_id FROM chunks WHERE scope = ? ORDER BY pk", (scope,)
        ).fetchall()
        mention_rows = conn.execute(
            "SELECT e.pk, c.pk, sum(m.count) FROM chunks AS c "
            "JOIN mentions AS m ON m.chunk_id = c.id JOIN entities AS e ON e.id = m.entity_id "
            "WHERE c.scope = ? GROUP BY m.entity_id, m.chunk_id",
            (scope,),
        ).fetchall()
    entity_pks = np.fromiter((row[0] for row in entity_rows), np.int64, len(entity_rows))
    chunk_pks = np.fromiter((row[0] for row in chunk_rows), np.int64, len(chunk_rows))
    edges = np.array(edge_rows, dtype=np.float64).reshape(-1, 3)
    mentions = np.array(mention_rows, dtype=np.float64).reshape(-1, 3)
    return GraphArrays(
        entity_ids=[row[1] for row in entity_rows],
        edge_src=np.searchsorted(entity_pks, edges[:, 0].astype(np.int64)).astype(np.int64),
        edge_dst=np.searchsorted(entity_pks, edges[:, 1].astype(np.int64)).astype(np.int64),
        edge_weight=edges[:, 2].astype(np.float32),
        chunk_ids=[row[1] for row in chunk_rows],
        chunk_document=[row[2] for row in chunk_rows],
        mention_entity=np.searchsorted(entity_pks, mentions[:, 0].astype(np.int64)).astype(
            np.int64
        ),
        mention_chunk=np.searchsorted(chunk_pks, mentions[:, 1].astype(np.int64)).astype(np.int64),
        mention_count=mentions[:, 2].astype(np.float32),
    )

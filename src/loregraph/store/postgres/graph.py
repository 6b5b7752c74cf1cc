"""Relation queries, breadth-first expansion (one recursive CTE) and graph snapshots.

Relations with ``expired_at`` set (retired, system time) are skipped by the graph queries
here (``entity_relations``, ``relations_among``, ``expand``, ``graph_arrays``);
``get_relations`` and ``iter_relations`` still return them. Relations invalidated in world
time (``invalid_at``) are kept; only the ``at`` filter of ``entity_relations`` drops them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.models import GraphArrays, Relation
from loregraph.store.hops import Hop
from loregraph.store.postgres.connection import Conn
from loregraph.store.postgres.rows import (
    CODEC,
    attach_evidence,
    relations_by_pk,
    utc,
)
from loregraph.store.queries import RelationFilter, RelationQuery
from loregraph.store.rows import in_order
from loregraph.store.sqlreads import RELATION_SELECT

_CONDITIONS = {
    "live": "r.expired_at IS NULL",
    "types": "r.type = ANY(%(types)s)",
    "at": "(r.valid_at IS NULL OR r.valid_at <= %(at)s) "
    "AND (r.invalid_at IS NULL OR r.invalid_at > %(at)s) "
    "AND (r.expired_at IS NULL OR r.invalid_at IS NOT NULL)",
    "min_weight": "r.weight >= %(min_weight)s",
}
"""How this store spells each condition of a :class:`RelationFilter` on relation ``r``."""


def _filters(live: RelationFilter) -> tuple[str, dict[str, object]]:
    """The filter's conditions (each starting with AND) and their named parameters."""
    text = "".join(f" AND {_CONDITIONS[name]}" for name in live.conditions())
    types = None if live.types is None else list(live.types)
    at = None if live.at is None else utc(live.at)
    return text, {"types": types, "at": at, "min_weight": live.min_weight}


async def get_relations(conn: Conn, relation_ids: Sequence[str]) -> list[Relation]:
    """Relations by id in the order asked (missing skipped), with evidence."""
    cursor = await conn.execute(f"{RELATION_SELECT} WHERE r.id = ANY(%s)", (list(relation_ids),))
    found = {row[0]: CODEC.relation(row) for row in await cursor.fetchall()}
    ordered = in_order(found, relation_ids)
    return await attach_evidence(conn, ordered)


async def entity_relations(conn: Conn, query: RelationQuery) -> list[Relation]:
    """An entity's live relations, heaviest first, with evidence."""
    where, params = _filters(query.filter)
    parts: list[str] = []
    select = "SELECT r.pk, r.weight FROM relations AS r WHERE"
    if query.direction in ("out", "both"):
        parts.append(f"{select} r.source = e.pk{where}")
    if query.direction in ("in", "both"):
        loops = " AND r.source <> r.target" if query.direction == "both" else ""
        parts.append(f"{select} r.target = e.pk{loops}{where}")
    cursor = await conn.execute(
        "SELECT x.pk FROM entities AS e CROSS JOIN LATERAL ("
        + " UNION ALL ".join(parts)
        + ") AS x WHERE e.id = %(entity)s ORDER BY x.weight DESC, x.pk LIMIT %(limit)s",
        {**params, "entity": query.entity_id, "limit": query.limit},
    )
    pks = [pk for (pk,) in await cursor.fetchall()]
    return await attach_evidence(conn, await relations_by_pk(conn, pks))


async def _among(conn: Conn, entities: Sequence[int], live: RelationFilter) -> list[Relation]:
    """Live relations with both ends among the entity pks, heaviest first, no evidence."""
    if not entities:
        return []
    where, params = _filters(live)
    cursor = await conn.execute(
        "SELECT r.pk FROM relations AS r WHERE r.source = ANY(%(pks)s) "
        f"AND r.target = ANY(%(pks)s){where} ORDER BY r.weight DESC, r.pk",
        {**params, "pks": list(entities)},
    )
    return await relations_by_pk(conn, [pk for (pk,) in await cursor.fetchall()])


async def relations_touching(conn: Conn, hop: Hop) -> list[Relation]:
    """Relations with either end among ``entity_ids`` (filtered; with ``reaching``, only
    those whose other end is among it), each once, with their ends, type and weight only
    (a hop of a path search reads no more)."""
    entity_ids, live, reaching = hop.entity_ids, hop.live, hop.reaching
    where, params = _filters(live)
    far = ""
    if reaching is not None:
        far = (
            " WHERE (s.id = ANY(%(ids)s) AND t.id = ANY(%(far)s))"
            " OR (t.id = ANY(%(ids)s) AND s.id = ANY(%(far)s))"
        )
        params = {**params, "far": reaching}
    cursor = await conn.execute(
        "WITH wanted AS (SELECT pk FROM entities WHERE id = ANY(%(ids)s)), "
        f"hop AS (SELECT r.* FROM relations AS r JOIN wanted ON r.source = wanted.pk"
        f" WHERE true{where} UNION SELECT r.* FROM relations AS r JOIN wanted"
        f" ON r.target = wanted.pk WHERE true{where}) "
        "SELECT hop.id, s.id, t.id, hop.type, hop.weight FROM hop "
        f"JOIN entities AS s ON s.pk = hop.source JOIN entities AS t ON t.pk = hop.target{far} "
        "ORDER BY hop.weight DESC, hop.id",
        {**params, "ids": list(entity_ids)},
    )
    return [
        Relation(rid, source, target, kind, weight=float(weight))
        for rid, source, target, kind, weight in await cursor.fetchall()
    ]


async def relations_among(conn: Conn, entity_ids: Sequence[str]) -> list[Relation]:
    """Live relations with both ends in ``entity_ids``, heaviest first, without evidence."""
    cursor = await conn.execute("SELECT pk FROM entities WHERE id = ANY(%s)", (list(entity_ids),))
    return await _among(conn, [pk for (pk,) in await cursor.fetchall()], RelationFilter())


async def graph_arrays(conn: Conn, scope: str) -> GraphArrays:
    """Index arrays of the scope's entities, live relations, chunks and mentions."""
    cursor = await conn.execute(
        "SELECT pk, id FROM entities WHERE scope = %s ORDER BY pk", (scope,)
    )
    entity_rows = await cursor.fetchall()
    cursor = await conn.execute(
        "SELECT c.pk, c.id, d.id FROM chunks AS c JOIN documents AS d ON d.pk = c.document "
        "WHERE c.scope = %s ORDER BY c.pk",
        (scope,),
    )
    chunk_rows = await cursor.fetchall()
    cursor = await conn.execute(
        "SELECT source, target, weight FROM relations "
        "WHERE scope = %s AND expired_at IS NULL ORDER BY pk",
        (scope,),
    )
    edges = await cursor.fetchall()
    cursor = await conn.execute(
        "SELECT m.entity, m.chunk, sum(m.count) FROM mentions AS m "
        "JOIN chunks AS c ON c.pk = m.chunk WHERE c.scope = %s "
        "GROUP BY m.entity, m.chunk ORDER BY m.entity, m.chunk",
        (scope,),
    )
    mentions = await cursor.fetchall()
    entity_pks = _ints([row[0] for row in entity_rows])
    chunk_pks = _ints([row[0] for row in chunk_rows])
    return GraphArrays(
        entity_ids=[row[1] for row in entity_rows],
        edge_src=_positions(entity_pks, _ints([row[0] for row in edges])),
        edge_dst=_positions(entity_pks, _ints([row[1] for row in edges])),
        edge_weight=np.asarray([row[2] for row in edges], dtype=np.float32),
        chunk_ids=[row[1] for row in chunk_rows],
        chunk_document=[row[2] for row in chunk_rows],
        mention_entity=_positions(entity_pks, _ints([row[0] for row in mentions])),
        mention_chunk=_positions(chunk_pks, _ints([row[1] for row in mentions])),
        mention_count=np.asarray([float(row[2]) for row in mentions], dtype=np.float32),
    )


def _ints(values: list[Any]) -> npt.NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64)


def _positions(
    sorted_pks: npt.NDArray[np.int64], pks: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The index of each pk in ``sorted_pks`` (all pks are present)."""
    return np.searchsorted(sorted_pks, pks).astype(np.int64)

"""Relation queries, a hop from many entities, and whole-graph snapshots.

Relations with ``expired_at`` set (retired by the graph, system time) are skipped by every
graph query here (``entity_relations``, ``relations_among``, ``relations_touching``,
``graph_arrays``);
``get_relations`` and ``iter_relations`` still return them. Relations invalidated in world
time (``invalid_at`` set) are kept: they are history the graph still knows; only the ``at``
filter of ``entity_relations`` drops relations not valid at that time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from loregraph.models import GraphArrays, Relation
from loregraph.store.hops import Hop
from loregraph.store.queries import RelationFilter, RelationQuery
from loregraph.store.rows import in_order, iso_or_none
from loregraph.store.sqlite.db import transaction
from loregraph.store.sqlite.rows import (
    CODEC,
    IN_JSON,
    NO_LIMIT,
    attach_evidence,
    json_list,
)
from loregraph.store.sqlreads import RELATION_SELECT

_CONDITIONS = {
    "live": "r.expired_at IS NULL",
    "types": "r.type IN (SELECT value FROM json_each(:types))",
    "at": "(r.valid_at IS NULL OR r.valid_at <= :at) "
    "AND (r.invalid_at IS NULL OR r.invalid_at > :at) "
    "AND (r.expired_at IS NULL OR r.invalid_at IS NOT NULL)",
    "min_weight": "r.weight >= :min_weight",
}
"""How this store spells each condition of a :class:`RelationFilter` on relation ``r``."""


def _filters(live: RelationFilter) -> tuple[str, dict[str, object]]:
    """The filter's conditions (each starting with AND) and their named parameters."""
    text = "".join(f" AND {_CONDITIONS[name]}" for name in live.conditions())
    types = None if live.types is None else json_list(live.types)
    return text, {"types": types, "at": iso_or_none(live.at), "min_weight": live.min_weight}


def get_relations(conn: sqlite3.Connection, relation_ids: Sequence[str]) -> list[Relation]:
    """Relations by id in the order asked (missing skipped), with evidence."""
    rows = conn.execute(
        f"{RELATION_SELECT} WHERE r.id IN {IN_JSON}", (json_list(relation_ids),)
    ).fetchall()
    found = {row[0]: CODEC.relation(row) for row in rows}
    ordered = in_order(found, relation_ids)
    return attach_evidence(conn, ordered)


def entity_relations(conn: sqlite3.Connection, query: RelationQuery) -> list[Relation]:
    """An entity's relations, heaviest first, with evidence (see module notes)."""
    row = conn.execute("SELECT pk FROM entities WHERE id = ?", (query.entity_id,)).fetchone()
    if row is None:
        return []
    where, params = _filters(query.filter)
    parts: list[str] = []
    if query.direction in ("out", "both"):
        parts.append(f"SELECT r.pk, r.weight FROM relations AS r WHERE r.source = :pk{where}")
    if query.direction in ("in", "both"):
        loops = " AND r.source != r.target" if query.direction == "both" else ""
        parts.append(
            f"SELECT r.pk, r.weight FROM relations AS r WHERE r.target = :pk{loops}{where}"
        )
    sql = " UNION ALL ".join(parts) + " ORDER BY 2 DESC, 1 LIMIT :limit"
    limit = NO_LIMIT if query.limit is None else query.limit
    pks = [pk for pk, _ in conn.execute(sql, {**params, "pk": row[0], "limit": limit})]
    return attach_evidence(conn, _relations_by_pk(conn, pks))


def _relations_by_pk(conn: sqlite3.Connection, pks: Sequence[int]) -> list[Relation]:
    """Relations (no evidence) in the order of ``pks``."""
    rows = conn.execute(
        f"SELECT r.pk, {RELATION_SELECT[len('SELECT ') :]} WHERE r.pk IN {IN_JSON}",
        (json_list(pks),),
    ).fetchall()
    found = {row[0]: CODEC.relation(row[1:]) for row in rows}
    return [found[pk] for pk in pks if pk in found]


def _among(
    conn: sqlite3.Connection, entities: Sequence[int], live: RelationFilter
) -> list[Relation]:
    """Relations with both ends among the entity pks, heaviest first, without evidence."""
    if not entities:
        return []
    where, params = _filters(live)
    rows = conn.execute(
        "SELECT r.pk FROM relations AS r WHERE r.source IN (SELECT value FROM json_each(:pks)) "
        f"AND r.target IN (SELECT value FROM json_each(:pks)){where} "
        "ORDER BY r.weight DESC, r.pk",
        {**params, "pks": json_list(entities)},
    )
    return _relations_by_pk(conn, [pk for (pk,) in rows])


def relations_among(conn: sqlite3.Connection, entity_ids: Sequence[str]) -> list[Relation]:
    """Live relations with both ends in ``entity_ids``, heaviest first, without evidence."""
    pks = [
        pk
        for (pk,) in conn.execute(
            f"SELECT pk FROM entities WHERE id IN {IN_JSON}", (json_list(entity_ids),)
        )
    ]
    return _among(conn, pks, RelationFilter())


def relations_touching(conn: sqlite3.Connection, hop: Hop) -> list[Relation]:
    """Relations with either end among ``entity_ids`` (filtered; with ``reaching``, only
    those whose other end is among it), each once, heaviest first, without evidence: one
    query for a whole hop of an expansion or a path search."""
    entity_ids, live, reaching = hop.entity_ids, hop.live, hop.reaching
    where, params = _filters(live)
    near = "(SELECT pk FROM entities WHERE id IN (SELECT value FROM json_each(:near)))"
    far = "(SELECT pk FROM entities WHERE id IN (SELECT value FROM json_each(:far)))"
    out_far = "" if reaching is None else f" AND r.target IN {far}"
    in_far = "" if reaching is None else f" AND r.source IN {far}"
    sql = (
        f"SELECT r.pk, r.weight FROM relations AS r WHERE r.source IN {near}{out_far}{where} "
        f"UNION SELECT r.pk, r.weight FROM relations AS r WHERE r.target IN {near}{in_far}{where} "
        "ORDER BY 2 DESC, 1"
    )
    params |= {"near": json_list(entity_ids), "far": json_list(reaching or [])}
    with transaction(conn, write=False):
        pks = [pk for pk, _ in conn.execute(sql, params)]
        return _relations_by_pk(conn, pks)


def graph_arrays(conn: sqlite3.Connection, scope: str) -> GraphArrays:
    """Index arrays of the scope's entities, live relations, chunks and mentions.

    Numbers come back as ``group_concat`` text parsed by NumPy: at millions of rows that is
    several times faster than building one Python tuple per row.
    """
    with transaction(conn, write=False):
        entity_rows = conn.execute(
            "SELECT pk, id FROM entities NOT INDEXED WHERE scope = ? ORDER BY pk", (scope,)
        ).fetchall()
        chunk_rows = conn.execute(
            "SELECT pk, id, document_id FROM chunks WHERE scope = ? ORDER BY pk", (scope,)
        ).fetchall()
        source, target, weight = conn.execute(
            "SELECT group_concat(source), group_concat(target), group_concat(weight) "
            "FROM relations WHERE scope = ? AND expired_at IS NULL",
            (scope,),
        ).fetchone()
        m_entity, m_chunk, m_count = conn.execute(
            "SELECT group_concat(entity), group_concat(chunk), group_concat(count) FROM mentions"
        ).fetchone()
    entity_pks = np.fromiter((row[0] for row in entity_rows), np.int64, len(entity_rows))
    chunk_pks = np.fromiter((row[0] for row in chunk_rows), np.int64, len(chunk_rows))
    entities, chunks, counts = _mentions_in(
        entity_pks, chunk_pks, _numbers(m_entity), _numbers(m_chunk), _numbers(m_count)
    )
    return GraphArrays(
        entity_ids=[row[1] for row in entity_rows],
        edge_src=_positions(entity_pks, _numbers(source)),
        edge_dst=_positions(entity_pks, _numbers(target)),
        edge_weight=_numbers(weight, np.float32),
        chunk_ids=[row[1] for row in chunk_rows],
        chunk_document=[row[2] for row in chunk_rows],
        mention_entity=entities,
        mention_chunk=chunks,
        mention_count=counts.astype(np.float32),
    )


def _numbers(text: str | None, dtype: type[np.generic] = np.int64) -> npt.NDArray[Any]:
    """A comma-separated ``group_concat`` as an array (``NULL``: empty)."""
    if not text:
        return np.zeros(0, dtype=dtype)
    return np.fromstring(text, dtype=dtype, sep=",")


def _positions(
    sorted_pks: npt.NDArray[np.int64], pks: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The index of each pk in ``sorted_pks`` (all pks are present)."""
    return np.searchsorted(sorted_pks, pks).astype(np.int64)


def _mentions_in(
    entity_pks: npt.NDArray[np.int64],
    chunk_pks: npt.NDArray[np.int64],
    entity: npt.NDArray[np.int64],
    chunk: npt.NDArray[np.int64],
    count: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(entity index, chunk index, summed count) of the mention rows inside the scope."""
    inside = _members(chunk_pks, chunk) & _members(entity_pks, entity)
    e_index = _positions(entity_pks, entity[inside])
    c_index = _positions(chunk_pks, chunk[inside])
    pairs = e_index * max(len(chunk_pks), 1) + c_index
    unique, inverse = np.unique(pairs, return_inverse=True)
    sums = np.bincount(inverse, weights=count[inside], minlength=len(unique))
    width = max(len(chunk_pks), 1)
    return unique // width, unique % width, sums.astype(np.int64)


def _members(
    sorted_pks: npt.NDArray[np.int64], pks: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Which of ``pks`` are in ``sorted_pks``."""
    if len(sorted_pks) == 0:
        return np.zeros(len(pks), dtype=np.bool_)
    at = np.minimum(np.searchsorted(sorted_pks, pks), len(sorted_pks) - 1)
    return np.asarray(sorted_pks[at] == pks)

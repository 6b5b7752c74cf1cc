"""Breadth-first expansion in ONE Cypher statement (both FalkorDB and Neo4j).

The statement has one stage per hop (the number of stages is the only thing that varies in
its text; every value is a parameter). The state carried from stage to stage is one row:

* ``seen``: the entity ids reached so far, in the order a queue-based BFS visits them
  (the seeds in the order given, then each hop's new nodes);
* ``frontier``: the ids reached by the previous hop;
* ``counts``: ``size(seen)`` after the seeds and after each hop (the hop of every id).

A hop takes, for each frontier node in frontier order, its ``per_node`` heaviest
neighbours: the far ends of its live relations either way (self-loops ignored), by the
summed weight of the relations between the two (each counting at least ``$floor``)
descending, then by id; it drops the ids already seen (and repeats), and keeps the first
ones up to the entity cap: the rule of retrieval's in-memory expansion
(:mod:`loregraph.retrieve.expander`), so ``neighbors`` reaches the same entities. After the last hop
the same statement returns one row per entity reached (its position in ``seen``,
``counts``, its live outgoing relations whose target was reached, relation filters
applied, then its fields), so one round trip answers ``expand``.

Planner note: the relations among the reached ids are matched from their source node by id
(an index lookup), and the target is tested in an expression. Written as a ``MATCH ... WHERE
b.id IN $ids`` the planner of FalkorDB started from ``b`` and scanned hub nodes' incoming
relations, which cost hundreds of milliseconds on a 10k-entity graph. Rows are grouped per
entity, not carried with ``seen`` as a grouping key: FalkorDB copies list values per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loregraph.models import Subgraph
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.reads import ENTITY_RETURN
from loregraph.store.cypher.records import entity_from_row, relation_from_row, relation_returning

_REL_FIELDS = relation_returning(source="e")

MIN_WEIGHT = 1e-9
"""A relation counts at least this much towards its pair's weight (as in memory)."""

_SEEDS = (
    "UNWIND range(0, size($seeds) - 1) AS o WITH o, $seeds[o] AS s "
    "MATCH (e:LgEntity {id: s}) WHERE e.scope = $scope "
    "WITH o, e.id AS id ORDER BY o "
    "WITH collect(id)[0..$max] AS seen "
    "WITH seen, seen AS frontier, [size(seen)] AS counts "
)

_HOP = (
    "UNWIND CASE WHEN size(frontier) = 0 OR size(seen) >= $max THEN [null] "
    "ELSE range(0, size(frontier) - 1) END AS i "
    "WITH seen, counts, i, frontier[i] AS f "
    "OPTIONAL MATCH (n:LgEntity {id: f})-[r:LG_REL]-(m:LgEntity) WHERE m.id <> f{where} "
    "WITH seen, counts, i, m.id AS near, "
    "sum(CASE WHEN r.weight > $floor THEN r.weight ELSE $floor END) AS w "
    "ORDER BY i, w DESC, near "
    "WITH seen, counts, i, collect(near)[0..$per_node] AS ends "
    "WITH seen, counts, i, ends ORDER BY i "
    "WITH seen, counts, collect(ends) AS lists "
    "WITH seen, counts, reduce(acc = [], l IN lists | acc + l) AS flat "
    "WITH seen, counts, reduce(acc = [], x IN flat | "
    "CASE WHEN x IN seen OR x IN acc THEN acc ELSE acc + [x] END) AS fresh "
    "WITH seen, counts, fresh[0..(CASE WHEN $max > size(seen) THEN $max - size(seen) "
    "ELSE 0 END)] AS next "
    "WITH seen + next AS seen, next AS frontier, counts + [size(seen) + size(next)] AS counts "
)

_RESULT = (
    "UNWIND range(0, size(seen) - 1) AS k MATCH (e:LgEntity {{id: seen[k]}}) "
    "OPTIONAL MATCH (e)-[r:LG_REL]->(b:LgEntity) "
    "WITH k, counts, e, "
    "collect(CASE WHEN r IS NOT NULL AND b.id IN seen{where} THEN [{relation}] END) AS rels "
    "RETURN k, counts, rels, {entity}"
)


def expand_statement(depth: int, where: str) -> str:
    """The statement for ``depth`` hops; ``where`` is fixed filter text on ``r``."""
    hops = "".join(_HOP.replace("{where}", where) for _ in range(max(depth, 0)))
    result = _RESULT.format(entity=ENTITY_RETURN, relation=_REL_FIELDS, where=where)
    return _SEEDS + hops + result


async def expand_once(
    conn: Connection,
    scope: str,
    seed_ids: Sequence[str],
    depth: int,
    per_node: int,
    max_entities: int,
    where: str,
    params: dict[str, Any],
) -> Subgraph:
    """Run :func:`expand_statement` and build the subgraph (relations heaviest first)."""
    seeds = list(dict.fromkeys(seed_ids))
    if not seeds or max_entities <= 0:
        return Subgraph()
    if per_node <= 0:
        depth = 0
    rows = await conn.read(
        expand_statement(depth, where),
        {
            **params,
            "seeds": seeds,
            "scope": scope,
            "max": int(max_entities),
            "per_node": max(int(per_node), 0),
            "floor": MIN_WEIGHT,
        },
    )
    if not rows:
        return Subgraph()
    rows.sort(key=lambda row: int(row[0]))
    counts = rows[0][1]
    hops: dict[str, int] = {}
    hop = 0
    for row in rows:
        while hop < len(counts) and int(row[0]) >= counts[hop]:
            hop += 1
        hops.setdefault(row[3], hop)
    entities = {row[3]: entity_from_row(row[3:]) for row in rows}
    relations = sorted(
        (relation_from_row(rel) for row in rows for rel in row[2]), key=lambda r: (-r.weight, r.id)
    )
    return Subgraph(
        entities={i: entities[i] for i in hops if i in entities},
        relations=relations,
        hops={i: h for i, h in hops.items() if i in entities},
    )

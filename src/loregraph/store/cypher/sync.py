"""Mirroring entities and relations into a Cypher graph (the graph side of mirror mode).

The SQL store stays the source of truth; the graph holds ``(:LgEntity)`` nodes and
``[:LG_REL]`` edges only, for traversal. :func:`apply_sync` brings one set of entities up to
date in ONE statement (atomic, like every write here): removed entities go with their edges,
touched entities get their current fields, their edges that no longer exist go, and their
current relations are upserted by id. Types from data are properties, as everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.models import Entity, Relation
from loregraph.store.cypher.apply import sets
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.records import (
    ENTITY_PROPS,
    RELATION_PROPS,
    entity_props,
    relation_props,
)

_NEXT = "WITH count(*) AS _n "


async def graph_entity_ids(conn: Connection, scope: str) -> set[str]:
    """Ids of the scope's entity nodes in the graph."""
    rows = await conn.read("MATCH (e:LgEntity {scope: $scope}) RETURN e.id", {"scope": scope})
    return {row[0] for row in rows}


async def apply_sync(
    conn: Connection,
    scope: str,
    removed: Sequence[str],
    touched: Sequence[str],
    entities: Sequence[Entity],
    relations: Sequence[Relation],
) -> None:
    """Remove ``removed``; make ``touched`` entities and their edges equal to the given ones.

    ``entities`` holds every touched entity that still exists and every end of
    ``relations``; ``relations`` holds every live relation of the touched entities.
    """
    entity_props_but_id = ENTITY_PROPS.split()[1:]  # the id is what MERGE matches on
    stages = [
        "UNWIND $removed AS i MATCH (e:LgEntity {id: i}) DETACH DELETE e",
        "UNWIND $entities AS x MERGE (e:LgEntity {id: x.id}) " + sets("e", entity_props_but_id),
        "UNWIND $touched AS i MATCH (e:LgEntity {id: i})-[r:LG_REL]-() "
        "WHERE NOT r.id IN $relation_ids DELETE r",
        "UNWIND $relations AS x MATCH (a:LgEntity {id: x.source_id}) "
        "MATCH (b:LgEntity {id: x.target_id}) MERGE (a)-[r:LG_REL {id: x.id}]->(b) "
        + sets("r", RELATION_PROPS.split()[1:]),
        "MERGE (s:LgScope {scope: $scope}) SET s.version = coalesce(s.version, 0) + 1",
    ]
    query = (" " + _NEXT).join(stages) + " RETURN s.version"
    rows = [relation_props(r) for r in {r.id: r for r in relations}.values()]
    await conn.write(
        query,
        {
            "scope": scope,
            "removed": list(removed),
            "touched": list(touched),
            "entities": [entity_props(e) for e in entities],
            "relations": rows,
            "relation_ids": [row["id"] for row in rows],
        },
    )

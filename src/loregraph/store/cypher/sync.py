"""Mirroring entities and relations into a Cypher graph (the graph side of mirror mode).

The SQL store stays the source of truth; the graph holds ``(:LgEntity)`` nodes and
``[:LG_REL]`` edges only, for traversal. :func:`apply_sync` brings one set of entities up to
date in ONE statement (atomic, like every write here): removed entities go with their edges,
touched entities get their current fields, their edges that no longer exist go, and their
current relations are upserted by id. Types from data are properties, as everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loregraph.models import Entity, Relation
from loregraph.store.cypher.apply import sets
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.records import iso, iso_or_none, type_text

_NEXT = "WITH count(*) AS _n "
ENTITY_PROPS = [
    "id", "scope", "name", "name_key", "type", "description", "aliases", "alias_text",
    "mention_count", "salience", "confidence", "created_at", "updated_at",
]  # fmt: skip
RELATION_PROPS = [
    "id", "type", "type_text", "scope", "fact", "weight", "confidence", "valid_at",
    "invalid_at", "created_at", "expired_at",
]  # fmt: skip


def entity_row(entity: Entity) -> dict[str, Any]:
    """An entity's mirrored node properties."""
    from loregraph.models import name_key

    return {
        "id": entity.id,
        "scope": entity.scope,
        "name": entity.name,
        "name_key": name_key(entity.name),
        "type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "alias_text": " ".join(entity.aliases),
        "mention_count": entity.mention_count,
        "salience": float(entity.salience),
        "confidence": float(entity.confidence),
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
    }


def relation_row(relation: Relation) -> dict[str, Any]:
    """A relation's mirrored edge properties (plus its end ids)."""
    return {
        "id": relation.id,
        "source_id": relation.source_id,
        "target_id": relation.target_id,
        "type": relation.type,
        "type_text": type_text(relation.type),
        "scope": relation.scope,
        "fact": relation.fact,
        "weight": float(relation.weight),
        "confidence": float(relation.confidence),
        "valid_at": iso_or_none(relation.valid_at),
        "invalid_at": iso_or_none(relation.invalid_at),
        "created_at": iso(relation.created_at),
        "expired_at": iso_or_none(relation.expired_at),
    }


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
    stages = [
        "UNWIND $removed AS i MATCH (e:LgEntity {id: i}) DETACH DELETE e",
        "UNWIND $entities AS x MERGE (e:LgEntity {id: x.id}) " + sets("e", ENTITY_PROPS[1:]),
        "UNWIND $touched AS i MATCH (e:LgEntity {id: i})-[r:LG_REL]-() "
        "WHERE NOT r.id IN $relation_ids DELETE r",
        "UNWIND $relations AS x MATCH (a:LgEntity {id: x.source_id}) "
        "MATCH (b:LgEntity {id: x.target_id}) MERGE (a)-[r:LG_REL {id: x.id}]->(b) "
        + sets("r", RELATION_PROPS[1:]),
        "MERGE (s:LgScope {scope: $scope}) SET s.version = coalesce(s.version, 0) + 1",
    ]
    query = (" " + _NEXT).join(stages) + " RETURN s.version"
    rows = [relation_row(r) for r in {r.id: r for r in relations}.values()]
    await conn.write(
        query,
        {
            "scope": scope,
            "removed": list(removed),
            "touched": list(touched),
            "entities": [entity_row(e) for e in entities],
            "relations": rows,
            "relation_ids": [row["id"] for row in rows],
        },
    )

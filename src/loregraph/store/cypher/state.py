"""Reading what a write or delete needs to know before it plans its changes.

Every function here is one or two read statements; :mod:`.plan` combines what they return.
"Others" means: contributed by documents other than the one being written or deleted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from loregraph.store.cypher.connection import Connection
from loregraph.store.planning import StoredEntity


@dataclass(slots=True)
class OldDocument:
    """What the stored version of a document contributed."""

    scope: str
    chunk_ids: list[str] = field(default_factory=list)
    mentions: int = 0
    entities: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)


@dataclass(slots=True)
class EntityState:
    """A stored entity with the contributions of the other documents."""

    id: str
    key: str
    type: str
    salience: float
    confidence: float
    mention_sum: int = 0
    mention_rows: int = 0
    listed: bool = False
    descriptions: list[str] = field(default_factory=list)
    saliences: list[float | None] = field(default_factory=list)
    """The listing documents' own saliences (``None``: unknown, written before they were
    kept per document)."""
    confidences: list[float | None] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    """{alias key: smallest surface} over the other documents."""


@dataclass(slots=True)
class RelationState:
    """A stored relation with the evidence of the other documents."""

    id: str
    fact: str = ""
    valid_at: str | None = None
    invalid_at: str | None = None
    expired_at: str | None = None
    evidence: int = 0
    confidence: float = 0.0


async def meta_seq(conn: Connection) -> int:
    """The store's write sequence number (changes with every graph write)."""
    rows = await conn.read("MATCH (m:LgMeta) RETURN m.seq")
    return int(rows[0][0]) if rows else 0


async def old_document(conn: Connection, document_id: str) -> OldDocument | None:
    """What the stored document ``document_id`` contributed (``None``: not stored)."""
    rows = await conn.read("MATCH (d:LgDocument {id: $id}) RETURN d.scope", {"id": document_id})
    if not rows:
        return None
    old = OldDocument(scope=rows[0][0])
    params = {"id": document_id}
    for chunk_id, entity_id in await conn.read(
        "MATCH (c:LgChunk {document_id: $id}) OPTIONAL MATCH (c)-[:LG_MENTIONS]->(e:LgEntity) "
        "RETURN c.id, e.id",
        params,
    ):
        if chunk_id not in old.chunk_ids:
            old.chunk_ids.append(chunk_id)
        if entity_id is not None:
            old.mentions += 1
            old.entities.add(entity_id)
    rows = await conn.read("MATCH (k:LgContribution {document_id: $id}) RETURN k.entity_id", params)
    old.entities.update(row[0] for row in rows)
    rows = await conn.read(
        "MATCH (v:LgEvidence {document_id: $id}) RETURN DISTINCT v.relation_id", params
    )
    old.relations.update(row[0] for row in rows)
    return old


async def foreign_chunks(conn: Connection, document_id: str, chunk_ids: list[str]) -> list[str]:
    """Ids among ``chunk_ids`` that belong to another document."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (c:LgChunk {id: i}) WHERE c.document_id <> $doc RETURN c.id",
        {"ids": chunk_ids, "doc": document_id},
    )
    return [row[0] for row in rows]


async def stored_by_id(conn: Connection, ids: list[str]) -> dict[str, StoredEntity]:
    """Stored entities by id."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (e:LgEntity {id: i}) RETURN e.id, e.scope, e.name_key",
        {"ids": ids},
    )
    return {row[0]: StoredEntity(row[0], row[1], row[2]) for row in rows}


async def stored_by_key(conn: Connection, scope: str, keys: list[str]) -> dict[str, str]:
    """``{name key: entity id}`` for stored entities of ``scope`` with those canonical keys."""
    rows = await conn.read(
        "UNWIND $keys AS k MATCH (n:LgKey {key: k}) WHERE n.scope = $scope AND n.canonical = 1 "
        "WITH k, n "
        "MATCH (e:LgEntity {id: n.entity_id}) RETURN k, e.id",
        {"keys": keys, "scope": scope},
    )
    return {key: entity_id for key, entity_id in rows}


async def entity_states(
    conn: Connection, ids: list[str], document_id: str
) -> dict[str, EntityState]:
    """Stored entities with what the documents other than ``document_id`` give them."""
    params: dict[str, Any] = {"ids": ids, "doc": document_id}
    states = {
        row[0]: EntityState(row[0], row[1], row[2], float(row[3]), float(row[4]))
        for row in await conn.read(
            "UNWIND $ids AS i MATCH (e:LgEntity {id: i}) "
            "RETURN e.id, e.name_key, e.type, e.salience, e.confidence",
            params,
        )
    }
    for entity_id, total, count in await conn.read(
        "UNWIND $ids AS i MATCH (c:LgChunk)-[m:LG_MENTIONS]->(e:LgEntity {id: i}) "
        "WHERE c.document_id <> $doc RETURN i, sum(m.count), count(m)",
        params,
    ):
        if entity_id in states:
            states[entity_id].mention_sum = int(total)
            states[entity_id].mention_rows = int(count)
    for entity_id, listed, description, aliases, salience, confidence in await conn.read(
        "UNWIND $ids AS i MATCH (k:LgContribution {entity_id: i}) WHERE k.document_id <> $doc "
        "RETURN i, k.listed, k.description, k.aliases, k.salience, k.confidence",
        params,
    ):
        state = states.get(entity_id)
        if state is None:
            continue
        if listed:
            state.listed = True
            state.descriptions.append(description)
            state.saliences.append(None if salience is None else float(salience))
            state.confidences.append(None if confidence is None else float(confidence))
        for key, surface in json.loads(aliases).items():
            if key not in state.aliases or surface < state.aliases[key]:
                state.aliases[key] = surface
    return states


async def relations_by_key(
    conn: Connection, keys: list[tuple[str, str, str, str]]
) -> dict[tuple[str, str, str, str], RelationState]:
    """Stored relations by (source id, type, target id, statement); an edge written before
    relations had a statement has none (empty)."""
    rows = await conn.read(
        "UNWIND $keys AS t MATCH (a:LgEntity {id: t[0]})-[r:LG_REL]->(b:LgEntity {id: t[2]}) "
        "WHERE r.type = t[1] AND coalesce(r.statement, '') = t[3] "
        "RETURN t[0], t[1], t[2], t[3], r.id, r.fact, r.valid_at, r.invalid_at, r.expired_at",
        {"keys": [list(t) for t in keys]},
    )
    return {(row[0], row[1], row[2], row[3]): RelationState(*row[4:]) for row in rows}


async def other_evidence(
    conn: Connection, relation_ids: list[str], document_id: str
) -> dict[str, tuple[int, float]]:
    """``{relation id: (evidence count, max confidence)}`` from the other documents."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (v:LgEvidence {relation_id: i}) WHERE v.document_id <> $doc "
        "RETURN i, count(v), max(v.confidence)",
        {"ids": relation_ids, "doc": document_id},
    )
    return {row[0]: (int(row[1]), float(row[2])) for row in rows}


async def relations_of(conn: Connection, entity_ids: list[str]) -> set[str]:
    """Ids of the stored relations that start or end at any of the entities."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (e:LgEntity {id: i})-[r:LG_REL]-() RETURN DISTINCT r.id",
        {"ids": entity_ids},
    )
    return {row[0] for row in rows}


def merge_aliases(into: dict[str, str], more: dict[str, str]) -> dict[str, str]:
    """``{key: smallest surface}`` over both maps (a new dict)."""
    merged = dict(into)
    for key, surface in more.items():
        if key not in merged or surface < merged[key]:
            merged[key] = surface
    return merged

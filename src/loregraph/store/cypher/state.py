"""The planner's reads (:class:`~loregraph.store.planstate.WriteState`) in Cypher: each
method is one or two read statements."""

from __future__ import annotations

from datetime import datetime

from loregraph.models import Relation
from loregraph.store.cypher import provenance
from loregraph.store.cypher.connection import Connection
from loregraph.store.planning import StoredEntity
from loregraph.store.planstate import (
    ContributionRow,
    OldDocument,
    RelationKey,
    RelationState,
)
from loregraph.store.props import CODEC
from loregraph.store.provenance import RelationSource


class CypherWriteState:
    """:class:`~loregraph.store.planstate.WriteState` over one connection."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def meta_seq(self) -> int:
        rows = await self.conn.read("MATCH (m:LgMeta) RETURN m.seq")
        return int(rows[0][0]) if rows else 0

    async def old_document(self, document_id: str) -> OldDocument | None:
        read, params = self.conn.read, {"id": document_id}
        rows = await read("MATCH (d:LgDocument {id: $id}) RETURN d.scope", params)
        if not rows:
            return None
        old = OldDocument(scope=rows[0][0])
        for chunk_id, entity_id in await read(
            "MATCH (c:LgChunk {document_id: $id}) OPTIONAL MATCH (c)-[:LG_MENTIONS]->(e:LgEntity) "
            "RETURN c.id, e.id",
            params,
        ):
            if chunk_id not in old.chunk_ids:
                old.chunk_ids.append(chunk_id)
            if entity_id is not None:
                old.mentions += 1
                old.entities.add(entity_id)
        rows = await read("MATCH (k:LgContribution {document_id: $id}) RETURN k.entity_id", params)
        old.entities.update(row[0] for row in rows)
        rows = await read(
            "MATCH (v:LgEvidence {document_id: $id}) RETURN DISTINCT v.relation_id", params
        )
        old.relations.update(row[0] for row in rows)
        return old

    async def foreign_chunks(self, document_id: str, chunk_ids: list[str]) -> list[str]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (c:LgChunk {id: i}) WHERE c.document_id <> $doc RETURN c.id",
            {"ids": chunk_ids, "doc": document_id},
        )
        return [row[0] for row in rows]

    async def stored_by_id(self, ids: list[str]) -> dict[str, StoredEntity]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (e:LgEntity {id: i}) RETURN e.id, e.scope, e.name_key",
            {"ids": ids},
        )
        return {row[0]: StoredEntity(row[0], row[1], row[2]) for row in rows}

    async def stored_by_key(self, scope: str, keys: list[str]) -> dict[str, str]:
        rows = await self.conn.read(
            "UNWIND $keys AS k MATCH (n:LgKey {key: k}) WHERE n.scope = $scope "
            "AND n.canonical = 1 WITH k, n MATCH (e:LgEntity {id: n.entity_id}) RETURN k, e.id",
            {"keys": keys, "scope": scope},
        )
        return {key: entity_id for key, entity_id in rows}

    async def entity_rows(self, ids: list[str]) -> list[tuple[str, str, str, float, float]]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (e:LgEntity {id: i}) "
            "RETURN e.id, e.name_key, e.type, e.salience, e.confidence",
            {"ids": ids},
        )
        return [(row[0], row[1], row[2], float(row[3]), float(row[4])) for row in rows]

    async def other_mentions(self, ids: list[str], document_id: str) -> list[tuple[str, int, int]]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (c:LgChunk)-[m:LG_MENTIONS]->(e:LgEntity {id: i}) "
            "WHERE c.document_id <> $doc RETURN i, sum(m.count), count(m)",
            {"ids": ids, "doc": document_id},
        )
        return [(row[0], int(row[1]), int(row[2])) for row in rows]

    async def other_contributions(self, ids: list[str], document_id: str) -> list[ContributionRow]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (k:LgContribution {entity_id: i}) WHERE k.document_id <> $doc "
            "RETURN i, k.listed, k.description, k.aliases, k.salience, k.confidence",
            {"ids": ids, "doc": document_id},
        )
        return [(row[0], row[1], row[2], row[3], row[4], row[5]) for row in rows]

    async def relations_by_key(self, keys: list[RelationKey]) -> dict[RelationKey, RelationState]:
        rows = await self.conn.read(
            "UNWIND $keys AS t MATCH (a:LgEntity {id: t[0]})-[r:LG_REL]->(b:LgEntity {id: t[2]}) "
            "WHERE r.type = t[1] AND coalesce(r.statement, '') = t[3] "
            "RETURN t[0], t[1], t[2], t[3], r.id, r.fact, r.valid_at, r.invalid_at, r.expired_at",
            {"keys": [list(t) for t in keys]},
        )
        return {(row[0], row[1], row[2], row[3]): RelationState(*row[4:]) for row in rows}

    async def other_evidence(
        self, relation_ids: list[str], document_id: str
    ) -> dict[str, tuple[int, float]]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (v:LgEvidence {relation_id: i}) WHERE v.document_id <> $doc "
            "RETURN i, count(v), max(v.confidence)",
            {"ids": relation_ids, "doc": document_id},
        )
        return {row[0]: (int(row[1]), float(row[2])) for row in rows}

    async def relations_of(self, entity_ids: list[str]) -> set[str]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (e:LgEntity {id: i})-[r:LG_REL]-() RETURN DISTINCT r.id",
            {"ids": entity_ids},
        )
        return {row[0] for row in rows}

    async def relation_starts(self, relation_ids: list[str]) -> dict[str, Relation]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH ()-[r:LG_REL {id: i}]->() RETURN r.id, r.fact, r.valid_at",
            {"ids": relation_ids},
        )
        return {
            rid: Relation(rid, "", "", "", fact=fact or "", valid_at=CODEC.read_time_or_none(at))
            for rid, fact, at in rows
        }

    async def relation_sources(self, relation_ids: list[str]) -> dict[str, list[RelationSource]]:
        return await provenance.relation_sources(self.conn, relation_ids)

    async def document_times(self, document_ids: list[str]) -> dict[str, datetime | None]:
        rows = await self.conn.read(
            "UNWIND $ids AS i MATCH (d:LgDocument {id: i}) RETURN d.id, d.valid_at",
            {"ids": document_ids},
        )
        return {doc_id: CODEC.read_time_or_none(at) for doc_id, at in rows}

"""Reading a document back as the bundle that rebuilds it (see ``Store.read_bundle``)."""

from __future__ import annotations

import json

from loregraph.models import DocumentBundle, EntityWrite, Evidence, Mention, Relation
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.graph import REL_RETURN
from loregraph.store.cypher.reads import ENTITY_RETURN, get_document
from loregraph.store.cypher.records import (
    CHUNK_FIELDS,
    ENTITY_FIELDS,
    MERGE_FIELDS,
    chunk_from_row,
    entity_from_row,
    merge_from_row,
    relation_from_row,
    returning,
    to_vector,
)


async def read_bundle(conn: Connection, document_id: str) -> DocumentBundle | None:
    """A document and exactly what it contributed (``None``: no such document)."""
    document = await get_document(conn, document_id)
    if document is None:
        return None
    params = {"id": document_id}
    chunks = []
    for row in await conn.read(
        f"MATCH (c:LgChunk {{document_id: $id}}) RETURN {returning('c', CHUNK_FIELDS)}, "
        "c.embedding ORDER BY c.seq",
        params,
    ):
        chunk = chunk_from_row(row)
        chunk.embedding = to_vector(row[len(CHUNK_FIELDS)])
        chunks.append(chunk)
    entities = []
    for row in await conn.read(
        "MATCH (k:LgContribution {document_id: $id}) WHERE k.listed = 1 "
        f"MATCH (e:LgEntity {{id: k.entity_id}}) RETURN k.description, k.aliases, "
        f"{ENTITY_RETURN}, e.embedding ORDER BY e.id",
        params,
    ):
        entity = entity_from_row(row[2:], row[2 + len(ENTITY_FIELDS)])
        aliases: dict[str, str] = json.loads(row[1])
        entity.description = row[0]
        entity.aliases = [aliases[key] for key in sorted(aliases)]
        entities.append(EntityWrite(entity, row[0], entity.salience))
    mentions = [
        Mention(row[0], row[1], row[2], int(row[3]))
        for row in await conn.read(
            "MATCH (c:LgChunk {document_id: $id})-[m:LG_MENTIONS]->(e:LgEntity) "
            "RETURN e.id, c.id, m.surface, m.count, c.seq ORDER BY c.seq, e.id, m.surface",
            params,
        )
    ]
    relations: dict[str, Relation] = {}
    for row in await conn.read(
        "MATCH (v:LgEvidence {document_id: $id}) "
        "MATCH (a:LgEntity)-[r:LG_REL {id: v.relation_id}]->(b:LgEntity) "
        f"RETURN v.sentence, v.char_start, v.char_end, v.confidence, v.chunk_id, {REL_RETURN} "
        "ORDER BY v.ord",
        params,
    ):
        relation = relations.get(row[7])
        if relation is None:
            relation = relations[row[7]] = relation_from_row(row[5:])
            relation.confidence, relation.weight = float(row[3]), 0.0
        relation.confidence = max(relation.confidence, float(row[3]))
        relation.weight += 1
        relation.evidence.append(Evidence(row[4] or "", row[0], int(row[1]), int(row[2])))
    merges = [
        merge_from_row(row)
        for row in await conn.read(
            f"MATCH (g:LgMerge {{document_id: $id}}) RETURN {returning('g', MERGE_FIELDS)} "
            "ORDER BY g.ord",
            params,
        )
    ]
    return DocumentBundle(document, chunks, entities, mentions, list(relations.values()), merges)

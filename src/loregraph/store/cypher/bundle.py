"""Reading a document back as the bundle that rebuilds it (see ``Store.read_bundle``)."""

from __future__ import annotations

import json

from loregraph.models import DocumentBundle, Evidence, Mention
from loregraph.store.cypher.connection import Connection
from loregraph.store.cypher.graph import REL_RETURN
from loregraph.store.cypher.reads import ENTITY_RETURN, get_document
from loregraph.store.cypher.records import (
    CHUNK_FIELDS,
    entity_from_row,
    relation_from_row,
)
from loregraph.store.props import CODEC
from loregraph.store.rows import (
    ENTITY_FIELDS,
    MERGE_FIELDS,
    columns,
    listed_entity,
    supported_relations,
)


async def read_bundle(conn: Connection, document_id: str) -> DocumentBundle | None:
    """A document and exactly what it contributed (``None``: no such document)."""
    document = await get_document(conn, document_id)
    if document is None:
        return None
    params = {"id": document_id}
    chunks = [
        CODEC.chunk(row, row[len(CHUNK_FIELDS)])
        for row in await conn.read(
            f"MATCH (c:LgChunk {{document_id: $id}}) RETURN {columns(CHUNK_FIELDS, 'c')}, "
            "c.embedding ORDER BY c.seq",
            params,
        )
    ]
    entities = []
    for row in await conn.read(
        "MATCH (k:LgContribution {document_id: $id}) WHERE k.listed = 1 WITH k "
        "MATCH (e:LgEntity {id: k.entity_id}) RETURN k.description, k.aliases, k.salience, "
        f"k.confidence, {ENTITY_RETURN}, e.embedding ORDER BY e.id",
        params,
    ):
        aliases: dict[str, str] = json.loads(row[1])
        entity = entity_from_row(row[4:], row[4 + len(ENTITY_FIELDS)])
        surfaces = [aliases[key] for key in sorted(aliases)]
        entities.append(listed_entity(entity, row[0], surfaces, row[2], row[3]))
    mentions = [
        Mention(row[0], row[1], row[2], int(row[3]))
        for row in await conn.read(
            "MATCH (c:LgChunk {document_id: $id})-[m:LG_MENTIONS]->(e:LgEntity) "
            "RETURN e.id, c.id, m.surface, m.count, c.seq ORDER BY c.seq, e.id, m.surface",
            params,
        )
    ]
    relations = supported_relations(
        (
            relation_from_row(row[5:]),
            Evidence(row[4] or "", row[0], int(row[1]), int(row[2])),
            float(row[3]),
        )
        for row in await conn.read(
            # WITH, and ends without labels: otherwise FalkorDB joins every relation with
            # the evidence instead of looking each one up in the relations' id index
            "MATCH (v:LgEvidence {document_id: $id}) WITH v "
            "MATCH (a)-[r:LG_REL {id: v.relation_id}]->(b) "
            "RETURN v.sentence, v.char_start, v.char_end, v.confidence, v.chunk_id, "
            f"{REL_RETURN} ORDER BY v.ord",
            params,
        )
    )
    merges = [
        CODEC.merge(row)
        for row in await conn.read(
            f"MATCH (g:LgMerge {{document_id: $id}}) RETURN {columns(MERGE_FIELDS, 'g')} "
            "ORDER BY g.ord",
            params,
        )
    ]
    return DocumentBundle(document, chunks, entities, mentions, relations, merges)

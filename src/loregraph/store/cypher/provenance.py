"""Per-document contributions of entities and relations (``Store.entity_sources`` and
``Store.relation_sources``) in a Cypher graph database."""

from __future__ import annotations

import json
from collections.abc import Sequence

from loregraph.store.cypher.connection import Connection
from loregraph.store.provenance import (
    AliasRow,
    EntitySource,
    ListingRow,
    RelationSource,
    entity_sources_from_rows,
    relation_sources_from_rows,
)


async def entity_sources(
    conn: Connection, entity_ids: Sequence[str]
) -> dict[str, list[EntitySource]]:
    """Entity id → what each document listing or mentioning it contributed."""
    params = {"ids": list(entity_ids)}
    listings: list[ListingRow] = []
    aliases: list[AliasRow] = []
    for (
        entity_id,
        document_id,
        listed,
        description,
        alias_json,
        salience,
        confidence,
    ) in await conn.read(
        "UNWIND $ids AS i MATCH (k:LgContribution {entity_id: i}) RETURN k.entity_id, "
        "k.document_id, k.listed, k.description, k.aliases, k.salience, k.confidence",
        params,
    ):
        if listed == 1:
            listings.append((entity_id, document_id, description or "", salience, confidence))
        for key, surface in json.loads(alias_json or "{}").items():
            aliases.append((entity_id, document_id, key, surface))
    mentions = [
        (row[0], row[1], row[2], int(row[3]))
        for row in await conn.read(
            "UNWIND $ids AS i MATCH (c:LgChunk)-[m:LG_MENTIONS]->(e:LgEntity {id: i}) "
            "RETURN e.id, c.document_id, m.surface, m.count",
            params,
        )
    ]
    return entity_sources_from_rows(listings, aliases, mentions)


async def relation_sources(
    conn: Connection, relation_ids: Sequence[str]
) -> dict[str, list[RelationSource]]:
    """Relation id → its evidence with the document of each piece, in written order."""
    rows = await conn.read(
        "UNWIND $ids AS i MATCH (v:LgEvidence {relation_id: i}) RETURN v.relation_id, "
        "v.document_id, v.chunk_id, v.sentence, v.char_start, v.char_end, v.confidence "
        "ORDER BY v.ord",
        {"ids": list(relation_ids)},
    )
    return relation_sources_from_rows(rows)

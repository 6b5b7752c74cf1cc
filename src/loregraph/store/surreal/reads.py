"""Reading documents, chunks, entities, merges, counts and a document's bundle back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from loregraph import models
from loregraph.store.planned import Opened
from loregraph.store.props import CODEC
from loregraph.store.provenance import AliasRow, EntitySource, ListingRow, entity_sources_from_rows
from loregraph.store.queries import DocumentQuery, EntityListing, Page, PageKey
from loregraph.store.rows import MERGE_FIELDS, in_order, listed_entity, supported_relations
from loregraph.store.surreal import records
from loregraph.store.surreal.connection import SurrealConnection
from loregraph.store.surreal.records import CHUNK, DOCUMENT, ENTITY, RELATION, thing, things
from loregraph.store.surreal.schema import SchemaState

_ORDERS = {
    "mentions": "mention_count DESC, name, id",
    "name": "lower_name, id",
    "degree": "degree DESC, mention_count DESC, name, id",
}
_MERGE = ", ".join(MERGE_FIELDS)


def _window(limit: int | None, offset: int) -> str:
    tail = f" START {max(0, int(offset))}"
    return (f" LIMIT {max(0, int(limit))}" if limit is not None else "") + tail


def _type(row: dict[str, Any]) -> str:
    return str(row["type"])


class SurrealReads(Opened[SurrealConnection, SchemaState]):
    """The store's reads of documents, chunks, entities, merges, counts and bundles."""

    async def get_document(self, document_id: str) -> models.Document | None:
        found = await self._conn().rows(
            f"SELECT {DOCUMENT} FROM $d", {"d": thing("document", document_id)}
        )
        return records.document(found[0]) if found else None

    async def _documents(self, query: DocumentQuery) -> list[models.Document]:
        where = "".join(f" AND {name} = ${name}" for name in query.criteria)
        order = " DESC" if query.newest_first else ""
        found = await self._conn().rows(
            f"SELECT {DOCUMENT} FROM document WHERE scope = $scope{where} "
            f"ORDER BY created_at{order}, id{order}" + _window(query.limit, query.offset),
            {"scope": query.scope, **query.criteria},
        )
        return [records.document(row) for row in found]

    async def scopes(self) -> list[str]:
        found = await self._conn().rows("SELECT scope FROM document GROUP BY scope")
        return sorted(row["scope"] for row in found)

    async def get_chunks(self, chunk_ids: Sequence[str]) -> list[models.Chunk]:
        found = await self._conn().rows(
            f"SELECT {CHUNK} FROM $ids", {"ids": things("chunk", chunk_ids)}
        )
        return in_order({row["id"]: records.chunk(row) for row in found}, chunk_ids)

    async def get_entities(self, entity_ids: Sequence[str]) -> list[models.Entity]:
        found = await self._conn().rows(
            f"SELECT {ENTITY} FROM $ids", {"ids": things("entity", entity_ids)}
        )
        return in_order({row["id"]: records.entity(row) for row in found}, entity_ids)

    async def find_entities_by_key(
        self, scope: str, keys: Sequence[str]
    ) -> dict[str, models.Entity]:
        found = await self._conn().rows(
            "SELECT key, canonical, entity_id FROM name_key WHERE key IN $keys AND scope = $scope",
            {"keys": list(dict.fromkeys(keys)), "scope": scope},
        )
        entities = {e.id: e for e in await self.get_entities([row["entity_id"] for row in found])}
        hits = sorted(
            (row for row in found if row["entity_id"] in entities),
            key=lambda r: (
                -r["canonical"],
                -entities[r["entity_id"]].mention_count,
                r["entity_id"],
            ),
        )
        result: dict[str, models.Entity] = {}
        for row in hits:
            result.setdefault(row["key"], entities[row["entity_id"]])
        return result

    async def entity_embeddings(self, entity_ids: Sequence[str]) -> dict[str, models.Vector]:
        found = await self._conn().rows(
            "SELECT record::id(id) AS id, embedding FROM $ids",
            {"ids": things("entity_vector", entity_ids)},
        )
        return {row["id"]: CODEC.read_vector(row["embedding"]) for row in found}

    async def _list_entities(self, listing: EntityListing) -> list[models.Entity]:
        where = " AND type = $type" if listing.entity_type is not None else ""
        extra = {
            "degree": ", count(<->relates_to) AS degree",
            "name": ", string::lowercase(name) AS lower_name",
        }
        found = await self._conn().rows(
            f"SELECT {ENTITY}{extra.get(listing.order, '')} FROM entity "
            f"WHERE scope = $scope{where} "
            f"ORDER BY {_ORDERS[listing.order]}" + _window(listing.limit, listing.offset),
            {"scope": listing.scope, "type": listing.entity_type},
        )
        return [records.entity(row) for row in found]

    async def _entities_page(self, scope: str, after: PageKey, batch: int) -> Page[models.Entity]:
        found = await self._conn().rows(
            f"SELECT {ENTITY} FROM entity WHERE scope = $scope AND record::id(id) > $after "
            "ORDER BY id LIMIT $batch",
            {"scope": scope, "after": after or "", "batch": max(1, batch)},
        )
        vectors = await self.entity_embeddings([row["id"] for row in found])
        return [(row["id"], records.entity(row, vectors.get(row["id"]))) for row in found]

    async def list_merges(self, scope: str, entity_id: str | None = None) -> list[models.Merge]:
        where = " AND entity_id = $entity" if entity_id is not None else ""
        found = await self._conn().rows(
            f"SELECT {_MERGE}, ord FROM merge WHERE scope = $scope{where} "
            "ORDER BY created_at DESC, ord DESC",
            {"scope": scope, "entity": entity_id},
        )
        return [CODEC.merge(records.values(row, MERGE_FIELDS)) for row in found]

    async def stats(self, scope: str) -> models.StoreStats:
        params = {"scope": scope}
        out = models.StoreStats(schema_version=self._state().version)
        counts = await self._conn().run(
            "SELECT count() AS n FROM document WHERE scope = $scope GROUP ALL; "
            "SELECT count() AS n FROM chunk WHERE scope = $scope GROUP ALL; "
            "SELECT count() AS n FROM mentions WHERE scope = $scope GROUP ALL; "
            "SELECT type, count() AS n FROM entity WHERE scope = $scope GROUP BY type; "
            "SELECT type, count() AS n FROM relates_to WHERE scope = $scope GROUP BY type;",
            params,
        )
        out.documents, out.chunks, out.mentions = (int(c[0]["n"]) if c else 0 for c in counts[:3])
        out.entity_types = {row["type"]: int(row["n"]) for row in sorted(counts[3], key=_type)}
        out.relation_types = {row["type"]: int(row["n"]) for row in sorted(counts[4], key=_type)}
        out.entities = sum(out.entity_types.values())
        out.relations = sum(out.relation_types.values())
        return out

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        found = await self._conn().run(
            "SELECT * FROM contribution WHERE entity_id IN $ids; "
            "SELECT record::id(out) AS e, document_id, surface, count FROM mentions "
            "WHERE out IN $things;",
            {"ids": list(entity_ids), "things": things("entity", entity_ids)},
        )
        listings: list[ListingRow] = []
        aliases: list[AliasRow] = []
        for k in found[0]:
            if k["listed"] == 1:
                listings.append(
                    (k["entity_id"], k["document_id"], k["description"] or "", k.get("salience"),
                     k.get("confidence"))
                )  # fmt: skip
            for key, surface in json.loads(k["aliases"] or "{}").items():
                aliases.append((k["entity_id"], k["document_id"], key, surface))
        mentions = [(m["e"], m["document_id"], m["surface"], int(m["count"])) for m in found[1]]
        return entity_sources_from_rows(listings, aliases, mentions)

    async def read_bundle(self, document_id: str) -> models.DocumentBundle | None:
        document = await self.get_document(document_id)
        if document is None:
            return None
        found = await self._conn().run(
            f"SELECT {CHUNK} FROM chunk WHERE document_id = $id ORDER BY seq; "
            "SELECT * FROM contribution WHERE document_id = $id AND listed = 1; "
            "SELECT record::id(out) AS e, record::id(in) AS c, surface, count, in.seq AS seq "
            "FROM mentions WHERE document_id = $id; "
            "SELECT * FROM evidence WHERE document_id = $id ORDER BY ord; "
            f"SELECT {_MERGE}, ord FROM merge WHERE document_id = $id ORDER BY ord; "
            "SELECT record::id(id) AS id, embedding FROM chunk_vector WHERE document_id = $id;",
            {"id": document_id},
        )
        embedded = {row["id"]: row["embedding"] for row in found[5]}
        chunks = [records.chunk(row, embedded.get(row["id"])) for row in found[0]]
        listed = {row["entity_id"]: row for row in found[1]}
        stored = await self._conn().rows(
            f"SELECT {ENTITY} FROM $ids", {"ids": things("entity", sorted(listed))}
        )
        vectors = await self.entity_embeddings(sorted(listed))
        entities = []
        for row in sorted(stored, key=lambda r: r["id"]):
            k = listed[row["id"]]
            alias_map: dict[str, str] = json.loads(k["aliases"])
            surfaces = [alias_map[key] for key in sorted(alias_map)]
            entity = records.entity(row, vectors.get(row["id"]))
            entities.append(
                listed_entity(
                    entity, k["description"], surfaces, k.get("salience"), k.get("confidence")
                )
            )
        mentions = [
            models.Mention(m["e"], m["c"], m["surface"], int(m["count"]))
            for m in sorted(found[2], key=lambda m: (m["seq"], m["e"], m["surface"]))
        ]
        evidence = found[3]
        edges = await self._conn().rows(
            f"SELECT {RELATION} FROM $ids",
            {"ids": things("relates_to", [v["relation_id"] for v in evidence])},
        )
        by_id = {row["id"]: row for row in edges}
        relations = supported_relations(
            (
                records.relation(by_id[v["relation_id"]]),
                models.Evidence(
                    v.get("chunk_id") or "", v["sentence"], v["char_start"], v["char_end"]
                ),
                float(v["confidence"]),
            )
            for v in evidence
            if v["relation_id"] in by_id
        )
        merges = [CODEC.merge(records.values(row, MERGE_FIELDS)) for row in found[4]]
        return models.DocumentBundle(document, chunks, entities, mentions, relations, merges)

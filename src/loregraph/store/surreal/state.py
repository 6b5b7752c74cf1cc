"""The planner's reads (:class:`~loregraph.store.planstate.WriteState`) in SurrealQL: each
method is one query over record ids or an indexed field; sums are taken here."""

from __future__ import annotations

from datetime import datetime

from loregraph.models import Relation
from loregraph.store.planning import StoredEntity
from loregraph.store.planstate import ContributionRow, OldDocument, RelationKey, RelationState
from loregraph.store.props import CODEC
from loregraph.store.provenance import RelationSource, relation_sources_from_rows
from loregraph.store.surreal.connection import SurrealConnection
from loregraph.store.surreal.records import thing, things

TOUCHING = "array::distinct(array::flatten((SELECT VALUE <->relates_to FROM $ids)))"
"""The relation edges of the entities ``$ids`` (either direction), each once."""


class SurrealWriteState:
    """:class:`~loregraph.store.planstate.WriteState` over one connection."""

    def __init__(self, conn: SurrealConnection) -> None:
        self.conn = conn

    async def meta_seq(self) -> int:
        return int(await self.conn.value("RETURN (SELECT VALUE seq FROM meta:meta)[0]") or 0)

    async def old_document(self, document_id: str) -> OldDocument | None:
        rows = self.conn.rows
        found = await rows("SELECT scope FROM $d", {"d": thing("document", document_id)})
        if not found:
            return None
        old = OldDocument(scope=found[0]["scope"])
        params = {"id": document_id}
        chunks = await rows(
            "SELECT record::id(id) AS id, seq FROM chunk WHERE document_id = $id", params
        )
        old.chunk_ids = [c["id"] for c in sorted(chunks, key=lambda c: c["seq"])]
        mentions = await rows(
            "SELECT record::id(out) AS e FROM mentions WHERE document_id = $id", params
        )
        old.mentions = len(mentions)
        old.entities = {m["e"] for m in mentions}
        listed = "SELECT VALUE entity_id FROM contribution WHERE document_id = $id"
        old.entities |= set(await rows(listed, params))
        supported = "SELECT VALUE relation_id FROM evidence WHERE document_id = $id"
        old.relations = set(await rows(supported, params))
        return old

    async def foreign_chunks(self, document_id: str, chunk_ids: list[str]) -> list[str]:
        found = await self.conn.rows(
            "SELECT record::id(id) AS id FROM $ids WHERE document_id != $doc",
            {"ids": things("chunk", chunk_ids), "doc": document_id},
        )
        return [row["id"] for row in found]

    async def stored_by_id(self, ids: list[str]) -> dict[str, StoredEntity]:
        found = await self.conn.rows(
            "SELECT record::id(id) AS id, scope, name_key FROM $ids", {"ids": things("entity", ids)}
        )
        return {r["id"]: StoredEntity(r["id"], r["scope"], r["name_key"]) for r in found}

    async def stored_by_key(self, scope: str, keys: list[str]) -> dict[str, str]:
        found = await self.conn.rows(
            "SELECT key, entity_id FROM name_key WHERE key IN $keys AND scope = $scope "
            "AND canonical = 1",
            {"keys": keys, "scope": scope},
        )
        return {row["key"]: row["entity_id"] for row in found}

    async def entity_rows(self, ids: list[str]) -> list[tuple[str, str, str, float, float]]:
        found = await self.conn.rows(
            "SELECT record::id(id) AS id, name_key, type, salience, confidence FROM $ids",
            {"ids": things("entity", ids)},
        )
        return [
            (r["id"], r["name_key"], r["type"], float(r["salience"]), float(r["confidence"]))
            for r in found
        ]

    async def other_mentions(self, ids: list[str], document_id: str) -> list[tuple[str, int, int]]:
        found = await self.conn.rows(
            "SELECT record::id(out) AS e, count AS n FROM mentions "
            "WHERE out IN $ids AND document_id != $doc",
            {"ids": things("entity", ids), "doc": document_id},
        )
        sums: dict[str, tuple[int, int]] = {}
        for row in found:
            total, rows = sums.get(row["e"], (0, 0))
            sums[row["e"]] = (total + int(row["n"]), rows + 1)
        return [(entity_id, total, rows) for entity_id, (total, rows) in sums.items()]

    async def other_contributions(self, ids: list[str], document_id: str) -> list[ContributionRow]:
        found = await self.conn.rows(
            "SELECT * FROM contribution WHERE entity_id IN $ids AND document_id != $doc",
            {"ids": ids, "doc": document_id},
        )
        return [
            (r["entity_id"], r["listed"], r["description"], r["aliases"], r.get("salience"),
             r.get("confidence"))
            for r in found
        ]  # fmt: skip

    async def relations_by_key(self, keys: list[RelationKey]) -> dict[RelationKey, RelationState]:
        if not keys:
            return {}
        found = await self.conn.rows(
            "SELECT record::id(id) AS id, record::id(in) AS s, record::id(out) AS t, type, "
            f"statement, fact, valid_at, invalid_at, expired_at FROM {TOUCHING} "
            "WHERE in IN $ids",
            {"ids": things("entity", [key[0] for key in keys])},
        )
        wanted = set(keys)
        out: dict[RelationKey, RelationState] = {}
        for r in found:
            key = (r["s"], r["type"], r["t"], r.get("statement") or "")
            if key in wanted:
                out[key] = RelationState(
                    r["id"], r["fact"], r.get("valid_at"), r.get("invalid_at"), r.get("expired_at")
                )
        return out

    async def other_evidence(
        self, relation_ids: list[str], document_id: str
    ) -> dict[str, tuple[int, float]]:
        found = await self.conn.rows(
            "SELECT relation_id, confidence FROM evidence "
            "WHERE relation_id IN $ids AND document_id != $doc",
            {"ids": relation_ids, "doc": document_id},
        )
        out: dict[str, tuple[int, float]] = {}
        for row in found:
            count, best = out.get(row["relation_id"], (0, 0.0))
            out[row["relation_id"]] = (count + 1, max(best, float(row["confidence"])))
        return out

    async def relations_of(self, entity_ids: list[str]) -> set[str]:
        if not entity_ids:
            return set()
        found = await self.conn.rows(
            f"SELECT record::id(id) AS id FROM {TOUCHING}", {"ids": things("entity", entity_ids)}
        )
        return {row["id"] for row in found}

    async def relation_starts(self, relation_ids: list[str]) -> dict[str, Relation]:
        found = await self.conn.rows(
            "SELECT record::id(id) AS id, fact, valid_at FROM $ids",
            {"ids": things("relates_to", relation_ids)},
        )
        return {
            r["id"]: Relation(
                r["id"], "", "", "", fact=r["fact"] or "",
                valid_at=CODEC.read_time_or_none(r.get("valid_at")),
            )
            for r in found
        }  # fmt: skip

    async def relation_sources(self, relation_ids: list[str]) -> dict[str, list[RelationSource]]:
        found = await self.conn.rows(
            "SELECT relation_id, document_id, chunk_id, sentence, char_start, char_end, "
            "confidence, ord FROM evidence WHERE relation_id IN $ids ORDER BY ord",
            {"ids": list(relation_ids)},
        )
        fields = ("relation_id", "document_id", "chunk_id", "sentence", "char_start", "char_end")
        return relation_sources_from_rows([*(r[f] for f in fields), r["confidence"]] for r in found)

    async def document_times(self, document_ids: list[str]) -> dict[str, datetime | None]:
        found = await self.conn.rows(
            "SELECT record::id(id) AS id, valid_at FROM $ids",
            {"ids": things("document", document_ids)},
        )
        return {r["id"]: CODEC.read_time_or_none(r.get("valid_at")) for r in found}

"""Relation queries, snapshots and edits in SurrealQL.

The filters of a relation query (time, types, weight) are conditions of the query itself.
As in the other stores, relations with ``expired_at`` set are skipped by the graph queries
and still returned by ``get_relations`` and ``iter_relations``. A hop reads the edges of
its frontier by graph traversal (``<->relates_to``), not by scanning the relation table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from loregraph.models import GraphArrays, Relation, utcnow
from loregraph.store.hops import Hop
from loregraph.store.planned import EntityEdit, Opened
from loregraph.store.queries import Page, PageKey, RelationFilter
from loregraph.store.rows import in_order, iso
from loregraph.store.surreal import records
from loregraph.store.surreal.connection import SurrealConnection
from loregraph.store.surreal.records import RELATION, thing, things
from loregraph.store.surreal.schema import SchemaState
from loregraph.store.surreal.state import TOUCHING

_CONDITIONS = {
    "live": "expired_at IS NONE",
    "types": "type IN $types",
    "at": "(valid_at IS NONE OR valid_at <= $at) AND (invalid_at IS NONE OR invalid_at > $at) "
    "AND (expired_at IS NONE OR invalid_at IS NOT NONE)",
    "min_weight": "weight >= $min_weight",
}
"""How this store spells each condition of a :class:`RelationFilter`."""


def filters(live: RelationFilter) -> tuple[str, dict[str, Any]]:
    """The filter's conditions (``true`` when none) and their parameters."""
    conditions, params = live.spelled(_CONDITIONS)
    return " AND ".join(["true", *conditions]), params


async def attach_evidence(conn: SurrealConnection, relations: list[Relation]) -> list[Relation]:
    """Load each relation's evidence (in the order it was written)."""
    if not relations:
        return relations
    found = await conn.rows(
        "SELECT relation_id, chunk_id, sentence, char_start, char_end, ord FROM evidence "
        "WHERE relation_id IN $ids ORDER BY ord",
        {"ids": [r.id for r in relations]},
    )
    by_id: dict[str, list[Any]] = {}
    for row in found:
        if row.get("chunk_id"):
            by_id.setdefault(row["relation_id"], []).append(records.evidence(row))
    for relation in relations:
        relation.evidence = by_id.get(relation.id, [])
    return relations


async def invalidate_relation(
    conn: SurrealConnection, relation_id: str, invalid_at: str, by: str | None
) -> bool:
    """End a relation and bump its scope's version; ``False``: unknown id."""
    found = await conn.run(
        "BEGIN TRANSACTION; "
        "LET $r = (UPDATE $id SET invalid_at = $at, expired_at = $now, invalidated_by = $by)[0]; "
        "IF $r != NONE { UPDATE meta:meta SET seq += 1; "
        "UPSERT type::record('scope_version', $r.scope) SET version = (version ?? 0) + 1; }; "
        "RETURN $r != NONE; COMMIT TRANSACTION;",
        {"id": thing("relates_to", relation_id), "at": invalid_at, "now": iso(utcnow()),
         "by": by},
    )  # fmt: skip
    return bool(found[-2])  # the last result is the COMMIT's


async def apply_edit(conn: SurrealConnection, edit: EntityEdit) -> None:
    """Set the entity's new fields and replace its name and alias key records."""
    await conn.run(
        "BEGIN TRANSACTION; LET $e = (UPDATE ONLY $id MERGE $changes); "
        "DELETE name_key WHERE entity_id = $key; "
        "FOR $k IN $keys { CREATE name_key CONTENT { entity_id: $key, scope: $e.scope, "
        "key: $k[0], canonical: $k[1] } }; "
        "UPSERT type::record('scope_version', $e.scope) SET version = (version ?? 0) + 1; "
        "COMMIT TRANSACTION;",
        {"id": thing("entity", edit.entity_id), "key": edit.entity_id, "changes": edit.changes,
         "keys": edit.keys},
    )  # fmt: skip


class SurrealGraph(Opened[SurrealConnection, SchemaState]):
    """The store's relation reads and graph snapshots."""

    async def get_relations(self, relation_ids: Sequence[str]) -> list[Relation]:
        found = await self._conn().rows(
            f"SELECT {RELATION} FROM $ids", {"ids": things("relates_to", relation_ids)}
        )
        by_id = {row["id"]: records.relation(row) for row in found}
        return await attach_evidence(self._conn(), in_order(by_id, relation_ids))

    async def _relations_touching(self, hop: Hop) -> list[Relation]:
        if not hop.entity_ids or hop.reaching == []:
            return []
        where, params = filters(hop.live)
        if hop.reaching is not None:
            where += " AND ((in IN $ids AND out IN $far) OR (out IN $ids AND in IN $far))"
            params["far"] = things("entity", hop.reaching)
        found = await self._conn().rows(
            "SELECT record::id(id) AS id, record::id(in) AS s, record::id(out) AS t, type, weight "
            f"FROM {TOUCHING} WHERE {where}",
            {"ids": things("entity", hop.entity_ids), **params},
        )
        relations = [
            Relation(r["id"], r["s"], r["t"], r["type"], weight=r["weight"]) for r in found
        ]
        return sorted(relations, key=lambda r: (-r.weight, r.id))

    async def graph_arrays(self, scope: str) -> GraphArrays:
        listed, chunks, edges, mentions = await self._conn().run(
            "SELECT VALUE record::id(id) FROM entity WHERE scope = $scope; "
            "SELECT record::id(id) AS id, document_id, seq FROM chunk WHERE scope = $scope; "
            "SELECT record::id(in) AS s, record::id(out) AS t, weight FROM relates_to "
            "WHERE scope = $scope AND expired_at IS NONE; "
            "SELECT record::id(out) AS e, record::id(in) AS c, count FROM mentions "
            "WHERE scope = $scope;",
            {"scope": scope},
        )
        entity_ids: list[str] = sorted(listed)
        chunks.sort(key=lambda c: (c["document_id"], c["seq"]))
        entity_index = {entity_id: i for i, entity_id in enumerate(entity_ids)}
        chunk_index = {row["id"]: i for i, row in enumerate(chunks)}
        counts: dict[tuple[str, str], float] = {}
        for m in mentions:
            if m["e"] in entity_index and m["c"] in chunk_index:
                counts[(m["e"], m["c"])] = counts.get((m["e"], m["c"]), 0.0) + m["count"]
        pairs = sorted(counts)
        return GraphArrays(
            entity_ids=entity_ids,
            edge_src=np.asarray([entity_index[e["s"]] for e in edges], dtype=np.int64),
            edge_dst=np.asarray([entity_index[e["t"]] for e in edges], dtype=np.int64),
            edge_weight=np.asarray([e["weight"] for e in edges], dtype=np.float32),
            chunk_ids=[row["id"] for row in chunks],
            chunk_document=[row["document_id"] for row in chunks],
            mention_entity=np.asarray([entity_index[e] for e, _ in pairs], dtype=np.int64),
            mention_chunk=np.asarray([chunk_index[c] for _, c in pairs], dtype=np.int64),
            mention_count=np.asarray([counts[pair] for pair in pairs], dtype=np.float32),
        )

    async def _relations_page(self, scope: str, after: PageKey, batch: int) -> Page[Relation]:
        found = await self._conn().rows(
            f"SELECT {RELATION} FROM relates_to WHERE scope = $scope AND record::id(id) > $after "
            "ORDER BY id LIMIT $batch",
            {"scope": scope, "after": after or "", "batch": max(1, batch)},
        )
        relations = await attach_evidence(self._conn(), [records.relation(row) for row in found])
        return [(relation.id, relation) for relation in relations]

    async def graph_version(self, scope: str) -> int:
        version = await self._conn().value(
            "RETURN (SELECT VALUE version FROM $v)[0]", {"v": thing("scope_version", scope)}
        )
        return int(version or 0)

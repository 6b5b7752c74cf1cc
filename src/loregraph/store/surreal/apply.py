"""Writing a :class:`~loregraph.store.plan.WritePlan` as one SurrealDB transaction.

The transaction first checks that the store's write sequence is still the one the plan
was made from (another writer may have committed in between) and throws
:data:`~.connection.CONFLICT` otherwise, which rolls everything back; the store then plans
again from fresh reads. Everything that can be invalid (references, scopes, dimensions)
is checked while planning, before anything is written. Only fixed text is assembled here;
all data travels as parameters.
"""

from __future__ import annotations

from typing import Any

from loregraph.store.plan import WritePlan
from loregraph.store.surreal.connection import CONFLICT
from loregraph.store.surreal.records import thing, things

_ENTITY_UPDATE = (
    "type", "description", "aliases", "alias_text", "mention_count", "salience",
    "confidence", "updated_at",
)  # fmt: skip
_PER_DOCUMENT = ("mentions", "evidence", "contribution", "merge")
_RELATION_UPDATE = ("weight", "confidence", "fact", "valid_at", "invalid_at", "expired_at")


def transaction(plan: WritePlan) -> tuple[str, dict[str, Any]]:
    """The SurrealQL and parameters that carry out ``plan`` (see the module notes)."""
    lines = [
        "BEGIN TRANSACTION",
        # (a record's field read as ``meta:meta.seq`` fails inside a 3.x transaction)
        "LET $now = (SELECT VALUE seq FROM meta:meta)[0]",
        "IF ($now ?? 0) != $seq { THROW $conflict }",
        "UPDATE meta:meta SET seq += 1, entity_dim = entity_dim ?? $entity_dim, "
        "chunk_dim = chunk_dim ?? $chunk_dim",
        *_deletions(plan),
        *_records(plan),
        *_relations(plan),
        "UPSERT type::record('scope_version', $scope) SET version = (version ?? 0) + 1",
        "COMMIT TRANSACTION",
    ]
    return ";\n".join(lines) + ";", _params(plan)


def _deletions(plan: WritePlan) -> list[str]:
    lines = []
    if plan.replace:
        # a record deleted and written again in one transaction is lost by the 3.2 engine
        # (UPSERT) or refused (CREATE): the document and the chunks it keeps are
        # overwritten in place instead, their mention edges deleted
        lines += [
            *(f"DELETE {t} WHERE document_id = $doc" for t in _PER_DOCUMENT),
            "DELETE chunk WHERE document_id = $doc AND record::id(id) NOT IN $chunk_ids",
            *(["DELETE $document_id"] if plan.document is None else []),
            # what the document ended holds again (its new version may end it anew)
            "UPDATE relates_to SET invalid_at = NONE, expired_at = NONE, invalidated_by = NONE "
            "WHERE invalidated_by = $doc",
        ]
    if plan.dead_relations:
        lines += ["DELETE evidence WHERE relation_id IN $dead_relations", "DELETE $dead_edges"]
    if plan.dead_entities:
        lines += [
            "DELETE contribution WHERE entity_id IN $dead_entities",
            "DELETE merge WHERE entity_id IN $dead_entities",
            "DELETE $dead_nodes",  # their relation and mention edges go with them
        ]
    if plan.key_owners:
        lines.append("DELETE name_key WHERE entity_id IN $key_owners")
    return lines


def _records(plan: WritePlan) -> list[str]:
    lines = []
    if plan.document is not None:
        lines.append("UPSERT $document_id CONTENT $document")
    if plan.chunks:
        lines.append("FOR $x IN $chunks { UPSERT type::record('chunk', $x.id) CONTENT $x.body }")
    if plan.new_entities:
        lines.append(
            "FOR $x IN $new_entities { CREATE type::record('entity', $x.id) CONTENT $x.body }"
        )
    if plan.entity_updates:
        lines.append(
            "FOR $x IN $entity_updates { UPDATE type::record('entity', $x.id) MERGE $x.body }"
        )
    for name, table in (("keys", "name_key"), ("contributions", "contribution")):
        if getattr(plan, name):
            lines.append(f"INSERT INTO {table} ${name}")
    if plan.mentions:
        lines.append(
            "FOR $x IN $mentions { RELATE (type::record('chunk', $x.chunk_id))->mentions->"
            "(type::record('entity', $x.entity_id)) CONTENT { surface: $x.surface, "
            "count: $x.count, document_id: $doc, scope: $scope } }"
        )
    return lines


def _relations(plan: WritePlan) -> list[str]:
    lines = []
    if plan.new_relations:
        lines.append("INSERT RELATION INTO relates_to $new_relations")
    if plan.relation_updates or plan.relation_weights:
        lines.append(
            "FOR $x IN $relation_updates { UPDATE type::record('relates_to', $x.id) MERGE $x.body }"
        )
    if plan.invalidations:
        lines.append(
            "FOR $x IN $invalidations { UPDATE type::record('relates_to', $x.id) SET "
            "invalid_at = $x.invalid_at, expired_at = $x.expired_at, invalidated_by = $x.by }"
        )
    if plan.evidence:
        lines.append("INSERT INTO evidence $evidence")
    if plan.merges:
        lines.append("INSERT INTO merge $merges")
    return lines


def _body(row: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in drop}


def _params(plan: WritePlan) -> dict[str, Any]:
    entity_updates = []
    for row in plan.entity_updates:
        body = {name: row[name] for name in _ENTITY_UPDATE}
        if row.get("embedding") is not None:
            body["embedding"] = row["embedding"]
        entity_updates.append({"id": row["id"], "body": body})
    relation_updates = [
        {"id": row["id"], "body": {name: row[name] for name in _RELATION_UPDATE}}
        for row in plan.relation_updates
    ]
    for row in plan.relation_weights:  # a fact and start derived again come together
        relation_updates.append({"id": row["id"], "body": _body(row, "id")})
    document = plan.document
    return {
        "seq": plan.seq,
        "conflict": CONFLICT,
        "doc": plan.document_id,
        "document_id": thing("document", plan.document_id),
        "scope": plan.scope,
        "entity_dim": plan.dims.get("entity"),
        "chunk_dim": plan.dims.get("chunk"),
        "document": None if document is None else _body(document, "id"),
        "chunks": [
            {"id": row["id"], "body": _body(row, "id") | {"kind": (document or {}).get("kind")}}
            for row in plan.chunks
        ],
        "chunk_ids": [row["id"] for row in plan.chunks],
        "dead_relations": plan.dead_relations,
        "dead_edges": things("relates_to", plan.dead_relations),
        "dead_entities": plan.dead_entities,
        "dead_nodes": things("entity", plan.dead_entities),
        "key_owners": plan.key_owners,
        "new_entities": [{"id": row["id"], "body": _body(row, "id")} for row in plan.new_entities],
        "entity_updates": entity_updates,
        "keys": plan.keys,
        "mentions": plan.mentions,
        "contributions": plan.contributions,
        "new_relations": [
            _body(row, "source_id", "target_id")
            | {
                "id": thing("relates_to", row["id"]),
                "in": thing("entity", row["source_id"]),
                "out": thing("entity", row["target_id"]),
            }
            for row in plan.new_relations
        ],
        "relation_updates": relation_updates,
        "invalidations": plan.invalidations,
        "evidence": plan.evidence,
        "merges": plan.merges,
    }

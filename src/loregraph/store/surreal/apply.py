"""Writing a :class:`~loregraph.store.plan.WritePlan` as one SurrealDB transaction.

The transaction first checks that the store's write sequence is still the one the plan
was made from (another writer may have committed in between) and throws
:data:`~.connection.CONFLICT` otherwise, which rolls everything back; the store then plans
again from fresh reads. Everything that can be invalid (references, scopes, dimensions)
is checked while planning, before anything is written. Only fixed text is assembled here;
all data travels as parameters.

The 3.2 engine loses a record that one transaction deletes and then writes again (UPSERT)
or refuses it (CREATE), so a replaced document and the chunks it keeps are overwritten in
place; only what the new version lacks is deleted.
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
_RELATION_UPDATE = ("weight", "confidence", "fact", "valid_at", "invalid_at", "expired_at")
_PER_ENTITY = ("contribution", "merge")
_PER_DOCUMENT = ("mentions", "evidence", "contribution", "merge")
_FOR = "FOR $x IN ${rows} {{ {verb} type::record('{table}', $x.id) {how} $x.body }}"

_HEAD = [
    "BEGIN TRANSACTION",
    # a record's field read by its id (meta:meta.seq) fails inside a 3.2 transaction
    "LET $now = (SELECT VALUE seq FROM meta:meta)[0]",
    "IF ($now ?? 0) != $seq { THROW $conflict }",
    "UPDATE meta:meta SET seq += 1, entity_dim = entity_dim ?? $entity_dim, "
    "chunk_dim = chunk_dim ?? $chunk_dim",
    "LET $before = count(SELECT VALUE id FROM chunk WHERE document_id = $doc)",
]
_TAIL = [
    "UPSERT type::record('scope_version', $scope) SET version = (version ?? 0) + 1, "
    "chunks = (chunks ?? 0) - $before + array::len($chunk_ids), "
    "entities = (entities ?? 0) + $entity_delta",
    "COMMIT TRANSACTION",
]


def transaction(plan: WritePlan) -> tuple[str, dict[str, Any]]:
    """The SurrealQL and parameters that carry out ``plan`` (see the module notes)."""
    params = _params(plan)
    lines = [*_HEAD]
    if plan.replace:
        lines += [f"DELETE {table} WHERE document_id = $doc" for table in _PER_DOCUMENT]
        lines += [
            "DELETE chunk WHERE document_id = $doc AND record::id(id) NOT IN $chunk_ids",
            "DELETE chunk_vector WHERE document_id = $doc AND record::id(id) NOT IN $vectored",
            # what the document ended holds again (its new version may end it anew)
            "UPDATE relates_to SET invalid_at = NONE, expired_at = NONE, invalidated_by = NONE "
            "WHERE invalidated_by = $doc",
        ]
        lines += ["DELETE $document_id"] if plan.document is None else []
    if plan.dead_relations:
        lines += ["DELETE evidence WHERE relation_id IN $dead_relations", "DELETE $dead_edges"]
    if plan.dead_entities:
        lines += [f"DELETE {t} WHERE entity_id IN $dead_entities" for t in _PER_ENTITY]
        lines += ["DELETE $dead_vectors", "DELETE $dead_nodes"]  # edges go with the nodes
    if plan.key_owners:
        lines.append("DELETE name_key WHERE entity_id IN $key_owners")
    if plan.document is not None:
        lines.append("UPSERT $document_id CONTENT $document")
    writes = (
        ("chunks", "UPSERT", "chunk", "CONTENT"),
        ("chunk_vectors", "UPSERT", "chunk_vector", "CONTENT"),
        ("new_entities", "UPSERT", "entity", "CONTENT"),
        ("entity_updates", "UPDATE", "entity", "MERGE"),
        ("entity_vectors", "UPSERT", "entity_vector", "CONTENT"),
        ("relation_updates", "UPDATE", "relates_to", "MERGE"),
    )
    for rows, verb, table, how in writes:
        if params[rows]:
            lines.append(_FOR.format(rows=rows, verb=verb, table=table, how=how))
    if plan.mentions:
        lines.append(
            "FOR $x IN $mentions { RELATE (type::record('chunk', $x.chunk_id))->mentions->"
            "(type::record('entity', $x.entity_id)) CONTENT { surface: $x.surface, "
            "count: $x.count, document_id: $doc, scope: $scope } }"
        )
    if plan.new_relations:
        lines.append("INSERT RELATION INTO relates_to $new_relations")
    if plan.invalidations:
        lines.append(_FOR.format(rows="ends", verb="UPDATE", table="relates_to", how="MERGE"))
    inserted = ("keys", "name_key"), ("contributions", "contribution"), ("evidence", "evidence")
    for rows, table in (*inserted, ("merges", "merge")):
        if params[rows]:
            lines.append(f"INSERT INTO {table} ${rows}")
    return ";\n".join([*lines, *_TAIL]) + ";", params


def _body(row: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in drop}


def _vectors(plan: WritePlan, rows: list[dict[str, Any]], **more: Any) -> list[dict[str, Any]]:
    """``{id, body}`` of the rows that bring an embedding, for a vector table."""
    return [
        {"id": row["id"], "body": {"embedding": row["embedding"], "scope": plan.scope, **more}}
        for row in rows
        if row.get("embedding") is not None
    ]


def _params(plan: WritePlan) -> dict[str, Any]:
    relation_updates = [
        {"id": row["id"], "body": {name: row[name] for name in _RELATION_UPDATE}}
        for row in plan.relation_updates
    ]
    for row in plan.relation_weights:  # a fact and start derived again come together
        relation_updates.append({"id": row["id"], "body": _body(row, "id")})
    kind = None if plan.document is None else plan.document["kind"]
    chunk_vectors = _vectors(plan, plan.chunks, document_id=plan.document_id)
    return {
        "seq": plan.seq,
        "conflict": CONFLICT,
        "doc": plan.document_id,
        "document_id": thing("document", plan.document_id),
        "scope": plan.scope,
        "entity_dim": plan.dims.get("entity"),
        "chunk_dim": plan.dims.get("chunk"),
        "document": None if plan.document is None else _body(plan.document, "id"),
        "chunks": [
            {"id": row["id"], "body": _body(row, "id", "embedding") | {"kind": kind}}
            for row in plan.chunks
        ],
        "chunk_ids": [row["id"] for row in plan.chunks],
        "chunk_vectors": chunk_vectors,
        "vectored": [row["id"] for row in chunk_vectors],
        "dead_relations": plan.dead_relations,
        "dead_edges": things("relates_to", plan.dead_relations),
        "dead_entities": plan.dead_entities,
        "dead_nodes": things("entity", plan.dead_entities),
        "dead_vectors": things("entity_vector", plan.dead_entities),
        "entity_delta": len(plan.new_entities) - len(plan.dead_entities),
        "key_owners": plan.key_owners,
        "new_entities": [
            {"id": row["id"], "body": _body(row, "id", "embedding")} for row in plan.new_entities
        ],
        "entity_updates": [
            {"id": row["id"], "body": {name: row[name] for name in _ENTITY_UPDATE}}
            for row in plan.entity_updates
        ],
        "entity_vectors": _vectors(plan, [*plan.new_entities, *plan.entity_updates]),
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
        "ends": [{"id": x["id"], "body": _body(x, "id")} for x in plan.invalidations],
        "evidence": plan.evidence,
        "merges": plan.merges,
    }

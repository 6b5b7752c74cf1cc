"""Writing a :class:`~loregraph.store.plan.WritePlan` as ONE Cypher statement.

Atomicity. FalkorDB has no multi-statement transactions, but it runs each query under the
graph's write lock and rolls a query that fails part-way back with its undo log; Neo4j runs
the statement in one write transaction. So a write is built as a single statement of
chained stages::

    MATCH (meta:LgMeta) WHERE meta.seq = $seq SET meta.seq = meta.seq + 1, meta.writer = $token
    WITH count(*) AS _n MATCH (meta:LgMeta) WHERE meta.writer = $token  <stage 1>
    WITH count(*) AS _n MATCH (meta:LgMeta) WHERE meta.writer = $token  <stage 2> ...
    RETURN meta.seq

``WITH count(*)`` collapses each stage back to one row (so an empty ``UNWIND`` does not end
the statement), and re-matching ``meta`` by this attempt's unique ``token`` makes every stage
a no-op when the first line found the sequence moved (another writer committed between this
writer's reads and its write): the statement then returns no row, changes nothing, and the
store plans again from fresh reads. Everything that can be invalid (references, scopes,
dimensions) is checked while planning, before anything is written.

Only fixed text is assembled here; all data is in the parameters.
"""

from __future__ import annotations

import uuid
from typing import Any

from loregraph.store.cypher.dialect import Dialect
from loregraph.store.plan import WritePlan
from loregraph.store.props import ENTITY_PROPS, RELATION_PROPS

_NEXT = "WITH count(*) AS _n MATCH (meta:LgMeta) WHERE meta.writer = $token "

CHUNK_PROPS = "id document_id scope seq char_start char_end text title token_count"
ENTITY_UPDATE_PROPS = (
    "type description aliases alias_text mention_count salience confidence updated_at"
)
RELATION_UPDATE_PROPS = "weight confidence fact valid_at invalid_at expired_at"
EVIDENCE_PROPS = "relation_id document_id chunk_id sentence char_start char_end confidence ord"
CONTRIBUTION_PROPS = "entity_id document_id listed description aliases salience confidence"
MERGE_PROPS = "scope entity_id surface rule score document_id created_at ord"
KEY_PROPS = "entity_id scope key canonical"


def sets(var: str, props: list[str] | str, source: str = "x") -> str:
    """``SET var.a = source.a, ...`` (property names are constants of this package)."""
    names = props.split() if isinstance(props, str) else props
    return "SET " + ", ".join(f"{var}.{name} = {source}.{name}" for name in names)


def write_statement(plan: WritePlan, dialect: Dialect) -> tuple[str, dict[str, Any]]:
    """The statement and parameters that carry out ``plan`` (see the module notes)."""
    stages = [
        "MATCH (meta:LgMeta) WHERE meta.seq = $seq "
        "SET meta.seq = meta.seq + 1, meta.writer = $token, "
        "meta.entity_dim = coalesce(meta.entity_dim, $entity_dim), "
        "meta.chunk_dim = coalesce(meta.chunk_dim, $chunk_dim)",
        *_deletions(plan),
        *_nodes(plan, dialect.vector("x.embedding")),
        *_edges(plan),
        "MERGE (s:LgScope {scope: $scope}) SET s.version = coalesce(s.version, 0) + 1",
    ]
    query = (" " + _NEXT).join(stages) + " " + _NEXT + "RETURN meta.seq"
    params = _params(plan)
    used = {name for name in params if f"${name}" in query}
    return query, {name: value for name, value in params.items() if name in used}


def _deletions(plan: WritePlan) -> list[str]:
    """Stages removing the document's old version and what no longer has support."""
    stages = []
    if plan.replace:
        stages += [
            "MATCH (c:LgChunk {document_id: $doc}) DETACH DELETE c",
            "MATCH (v:LgEvidence {document_id: $doc}) DELETE v",
            "MATCH (k:LgContribution {document_id: $doc}) DELETE k",
            "MATCH (g:LgMerge {document_id: $doc}) DELETE g",
            "MATCH (d:LgDocument {id: $doc}) DELETE d",
            # what the document ended holds again (its new version may end it anew)
            "MATCH ()-[r:LG_REL {invalidated_by: $doc}]->() "
            "SET r.invalid_at = null, r.expired_at = null, r.invalidated_by = null",
        ]
    if plan.dead_relations:
        stages += [
            "UNWIND $dead_relations AS i MATCH (v:LgEvidence {relation_id: i}) DELETE v",
            "UNWIND $dead_relations AS i MATCH ()-[r:LG_REL {id: i}]->() DELETE r",
        ]
    if plan.dead_entities:
        stages += [
            "UNWIND $dead_entities AS i MATCH (k:LgContribution {entity_id: i}) DELETE k",
            "UNWIND $dead_entities AS i MATCH (g:LgMerge {entity_id: i}) DELETE g",
            "UNWIND $dead_entities AS i MATCH (e:LgEntity {id: i}) DETACH DELETE e",
        ]
    if plan.key_owners:
        stages.append("UNWIND $key_owners AS i MATCH (k:LgKey {entity_id: i}) DELETE k")
    return stages


def _nodes(plan: WritePlan, vector: str) -> list[str]:
    """Stages writing the document, its chunks, entities, keys, mentions and contributions."""
    stages = []
    if plan.document is not None:
        stages.append(
            "WITH meta, $document AS x CREATE (d:LgDocument) " + sets("d", list(plan.document))
        )
    if plan.chunks:
        stages += [
            "UNWIND $chunks AS x CREATE (c:LgChunk) " + sets("c", CHUNK_PROPS),
            "UNWIND [x IN $chunks WHERE x.embedding IS NOT NULL] AS x "
            f"MATCH (c:LgChunk {{id: x.id}}) SET c.embedding = {vector}",
        ]
    if plan.new_entities:
        stages.append("UNWIND $new_entities AS x CREATE (e:LgEntity) " + sets("e", ENTITY_PROPS))
    if plan.entity_updates:
        stages.append(
            "UNWIND $entity_updates AS x MATCH (e:LgEntity {id: x.id}) "
            + sets("e", ENTITY_UPDATE_PROPS)
        )
    if _entity_vectors(plan):
        stages.append(
            "UNWIND [x IN $entity_vectors WHERE x.embedding IS NOT NULL] AS x "
            f"MATCH (e:LgEntity {{id: x.id}}) SET e.embedding = {vector}"
        )
    if plan.keys:
        stages.append("UNWIND $keys AS x CREATE (k:LgKey) " + sets("k", KEY_PROPS))
    if plan.mentions:
        stages.append(
            "UNWIND $mentions AS x MATCH (c:LgChunk {id: x.chunk_id}) "
            "MATCH (e:LgEntity {id: x.entity_id}) "
            "CREATE (c)-[m:LG_MENTIONS]->(e) SET m.surface = x.surface, m.count = x.count"
        )
    if plan.contributions:
        stages.append(
            "UNWIND $contributions AS x CREATE (k:LgContribution) " + sets("k", CONTRIBUTION_PROPS)
        )
    return stages


def _edges(plan: WritePlan) -> list[str]:
    """Stages writing relations, their weights and evidence, and the document's merges."""
    stages = []
    if plan.new_relations:
        stages.append(
            "UNWIND $new_relations AS x MATCH (a:LgEntity {id: x.source_id}) "
            "MATCH (b:LgEntity {id: x.target_id}) CREATE (a)-[r:LG_REL]->(b) "
            + sets("r", RELATION_PROPS)
        )
    if plan.relation_updates:
        stages.append(
            "UNWIND $relation_updates AS x MATCH ()-[r:LG_REL {id: x.id}]->() "
            + sets("r", RELATION_UPDATE_PROPS)
        )
    if plan.relation_weights:
        stages.append(
            "UNWIND $relation_weights AS x MATCH ()-[r:LG_REL {id: x.id}]->() "
            "SET r.weight = x.weight, r.confidence = x.confidence, "
            "r.fact = coalesce(x.fact, r.fact), "
            "r.valid_at = CASE WHEN x.fact IS NULL THEN r.valid_at ELSE x.valid_at END"
        )
    if plan.invalidations:
        stages.append(
            "UNWIND $invalidations AS x MATCH ()-[r:LG_REL {id: x.id}]->() "
            "SET r.invalid_at = x.invalid_at, r.expired_at = x.expired_at, "
            "r.invalidated_by = x.invalidated_by"
        )
    if plan.evidence:
        stages.append("UNWIND $evidence AS x CREATE (v:LgEvidence) " + sets("v", EVIDENCE_PROPS))
    if plan.merges:
        stages.append("UNWIND $merges AS x CREATE (g:LgMerge) " + sets("g", MERGE_PROPS))
    return stages


def _entity_vectors(plan: WritePlan) -> list[dict[str, Any]]:
    """``{id, embedding}`` of the written entities that bring an embedding."""
    return [
        {"id": row["id"], "embedding": row["embedding"]}
        for row in [*plan.new_entities, *plan.entity_updates]
        if row.get("embedding") is not None
    ]


def _params(plan: WritePlan) -> dict[str, Any]:
    """Every parameter a write statement may use."""
    return {
        "seq": plan.seq,
        "token": uuid.uuid4().hex,
        "doc": plan.document_id,
        "scope": plan.scope,
        "entity_dim": plan.dims.get("entity"),
        "chunk_dim": plan.dims.get("chunk"),
        "document": plan.document,
        "chunks": plan.chunks,
        "dead_relations": plan.dead_relations,
        "dead_entities": plan.dead_entities,
        "key_owners": plan.key_owners,
        "new_entities": [_without(row, "embedding") for row in plan.new_entities],
        "entity_updates": [_without(row, "embedding") for row in plan.entity_updates],
        "entity_vectors": _entity_vectors(plan),
        "keys": plan.keys,
        "mentions": plan.mentions,
        "contributions": plan.contributions,
        "new_relations": plan.new_relations,
        "relation_updates": plan.relation_updates,
        "relation_weights": plan.relation_weights,
        "evidence": plan.evidence,
        "merges": plan.merges,
        "invalidations": plan.invalidations,
    }


def _without(row: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != name}

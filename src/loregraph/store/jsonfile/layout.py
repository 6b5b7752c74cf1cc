"""The JSON memory file's layout, and writing a store's contents in it.

The file is one JSON object, its sections in this order::

    {
      "format": "loregraph memory file",
      "version": 5,
      "entities": [
        {"id": "ent_…", "name": "API server", "type": "Product",
         "description": "…", "aliases": ["api"], "tags": [], "properties": {},
         "mentions": 2, "salience": 0.4, "confidence": 1.0,
         "created_at": "2026-01-15T00:00:00+00:00", "updated_at": "…"}
      ],
      "relationships": [
        {"id": "rel_…", "source": "API server", "target": "Hono", "type": "DEPENDS_ON",
         "fact": "…", "properties": {}, "weight": 1.0, "confidence": 1.0,
         "valid_at": "…", "invalid_at": null, "created_at": "…", "expired_at": null,
         "invalidated_by": null}
      ],
      "documents": [
        {"id": "doc_…", "title": "…", "kind": "memory", …,
         "chunks": [{"id": "…", "seq": 0, "start": 0, "end": 42, "text": "…"}],
         "entities": [{"id": "ent_…", "description": "…", "aliases": ["…"],
                       "salience": 0.4, "confidence": 1.0}],
         "mentions": [{"entity": "ent_…", "chunk": "…", "surface": "…", "count": 1}],
         "relations": [{"id": "rel_…", "confidence": 1.0,
                        "evidence": [{"chunk": "…", "sentence": "…", "start": 0, "end": 42}]}],
         "merges": [{"entity": "ent_…", "surface": "…", "rule": "…", "score": 1.0,
                     "created_at": "…"}]}
      ],
      "merge_decisions": [{"kind": "join", "merge_id": "mrg_…", "entity": "ent_…", …}],
      "audit_log": [{"at": "…", "principal": "ann", "action": "merge", …}],
      "api_keys": [{"name": "ci", "key_hash": "…", "roles": {"default": "reader"}, …}],
      "grants": [{"principal": "ann", "scope": "family", "role": "reader"}],
      "scope_links": [{"scope": "family", "linked": "friends", "share": "all", …}],
      "vectors": {"file": "context.json.vectors.1a2b3c4d5e6f7a8b.npz"},
      "graph_versions": {"default": 12}
    }

``entities`` and ``relationships`` are the graph as a person or an agent reads it (a
relationship names its two ends), sorted by name. The lists inside a document keep the
store's order, which is the order in which the entities and relations were first written;
loading writes them in that order again, so a file written again after a small change
differs only where it changed.
``documents`` holds what the graph was built from and what each document contributed (its
chunks, its description, surface forms, salience and confidence of each entity it lists, its
mentions, its evidence, the merges it caused), which is what the store needs to delete
exactly what one document supported (an entity's ``salience`` and ``confidence`` are the
highest its documents give). A relationship's ``invalid_at`` and ``expired_at`` say when it stopped
holding and when the graph retired it, ``invalidated_by`` the memory or document that ended
it (forgetting that one opens it again), ``statement`` (only when set) the memory or
document whose statement it is (a dated fact of a functional type is one relationship per
statement, so that one that stops holding can hold again). ``merge_decisions``, ``audit_log``,
``api_keys``, ``grants`` and ``scope_links`` hold what belongs to no document (shapes in
:mod:`.records`). ``scope``
appears on a record only when it is not the default scope. ``tags`` and ``properties`` are
kept for the person or agent that writes them: the store does not use them and other
backends have no place for them.
Embeddings are kept in the sidecar file ``vectors`` names (see :mod:`.files`);
``graph_versions`` are the store's change counters (for caches), kept so that they never
repeat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loregraph.access import ApiKey, Grant, ScopeLink
from loregraph.models import (
    Chunk,
    DocumentBundle,
    Entity,
    Evidence,
    Merge,
    Relation,
    name_key,
)
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.jsonfile.fields import moment_text, scoped
from loregraph.store.jsonfile.records import (
    audit_record,
    decision_record,
    grant_record,
    key_record,
    link_record,
)

FORMAT = "loregraph memory file"
"""The value of the file's ``format`` member."""
VERSION = 5
"""The layout version this code writes; a file of a newer version is refused (an older
loregraph would drop the sections it does not know when it writes the file again).
Version 1: entities, relationships, documents, vectors, graph versions; 2 adds the
relationships' ``invalidated_by`` and the ``merge_decisions``, ``audit_log`` and
``api_keys`` sections (a version 1 file reads as having none); 3 adds the relationships'
``statement`` (written when not empty); 4 adds a document's own ``salience`` and
``confidence`` of each entity it lists (an older file's read as the entity's); 5 adds the
``grants`` and ``scope_links`` sections (an older file reads as having none)."""


@dataclass(slots=True)
class Extras:
    """What a person or an agent keeps on an entity or relationship and the store does not
    use: ``tags`` and free-form ``properties``, carried from one run to the next."""

    tags: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.tags or self.properties)


@dataclass(slots=True)
class Contents:
    """Everything a memory file holds, as models: entities and relations as stored (with
    their embeddings), documents as the bundles that rebuild them (oldest first), the
    extras of entities and relations by id, and what belongs to no document: merge
    decisions, the audit log (oldest first), API keys, grants and scope links."""

    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    bundles: list[DocumentBundle] = field(default_factory=list)
    extras: dict[str, Extras] = field(default_factory=dict)
    graph_versions: dict[str, int] = field(default_factory=dict)
    decisions: list[Decision] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    keys: list[ApiKey] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    links: list[ScopeLink] = field(default_factory=list)


def file_document(contents: Contents, vectors: str | None) -> dict[str, Any]:
    """The JSON object of the file (``vectors``: the sidecar's file name, if any)."""
    names = {entity.id: entity.name for entity in contents.entities}
    extras = contents.extras
    entities = sorted(contents.entities, key=lambda e: (e.scope, name_key(e.name), e.id))
    relations = sorted(
        contents.relations,
        key=lambda r: (
            r.scope,
            names.get(r.source_id, ""),
            r.type,
            names.get(r.target_id, ""),
            r.id,
        ),
    )
    return {
        "format": FORMAT,
        "version": VERSION,
        "entities": [_entity(e, extras.get(e.id, Extras())) for e in entities],
        "relationships": [_relationship(r, names, extras.get(r.id, Extras())) for r in relations],
        "documents": [_document(bundle) for bundle in contents.bundles],
        "merge_decisions": [decision_record(d) for d in contents.decisions],
        "audit_log": [audit_record(entry) for entry in contents.audit],
        "api_keys": [key_record(key) for key in contents.keys],
        "grants": [grant_record(grant) for grant in contents.grants],
        "scope_links": [link_record(link) for link in contents.links],
        "vectors": None if vectors is None else {"file": vectors},
        "graph_versions": dict(contents.graph_versions),
    }


def _entity(entity: Entity, extras: Extras) -> dict[str, Any]:
    record = {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "tags": list(extras.tags),
        "properties": dict(extras.properties),
        "mentions": entity.mention_count,
        "salience": entity.salience,
        "confidence": entity.confidence,
        "created_at": moment_text(entity.created_at),
        "updated_at": moment_text(entity.updated_at),
    }
    return scoped(record, entity.scope)


def _relationship(relation: Relation, names: Mapping[str, str], extras: Extras) -> dict[str, Any]:
    record = {
        "id": relation.id,
        "source": names.get(relation.source_id, relation.source_id),
        "target": names.get(relation.target_id, relation.target_id),
        "type": relation.type,
        "fact": relation.fact,
        "tags": list(extras.tags),
        "properties": dict(extras.properties),
        "weight": relation.weight,
        "confidence": relation.confidence,
        "valid_at": moment_text(relation.valid_at),
        "invalid_at": moment_text(relation.invalid_at),
        "created_at": moment_text(relation.created_at),
        "expired_at": moment_text(relation.expired_at),
        "invalidated_by": relation.invalidated_by,
    }
    if relation.statement:
        record["statement"] = relation.statement
    return scoped(record, relation.scope)


def _document(bundle: DocumentBundle) -> dict[str, Any]:
    doc = bundle.document
    record: dict[str, Any] = {
        "id": doc.id,
        "title": doc.title,
        "kind": str(doc.kind),
        "source": doc.source,
        "content_hash": doc.content_hash,
        "status": str(doc.status),
        "visibility": doc.visibility,
        "owner": doc.owner,
        "char_count": doc.char_count,
        "created_at": moment_text(doc.created_at),
        "valid_at": moment_text(doc.valid_at),
        "metadata": doc.metadata,
        "chunks": [_chunk(chunk) for chunk in bundle.chunks],
        "entities": [
            {
                "id": w.entity.id,
                "description": w.description,
                "aliases": list(w.entity.aliases),
                "salience": w.entity.salience,
                "confidence": w.entity.confidence,
            }
            for w in bundle.entities
        ],
        "mentions": [
            {"entity": m.entity_id, "chunk": m.chunk_id, "surface": m.surface, "count": m.count}
            for m in bundle.mentions
        ],
        "relations": [
            {"id": r.id, "confidence": r.confidence, "evidence": _evidence(r.evidence)}
            for r in bundle.relations
        ],
        "merges": [_merge(merge) for merge in bundle.merges],
    }
    return scoped(record, doc.scope)


def _chunk(chunk: Chunk) -> dict[str, Any]:
    return {
        "id": chunk.id,
        "seq": chunk.seq,
        "start": chunk.start,
        "end": chunk.end,
        "token_count": chunk.token_count,
        "text": chunk.text,
    }


def _evidence(pieces: Iterable[Evidence]) -> list[dict[str, Any]]:
    return [
        {"chunk": p.chunk_id or None, "sentence": p.sentence, "start": p.start, "end": p.end}
        for p in pieces
    ]


def _merge(merge: Merge) -> dict[str, Any]:
    return {
        "entity": merge.entity_id,
        "surface": merge.surface,
        "rule": merge.rule,
        "score": merge.score,
        "created_at": moment_text(merge.created_at),
    }


def embedded(contents: Contents) -> tuple[Sequence[tuple[str, Any]], Sequence[tuple[str, Any]]]:
    """The ``(id, embedding)`` pairs of the chunks and of the entities that have one, by id
    (so that the same vectors always make the same sidecar)."""
    chunks = [
        (chunk.id, chunk.embedding)
        for bundle in contents.bundles
        for chunk in bundle.chunks
        if chunk.embedding is not None
    ]
    entities = [(e.id, e.embedding) for e in contents.entities if e.embedding is not None]
    return sorted(chunks, key=lambda pair: pair[0]), sorted(entities, key=lambda pair: pair[0])

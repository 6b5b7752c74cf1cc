"""The order in which a memory file's contents are written into the store.

Each document's bundle is written as it was read back (oldest first). Two cases need more:

* a document may refer to an entity it does not list (the document that listed it was
  deleted or replaced): the entity is added to the first bundle that refers to it, with no
  description of that document's, as :mod:`loregraph.copy` does;
* entities and relationships written into the file by hand, which no document supports,
  are gathered into one document per scope, titled ``entries written by hand in <file>``:
  the entity with its description and aliases, the relationship with one piece of evidence
  without a chunk (its fact as the sentence). From then on that document is an ordinary one:
  ``delete`` of it removes those entries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from loregraph.models import (
    DocStatus,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Relation,
    content_hash,
    stable_id,
)
from loregraph.store.jsonfile.layout import Contents


def bundles_to_write(contents: Contents, origin: str) -> list[DocumentBundle]:
    """The bundles that rebuild ``contents`` in a store, in order (``origin``: the file's
    name, for the title of a document of hand-written entries)."""
    by_id = {entity.id: entity for entity in contents.entities}
    written: set[str] = set()
    supported: set[str] = set()
    for bundle in contents.bundles:
        _add_unlisted(bundle, by_id, written)
        written.update(write.entity.id for write in bundle.entities)
        supported.update(relation.id for relation in bundle.relations)
    entities = [e for e in contents.entities if e.id not in written]
    relations = [r for r in contents.relations if r.id not in supported]
    scopes = dict.fromkeys([e.scope for e in entities] + [r.scope for r in relations])
    extra = [_hand_written(scope, entities, relations, origin) for scope in scopes]
    return [*contents.bundles, *extra]


def _add_unlisted(bundle: DocumentBundle, by_id: dict[str, Entity], written: set[str]) -> None:
    listed = {write.entity.id for write in bundle.entities}
    referenced = {mention.entity_id for mention in bundle.mentions}
    referenced.update(merge.entity_id for merge in bundle.merges)
    for relation in bundle.relations:
        referenced.update((relation.source_id, relation.target_id))
    for entity_id in sorted(referenced - listed - written):
        entity = dataclasses.replace(by_id[entity_id], description="", aliases=[])
        bundle.entities.append(EntityWrite(entity, "", entity.salience))


def _hand_written(
    scope: str, entities: Iterable[Entity], relations: Iterable[Relation], origin: str
) -> DocumentBundle:
    writes = [EntityWrite(e, e.description, e.salience) for e in entities if e.scope == scope]
    supported = [
        dataclasses.replace(r, evidence=[Evidence("", r.fact)], weight=1.0)
        for r in relations
        if r.scope == scope
    ]
    key = "\n".join(sorted([w.entity.id for w in writes] + [r.id for r in supported]))
    document = Document(
        id=stable_id("doc", scope, "hand-written", origin, key),
        title=f"entries written by hand in {origin}",
        content_hash=content_hash(key),
        scope=scope,
        source=f"{origin}#hand-written",
        status=DocStatus.DONE,
    )
    return DocumentBundle(document, [], writes, [], supported)

"""Reading a JSON memory file's object back into models (see :mod:`.layout`).

Every value is checked (:class:`~.fields.ShapeError` says where one is wrong). Entities and
relationships a person or an agent added by hand, with no document behind them, are
gathered into one document per scope (:mod:`.handwritten`), so that the store can hold them
and ``delete`` can remove them like anything else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from loregraph.errors import InputError, SchemaVersionError
from loregraph.kinds import Visibility
from loregraph.models import (
    DEFAULT_SCOPE,
    Chunk,
    DocKind,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Mention,
    Merge,
    Relation,
    name_key,
)
from loregraph.store.jsonfile.fields import Fields, ShapeError
from loregraph.store.jsonfile.layout import FORMAT, VERSION, Contents, Extras
from loregraph.store.jsonfile.records import (
    read_audit,
    read_decisions,
    read_grants,
    read_keys,
    read_links,
)


def read_contents(data: object) -> Contents:
    """The models of a file's JSON object; raises :class:`ShapeError` for a wrong shape and
    :class:`SchemaVersionError` for a layout newer than :data:`VERSION`."""
    top = Fields(data, "")
    _check_version(top)
    contents = Contents()
    by_id = _records(top.items("entities"), _entity, "entity", contents)
    contents.entities = list(by_id.values())
    by_name = {(e.scope, name_key(e.name)): e.id for e in contents.entities}
    relations = _records(
        top.items("relationships"), lambda item: _relation(item, by_name), "relationship", contents
    )
    contents.relations = list(relations.values())
    for item in top.items("documents"):
        contents.bundles.append(_bundle(item, by_id, relations))
    versions = top.sub("graph_versions")
    contents.graph_versions = {scope: versions.integer(scope) for scope in versions.value}
    contents.decisions = read_decisions(top.items("merge_decisions"))
    contents.audit = read_audit(top.items("audit_log"))
    contents.keys = read_keys(top.items("api_keys"))
    contents.grants = read_grants(top.items("grants"))
    contents.links = read_links(top.items("scope_links"))
    return contents


Record = TypeVar("Record", Entity, Relation)


def _records(
    items: Iterator[Fields],
    read: Callable[[Fields], tuple[Record, Extras]],
    what: str,
    contents: Contents,
) -> dict[str, Record]:
    """The records of a section by id (each id once), their extras put in ``contents``."""
    found: dict[str, Record] = {}
    for item in items:
        record, extras = read(item)
        if record.id in found:
            raise ShapeError(f"{item.where}: the {what} id {record.id!r} appears twice")
        found[record.id] = record
        if extras:
            contents.extras[record.id] = extras
    return found


def _check_version(top: Fields) -> None:
    written = top.text("format", FORMAT)
    if written != FORMAT:
        raise ShapeError(f"format: expected {FORMAT!r}, found {written!r}")
    version = top.integer("version")
    if version > VERSION:
        raise SchemaVersionError(
            f"it was written with memory file version {version}, but this loregraph only "
            f"knows version {VERSION}: upgrade loregraph to open it"
        )
    if version < 1:
        raise ShapeError(f"version: {version} is not a memory file version")


def _entity(item: Fields) -> tuple[Entity, Extras]:
    scope, name = item.text("scope", DEFAULT_SCOPE), item.text("name")
    if not name_key(name):
        raise ShapeError(f"{item.at('name')}: an entity needs a name with letters or digits")
    entity = Entity(
        id=item.text("id", Entity.make_id(scope, name)),
        name=name,
        type=item.text("type", ""),
        scope=scope,
        description=item.text("description", ""),
        aliases=item.strings("aliases"),
        mention_count=item.integer("mentions", 0),
        salience=item.number("salience", 0.0),
        confidence=item.number("confidence", 1.0),
    )
    entity.created_at = item.moment("created_at") or entity.created_at
    entity.updated_at = item.moment("updated_at") or entity.updated_at
    return entity, Extras(item.strings("tags"), item.mapping("properties"))


def _relation(item: Fields, by_name: dict[tuple[str, str], str]) -> tuple[Relation, Extras]:
    scope, rel_type = item.text("scope", DEFAULT_SCOPE), item.text("type")
    ends = []
    for end in ("source", "target"):
        name = item.text(end)
        found = by_name.get((scope, name_key(name)))
        if found is None:
            raise ShapeError(
                f"{item.at(end)}: no entity named {name!r} in scope {scope!r} "
                "(a relationship names its two ends as the entities section names them)"
            )
        ends.append(found)
    statement = item.text("statement", "")
    relation = Relation(
        id=item.text(
            "id", Relation.make_id(scope, ends[0], rel_type, ends[1], *filter(None, [statement]))
        ),
        source_id=ends[0],
        target_id=ends[1],
        type=rel_type,
        scope=scope,
        fact=item.text("fact", ""),
        weight=item.number("weight", 1.0),
        confidence=item.number("confidence", 1.0),
        valid_at=item.moment("valid_at"),
        invalid_at=item.moment("invalid_at"),
        expired_at=item.moment("expired_at"),
        invalidated_by=item.optional_text("invalidated_by"),
        statement=statement,
    )
    relation.created_at = item.moment("created_at") or relation.created_at
    return relation, Extras(item.strings("tags"), item.mapping("properties"))


def _bundle(
    item: Fields, entities: dict[str, Entity], relations: dict[str, Relation]
) -> DocumentBundle:
    document = _document(item)
    chunks = [
        Chunk(
            id=c.text("id"),
            document_id=document.id,
            seq=c.integer("seq"),
            start=c.integer("start", 0),
            end=c.integer("end", 0),
            text=c.text("text"),
            token_count=c.integer("token_count", 0),
        )
        for c in item.items("chunks")
    ]
    listed = []
    for entry in item.items("entities"):
        known = _known(entities, entry, "id")
        entity = dataclasses.replace(
            known,
            description=entry.text("description", ""),
            aliases=entry.strings("aliases"),
            salience=entry.number("salience", known.salience),
            confidence=entry.number("confidence", known.confidence),
        )
        listed.append(EntityWrite(entity, entity.description, entity.salience))
    mentions = [
        Mention(
            _known(entities, m, "entity").id,
            m.text("chunk"),
            m.text("surface"),
            m.integer("count", 1),
        )
        for m in item.items("mentions")
    ]
    supported = [_supported(entry, relations) for entry in item.items("relations")]
    merges = [
        Merge(
            entity_id=_known(entities, m, "entity").id,
            surface=m.text("surface"),
            rule=m.text("rule"),
            score=m.number("score", 1.0),
            scope=document.scope,
            document_id=document.id,
            created_at=m.moment("created_at") or document.created_at,
        )
        for m in item.items("merges")
    ]
    return DocumentBundle(document, chunks, listed, mentions, supported, merges)


def _document(item: Fields) -> Document:
    try:
        kind = DocKind(item.text("kind", DocKind.DOCUMENT.value))
    except ValueError:
        raise ShapeError(f"{item.at('kind')}: expected 'document' or 'memory'") from None
    try:
        visibility = Visibility.parse(item.text("visibility", "public"))
    except InputError as exc:
        raise ShapeError(f"{item.at('visibility')}: {exc}") from None
    document = Document(
        id=item.text("id"),
        title=item.text("title", ""),
        content_hash=item.text("content_hash"),
        scope=item.text("scope", DEFAULT_SCOPE),
        source=item.text("source", ""),
        kind=kind,
        visibility=visibility,
        owner=item.optional_text("owner"),
        metadata=item.mapping("metadata"),
        char_count=item.integer("char_count", 0),
        valid_at=item.moment("valid_at"),
    )
    document.created_at = item.moment("created_at") or document.created_at
    status: Any = item.text("status", "done")
    try:
        document.status = type(document.status)(status)
    except ValueError:
        raise ShapeError(f"{item.at('status')}: {status!r} is not a document status") from None
    return document


def _known(entities: dict[str, Entity], item: Fields, key: str) -> Entity:
    entity_id = item.text(key)
    found = entities.get(entity_id)
    if found is None:
        raise ShapeError(f"{item.at(key)}: no entity with id {entity_id!r} in the entities section")
    return found


def _supported(item: Fields, relations: dict[str, Relation]) -> Relation:
    relation_id = item.text("id")
    found = relations.get(relation_id)
    if found is None:
        raise ShapeError(
            f"{item.at('id')}: no relationship with id {relation_id!r} in the relationships section"
        )
    evidence = [
        Evidence(
            e.text("chunk", ""), e.text("sentence", ""), e.integer("start", 0), e.integer("end", 0)
        )
        for e in item.items("evidence")
    ]
    return dataclasses.replace(
        found,
        evidence=evidence,
        weight=float(len(evidence)),
        confidence=item.number("confidence", found.confidence),
    )

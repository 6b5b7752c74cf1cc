"""Filtering what a store returns down to what the acting principal may see."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from loregraph.models import Chunk, DocumentBundle, Entity, Relation, Scored
from loregraph.store.visible.derive import visible_entity, visible_relation
from loregraph.store.visible.readers import Readable, Readers
from loregraph.store.widen import GROWTH, widening

if TYPE_CHECKING:
    from loregraph.store.base import Store

MAX_ROUNDS = 4
"""How many times a filtered search widens before it returns what it has."""


async def entities(store: Store, readers: Readers, found: Sequence[Entity]) -> list[Entity]:
    """``found`` as the acting principal sees them, invisible ones left out, in order."""
    readable = await readers.per_scope([entity.scope for entity in found])
    asked = [entity.id for entity in found if readable[entity.scope] is not None]
    sources = await store.entity_sources(asked) if asked else {}
    shown: list[Entity] = []
    for entity in found:
        ids = readable[entity.scope]
        if ids is None:
            shown.append(entity)
        elif (seen := visible_entity(entity, sources.get(entity.id, []), ids)) is not None:
            shown.append(seen)
    return shown


async def visible_entity_ids(
    store: Store, readers: Readers, scope: str, ids: Sequence[str]
) -> set[str]:
    """The ids of ``ids`` (entities of ``scope``) the acting principal sees."""
    readable = await readers.readable(scope)
    if readable is None:
        return set(ids)
    sources = await store.entity_sources(ids) if ids else {}
    return {
        entity_id
        for entity_id, rows in sources.items()
        if any(row.document_id in readable for row in rows)
    }


async def relations(
    store: Store, readers: Readers, found: Sequence[Relation], *, ends: bool = True
) -> list[Relation]:
    """``found`` as the acting principal sees them, invisible ones left out, in order; with
    ``ends``, also those with an end the principal does not see."""
    readable = await readers.per_scope([relation.scope for relation in found])
    asked = [r for r in found if readable[r.scope] is not None]
    if not asked:
        return list(found)
    sources = await store.relation_sources([r.id for r in asked])
    visible_ends: set[str] | None = None
    if ends:
        end_scope = {e: r.scope for r in asked for e in (r.source_id, r.target_id)}
        rows = await store.entity_sources(list(end_scope))
        visible_ends = set()
        for entity_id, entity_rows in rows.items():
            ids = readable[end_scope[entity_id]]
            if ids is not None and any(row.document_id in ids for row in entity_rows):
                visible_ends.add(entity_id)
    shown: list[Relation] = []
    for relation in found:
        ids = readable[relation.scope]
        if ids is None:
            shown.append(relation)
            continue
        seen = visible_relation(relation, sources.get(relation.id, []), ids)
        if seen is None:
            continue
        if visible_ends is not None and not {seen.source_id, seen.target_id} <= visible_ends:
            continue
        shown.append(seen)
    return shown


async def chunks(store: Store, readers: Readers, found: Sequence[Chunk]) -> list[Chunk]:
    """The chunks of ``found`` whose document the acting principal reads."""
    if readers.everything() or not found:
        return list(found)
    reads: dict[str, bool] = {}
    for document_id in dict.fromkeys(chunk.document_id for chunk in found):
        scope = readers.scope_of(document_id)
        if scope is None:
            doc = await store.get_document(document_id)
            scope = None if doc is None else doc.scope
        readable = None if scope is None else await readers.readable(scope)
        reads[document_id] = scope is not None and (readable is None or document_id in readable)
    return [chunk for chunk in found if reads[chunk.document_id]]


async def ranked(
    search: Callable[[int], Awaitable[list[Scored]]],
    keep: Callable[[list[str]], Awaitable[set[str]]],
    limit: int,
) -> list[Scored]:
    """The best ``limit`` hits of ``search(n)`` that ``keep`` keeps, asking for more hits
    while too few are kept and the store has more (at most :data:`MAX_ROUNDS` times)."""

    async def shown(hits: Sequence[Scored]) -> list[Scored]:
        kept = await keep([hit.id for hit in hits])
        return [hit for hit in hits if hit.id in kept]

    first = max(limit, 1) * GROWTH
    most = first * GROWTH ** (MAX_ROUNDS - 1)
    return (await widening(search, shown, limit, first=first, most=most))[:limit]


async def bundle(
    store: Store, readers: Readers, found: DocumentBundle, readable: Readable
) -> DocumentBundle:
    """A readable document's bundle with its entities and relations as the principal sees
    them (for ``copy --as``)."""
    if readable is None:
        return found
    shown = {e.id: e for e in await entities(store, readers, [w.entity for w in found.entities])}
    for write in found.entities:
        write.entity = shown.get(write.entity.id, write.entity)
    kept = {r.id: r for r in await relations(store, readers, found.relations, ends=False)}
    for relation in found.relations:
        seen = kept.get(relation.id)
        if seen is not None and relation.invalidated_by not in (None, seen.invalidated_by):
            relation.invalid_at, relation.expired_at = seen.invalid_at, seen.expired_at
            relation.invalidated_by = None
    return found


Keep = Callable[[list[str]], Awaitable[set[str]]]
__all__ = ["Keep", "Readable", "bundle", "chunks", "entities", "ranked", "relations"]

"""Finding what a user names: an entity by name or alias, a document by id, path or title."""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import NotFoundError
from loregraph.ingest.pipeline import document_id
from loregraph.models import Document, Entity, name_key
from loregraph.store.base import Store

CLOSE_NAME = 0.5
"""The fuzzy score above which the closest name stands for a name that matches none."""


async def find_entity(store: Store, scope: str, name: str) -> Entity:
    """The entity called ``name`` (or with that alias); the closest name if none is exact.

    For reading (``entity``, ``path``, ...); a change uses :func:`exact_entity`, which never
    guesses. Raises :class:`~loregraph.errors.NotFoundError` listing near names when none
    is close.
    """
    key = name_key(name)
    found = await store.find_entities_by_key(scope, [key])
    if key in found:
        return found[key]
    fuzzy = await store.search_entities_fuzzy(scope, name, 5)
    if fuzzy and fuzzy[0].score >= CLOSE_NAME:
        entities = await store.get_entities([fuzzy[0].id])
        if entities:
            return entities[0]
    raise await _no_entity(store, name, [s.id for s in fuzzy])


async def exact_entity(store: Store, scope: str, ref: str) -> Entity:
    """The entity ``ref`` names exactly: its id, or its name or one of its aliases as
    ingest compares names (:func:`~loregraph.models.name_key`: case, accents, punctuation
    and a leading article aside). What a merge, rename or retype acts on: a close name
    is offered in the error, never taken.

    Raises :class:`~loregraph.errors.NotFoundError` ("did you mean ...", the close names
    as its ``candidates``) when no entity has that name.
    """
    by_id = await store.get_entities([ref.strip()])
    if by_id and by_id[0].scope == scope:
        return by_id[0]
    key = name_key(ref)
    found = await store.find_entities_by_key(scope, [key])
    if key in found:
        return found[key]
    fuzzy = await store.search_entities_fuzzy(scope, ref, 5) if key else []
    raise await _no_entity(store, ref, [s.id for s in fuzzy])


async def _no_entity(store: Store, name: str, close: list[str]) -> NotFoundError:
    """The error for a name no entity has, with the ``close`` entities (ids) as its
    suggestions."""
    names = list(dict.fromkeys(e.name for e in await store.get_entities(close)))
    hint = f"; did you mean: {', '.join(names)}?" if names else ""
    return NotFoundError(f"no entity named {name!r}{hint}", candidates=names)


async def find_document(store: Store, scope: str, ref: str) -> Document:
    """The document ``ref`` names: its id, its source (a path is resolved), or its exact
    title when only one document has it."""
    doc = await store.get_document(ref)
    if doc is not None and doc.scope == scope:
        return doc
    candidates = [ref]
    path = Path(ref)
    if path.exists():
        candidates.insert(0, str(path.resolve()))
    for source in candidates:
        doc = await store.find_document(scope, source=source)
        if doc is not None:
            return doc
        doc = await store.get_document(document_id(scope, source))
        if doc is not None:
            return doc
    titled = [d for d in await store.list_documents(scope) if d.title == ref]
    if len(titled) == 1:
        return titled[0]
    if len(titled) > 1:
        raise NotFoundError(
            f"{len(titled)} documents are titled {ref!r}; delete one by id: "
            + ", ".join(d.id for d in titled)
        )
    raise NotFoundError(f"no document {ref!r} in scope {scope!r} (give an id, path or title)")

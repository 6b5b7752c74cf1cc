"""The writes of a graph database written once (a base of the Cypher and SurrealDB stores):
each write or delete is planned by :mod:`loregraph.store.plan` over the backend's reads
(:class:`~loregraph.store.planstate.WriteState`), then applied by the backend in one atomic
statement or transaction, and planned again from fresh reads when another writer committed
in between; an entity edit is worked out here and applied by the backend.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from loregraph.errors import NotFoundError, StoreError
from loregraph.models import DeleteReport, DocumentBundle, Entity, Relation, name_key, utcnow
from loregraph.store.base import NOT_OPEN
from loregraph.store.plan import WritePlan, plan_delete, plan_write
from loregraph.store.planning import alias_list
from loregraph.store.planstate import WriteState, entity_states
from loregraph.store.rows import iso

WRITE_ATTEMPTS = 20
S = TypeVar("S")


class Where(Protocol):
    """A parsed store location."""

    def redacted(self) -> str:
        """The location with its password hidden."""


class Link(Protocol):
    """What :class:`Opened` needs of a connection."""

    async def open(self) -> None:
        """Connect."""

    async def close(self) -> None:
        """Disconnect (safe to call twice)."""


L = TypeVar("L", bound=Link)


class Opened(Generic[L, S]):
    """A store over one connection (``L``) and the schema state it found when it opened
    (``S``; ``None`` while closed): opening, the connection of an open store, its name."""

    target: Where
    connection: L
    _schema: S | None

    if TYPE_CHECKING:

        async def _ensure_schema(self) -> S: ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.target.redacted()!r})"

    @property
    def url(self) -> str:
        """The store's location without its password."""
        return self.target.redacted()

    async def open(self) -> None:
        """Connect and create or check the schema (closing again when that fails)."""
        if self._schema is not None:
            return
        await self.connection.open()
        try:
            self._schema = await self._ensure_schema()
        except BaseException:
            await self.connection.close()
            raise

    def _state(self) -> S:
        """The schema state; :class:`StoreError` when the store is not open."""
        if self._schema is None:
            raise StoreError(NOT_OPEN)
        return self._schema

    def _conn(self) -> L:
        """The connection of an open store."""
        self._state()
        return self.connection


@dataclass(frozen=True, slots=True)
class EntityEdit:
    """A rename and/or retype: the entity's new fields (``changes``: name, type, name key,
    aliases, alias text, ``updated_at``) and its name and alias keys, ``(key, canonical)``."""

    entity_id: str
    changes: dict[str, Any]
    keys: list[tuple[str, int]]


async def entity_edit(
    reads: WriteState, entity_id: str, name: str | None, entity_type: str | None
) -> EntityEdit | None:
    """The edit renaming and/or retyping an entity (``None``: no such entity): its aliases
    and name and alias keys follow the new name."""
    found = (await entity_states(reads, [entity_id], "")).get(entity_id)
    if found is None:
        return None
    key = found.key if name is None else name_key(name)
    surfaces, alias_keys = alias_list(key, found.aliases)
    changes: dict[str, Any] = {"name_key": key, "aliases": surfaces}
    changes |= {"alias_text": " ".join(surfaces), "updated_at": iso(utcnow())}
    changes |= {"name": name} if name is not None else {}
    changes |= {"type": entity_type} if entity_type is not None else {}
    return EntityEdit(entity_id, changes, [(key, 1)] + [(alias, 0) for alias in alias_keys])


class PlannedWrites:
    """``write_document``, ``delete_document``, ``invalidate_relation`` and ``update_entity``
    over a backend's :meth:`_reads`, :meth:`_apply`, :meth:`_end` and :meth:`_apply_edit`."""

    _lock: asyncio.Lock

    if TYPE_CHECKING:

        def _reads(self) -> WriteState: ...

        async def _apply(self, plan: WritePlan) -> bool: ...

        async def _apply_edit(self, edit: EntityEdit) -> None: ...

        async def _end(self, relation_id: str, invalid_at: str, by: str | None) -> bool: ...

        async def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]: ...

    async def write_document(self, bundle: DocumentBundle) -> None:
        """Write (or replace) a document atomically; ``ValueError`` for a bad bundle."""
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                if await self._apply(await plan_write(self._reads(), bundle)):
                    return
        raise StoreError(f"could not write document {bundle.document.id}: too many conflicts")

    async def delete_document(
        self, document_id: str, *, ends: Sequence[Relation] = ()
    ) -> DeleteReport:
        """Delete a document (an unknown id gives an all-zero report)."""
        async with self._lock:
            for _ in range(WRITE_ATTEMPTS):
                plan = await plan_delete(self._reads(), document_id, ends)
                if plan is None:
                    return DeleteReport(document_id=document_id)
                if await self._apply(plan):
                    return plan.report
        raise StoreError(f"could not delete document {document_id}: too many conflicts")

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        """End a relation (``invalid_at``; ``expired_at`` now; ``invalidated_by``) and move
        its scope's graph version; raises :class:`NotFoundError` for an unknown relation."""
        async with self._lock:
            if not await self._end(relation_id, iso(invalid_at), by):
                raise NotFoundError(f"no relation with id {relation_id!r}")

    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> Entity:
        """Rename and/or retype an entity; its aliases and name and alias keys follow the
        new name. Raises :class:`NotFoundError` for an unknown id."""
        async with self._lock:
            edit = await entity_edit(self._reads(), entity_id, name, entity_type)
            if edit is None:
                raise NotFoundError(f"no entity with id {entity_id!r}")
            await self._apply_edit(edit)
        return (await self.get_entities([entity_id]))[0]

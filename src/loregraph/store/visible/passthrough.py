"""A store that hands every call to another one: the base of :class:`~.view.VisibleStore`,
which overrides the reads it filters. Writes, keys, merge decisions and the audit log pass
through unchanged; attributes a backend has beyond the contract (its path, its URL) are the
wrapped store's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from loregraph import models
from loregraph.store.base import Store
from loregraph.store.ledger import SCOPE_LINK, LedgerQuery, LedgerRow
from loregraph.store.provenance import EntitySource, RelationSource


class Passthrough(Store):
    """Every call handed to ``inner``."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def underlying(self) -> Store:
        return self.inner.underlying

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"

    async def open(self) -> None:
        await self.inner.open()

    async def close(self) -> None:
        await self.inner.close()

    def changed(self) -> None:
        """Called after every write through this store (a subclass drops what it cached)."""

    async def write_document(self, bundle: models.DocumentBundle) -> None:
        try:
            await self.inner.write_document(bundle)
        finally:
            self.changed()

    async def delete_document(
        self, document_id: str, *, ends: Sequence[models.Relation] = ()
    ) -> models.DeleteReport:
        try:
            return await self.inner.delete_document(document_id, ends=ends)
        finally:
            self.changed()

    async def invalidate_relation(
        self, relation_id: str, invalid_at: datetime, *, by: str | None = None
    ) -> None:
        try:
            await self.inner.invalidate_relation(relation_id, invalid_at, by=by)
        finally:
            self.changed()

    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> models.Entity:
        try:
            return await self.inner.update_entity(entity_id, name=name, entity_type=entity_type)
        finally:
            self.changed()

    async def entity_sources(self, entity_ids: Sequence[str]) -> dict[str, list[EntitySource]]:
        return await self.inner.entity_sources(entity_ids)

    async def relation_sources(
        self, relation_ids: Sequence[str]
    ) -> dict[str, list[RelationSource]]:
        return await self.inner.relation_sources(relation_ids)

    # ----------------------------------------------------------------- the ledger
    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        try:
            return await self.inner.ledger_put(row, replace=replace)
        finally:
            if row.kind == SCOPE_LINK:  # a link changes what a scope's readers see
                self.changed()

    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        try:
            return await self.inner.ledger_delete(kind, part, key)
        finally:
            if kind == SCOPE_LINK:
                self.changed()

    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        return await self.inner.ledger_rows(query)

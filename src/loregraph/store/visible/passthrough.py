"""A store that hands every call to another one: the base of :class:`~.view.VisibleStore`,
which overrides the reads it filters. Writes, keys, merge decisions and the audit log pass
through unchanged; attributes a backend has beyond the contract (its path, its URL) are the
wrapped store's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from loregraph import models
from loregraph.access import ApiKey, Grant, ScopeLink
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.provenance import EntitySource, RelationSource


class Passthrough(Store):
    """Every call handed to ``inner``."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

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

    # ----------------------------------------------------------------- keys, changes
    async def add_api_key(self, key: ApiKey) -> None:
        await self.inner.add_api_key(key)

    async def api_key_by_hash(self, key_hash: str) -> ApiKey | None:
        return await self.inner.api_key_by_hash(key_hash)

    async def list_api_keys(self) -> list[ApiKey]:
        return await self.inner.list_api_keys()

    async def revoke_api_key(self, name: str, at: datetime) -> bool:
        return await self.inner.revoke_api_key(name, at)

    async def add_decision(self, decision: Decision) -> None:
        await self.inner.add_decision(decision)

    async def remove_decision(self, scope: str, kind: str, merge_id: str) -> bool:
        return await self.inner.remove_decision(scope, kind, merge_id)

    async def list_decisions(self, scope: str) -> list[Decision]:
        return await self.inner.list_decisions(scope)

    async def add_audit(self, entry: AuditEntry) -> None:
        await self.inner.add_audit(entry)

    async def list_audit(self, scope: str, limit: int | None = None) -> list[AuditEntry]:
        return await self.inner.list_audit(scope, limit)

    # ----------------------------------------------------------------- grants, links
    async def add_grant(self, grant: Grant) -> None:
        await self.inner.add_grant(grant)

    async def remove_grant(self, principal: str, scope: str) -> bool:
        return await self.inner.remove_grant(principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        return await self.inner.list_grants(principal)

    async def add_scope_link(self, link: ScopeLink) -> None:
        try:
            await self.inner.add_scope_link(link)
        finally:
            self.changed()

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        try:
            return await self.inner.remove_scope_link(scope, linked)
        finally:
            self.changed()

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        return await self.inner.scope_links(scope)

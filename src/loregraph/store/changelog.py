"""Merge decisions, the audit log and hand edits, the part of the store contract (a base of
:class:`~loregraph.store.base.Store`) that keeps what people change; decisions and the log
are written once over the ledger (:mod:`.ledger`).

The records themselves are :class:`~loregraph.store.changes.Decision` and
:class:`~loregraph.store.changes.AuditEntry`.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod

from loregraph.models import Entity
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.ledger import (
    AUDIT,
    DECISION,
    Ledger,
    LedgerQuery,
    audit_of,
    audit_row,
    decision_key,
    decision_of,
    decision_row,
)


class ChangeLog(Ledger):
    """What every store keeps of merge decisions and of who changed what, and how it edits
    an entity by hand."""

    @abstractmethod
    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> Entity:
        """Rename and/or retype an entity, keeping its id, mentions and relations.

        A new name changes the entity's name key (exact lookups find it by the new name; the
        aliases are recomputed, never holding the name's own key) and the text index. Raises
        :class:`~loregraph.errors.NotFoundError` for an unknown id.
        """

    async def add_decision(self, decision: Decision) -> None:
        """Remember a merge decision (:mod:`loregraph.store.changes`); one of the same
        scope, kind and ``merge_id`` is replaced."""
        await self.ledger_put(decision_row(decision))

    async def remove_decision(self, scope: str, kind: str, merge_id: str) -> bool:
        """Forget a decision; ``True`` when there was one."""
        return await self.ledger_delete(DECISION, scope, decision_key(kind, merge_id))

    async def list_decisions(self, scope: str) -> list[Decision]:
        """The scope's remembered merge decisions, oldest first."""
        decisions = [
            decision_of(row) for row in await self.ledger_rows(LedgerQuery(DECISION, scope))
        ]
        return sorted(decisions, key=lambda d: (d.created_at, d.kind, d.merge_id))

    async def add_audit(self, entry: AuditEntry) -> None:
        """Append an entry to the audit log."""
        await self.ledger_put(audit_row(entry, uuid.uuid4().hex), replace=False)

    async def list_audit(self, scope: str, limit: int | None = None) -> list[AuditEntry]:
        """The scope's audit log, newest first (at most ``limit`` entries)."""
        rows = await self.ledger_rows(LedgerQuery(AUDIT, scope, True, limit))
        return [audit_of(row) for row in rows]

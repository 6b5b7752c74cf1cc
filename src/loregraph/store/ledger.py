"""The ledger role of a store: records that belong to no document, kept as JSON values.

API keys, grants, scope links, merge decisions and the audit log are small records a store
keeps beside the graph. A backend keeps them all in one place with three primitives
(:class:`Ledger`): write a row (or replace the row of the same kind, part and key, which
keeps its place), delete a row, and list the rows of a kind in the order they were first
written. Everything else about them (uniqueness, revocation, ordering, the records' shapes)
is written once, here and in :mod:`.keystore`, :mod:`.grants` and :mod:`.changes`.

A row is ``(kind, part, key, value)``: ``kind`` one of :data:`KINDS`; ``part`` what the
records of a kind are listed by (a scope, a principal, or ``""``); ``key`` unique within
the kind and part; ``value`` a JSON object (times as ISO 8601 text).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loregraph.access import ApiKey, Grant, Role, ScopeLink, roles_from_json, roles_to_json
from loregraph.store.changes import AuditEntry, Decision
from loregraph.store.rows import iso

API_KEY, GRANT, SCOPE_LINK, DECISION, AUDIT = "api_key", "grant", "scope_link", "decision", "audit"
KINDS = (API_KEY, GRANT, SCOPE_LINK, DECISION, AUDIT)
"""The kinds of ledger row."""


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One ledger record (see the module notes)."""

    kind: str
    part: str
    key: str
    value: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LedgerQuery:
    """Which rows :meth:`Ledger.ledger_rows` returns: those of ``kind`` (and of ``part``
    when given), in the order they were first written (the newest first when
    ``newest_first``), at most ``limit`` of them."""

    kind: str
    part: str | None = None
    newest_first: bool = False
    limit: int | None = None


class Ledger(ABC):
    """The three primitives a backend implements for the ledger."""

    @abstractmethod
    async def ledger_put(self, row: LedgerRow, *, replace: bool = True) -> bool:
        """Write ``row``. A row of the same kind, part and key is replaced (keeping its
        place in the order) when ``replace``; otherwise nothing is written. Returns whether
        the row was written."""

    @abstractmethod
    async def ledger_delete(self, kind: str, part: str, key: str) -> bool:
        """Delete a row; whether there was one."""

    @abstractmethod
    async def ledger_rows(self, query: LedgerQuery) -> list[LedgerRow]:
        """The rows ``query`` asks for (see :class:`LedgerQuery`)."""


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else iso(moment)


def _read_time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def key_row(key: ApiKey) -> LedgerRow:
    """An API key as a ledger row (by name; its secret's hash, never the secret)."""
    value = {
        "name": key.name,
        "key_hash": key.key_hash,
        "roles": roles_to_json(key.roles),
        "created_at": _time(key.created_at),
        "revoked_at": _time(key.revoked_at),
    }
    return LedgerRow(API_KEY, "", key.name, value)


def key_of(row: LedgerRow) -> ApiKey:
    """The inverse of :func:`key_row`."""
    v = row.value
    return ApiKey(
        name=v["name"],
        key_hash=v["key_hash"],
        roles=roles_from_json(v["roles"]),
        created_at=_when(v["created_at"]),
        revoked_at=_read_time(v["revoked_at"]),
    )


def grant_row(grant: Grant) -> LedgerRow:
    """A grant as a ledger row (listed by principal, keyed by scope)."""
    return LedgerRow(GRANT, grant.principal, grant.scope, grant.to_dict())


def grant_of(row: LedgerRow) -> Grant:
    """The inverse of :func:`grant_row`."""
    return Grant(row.value["principal"], row.value["scope"], Role.parse(row.value["role"]))


def link_row(link: ScopeLink) -> LedgerRow:
    """A scope link as a ledger row (listed by scope, keyed by the linked scope)."""
    return LedgerRow(SCOPE_LINK, link.scope, link.linked, link.to_dict())


def link_of(row: LedgerRow) -> ScopeLink:
    """The inverse of :func:`link_row`."""
    v = row.value
    return ScopeLink(v["scope"], v["linked"], v["share"], tuple(v.get("documents") or ()))


def decision_row(decision: Decision) -> LedgerRow:
    """A merge decision as a ledger row (listed by scope, keyed by kind and merge id)."""
    d = decision
    value = {
        "scope": d.scope,
        "kind": d.kind,
        "merge_id": d.merge_id,
        "entity_id": d.entity_id,
        "surface": d.surface,
        "rule": d.rule,
        "score": float(d.score),
        "document_id": d.document_id,
        "principal": d.principal,
        "created_at": _time(d.created_at),
    }
    return LedgerRow(DECISION, d.scope, decision_key(d.kind, d.merge_id), value)


def decision_key(kind: str, merge_id: str) -> str:
    """The key of a decision within its scope."""
    return f"{kind}:{merge_id}"


def decision_of(row: LedgerRow) -> Decision:
    """The inverse of :func:`decision_row`."""
    v = row.value
    return Decision(
        kind=v["kind"],
        merge_id=v["merge_id"],
        entity_id=v["entity_id"],
        surface=v["surface"],
        scope=v["scope"],
        rule=v["rule"],
        score=float(v["score"]),
        document_id=v["document_id"],
        principal=v["principal"],
        created_at=_when(v["created_at"]),
    )


def audit_row(entry: AuditEntry, key: str) -> LedgerRow:
    """An audit entry as a ledger row (listed by scope; ``key`` unique, e.g. a uuid)."""
    return LedgerRow(AUDIT, entry.scope, key, entry.to_dict() | {"at": iso(entry.at)})


def audit_of(row: LedgerRow) -> AuditEntry:
    """The inverse of :func:`audit_row`."""
    v = row.value
    at = _when(v["at"])
    return AuditEntry(v["action"], v["subject"], v["detail"], v["principal"], v["scope"], at)

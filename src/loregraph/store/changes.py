"""Records of changes people make to the graph: merge decisions and the audit log.

A :class:`Decision` is remembered by the store and honoured by every later ingest:

* ``split`` — the name ``surface`` is never merged into ``entity_id`` again (an undone
  merge; ``merge_id`` is the id of the merge it undid);
* ``join`` — the entity ``surface`` names is merged into ``entity_id`` (a merge made by
  hand; ``merge_id`` is its id, the one ``unmerge`` takes).

An :class:`AuditEntry` says who changed what, and when.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from loregraph.models import DEFAULT_SCOPE, Document, Entity, utcnow
from loregraph.store.rows import Codec

SPLIT = "split"
JOIN = "join"
DECISION_KINDS = (SPLIT, JOIN)


@dataclass(slots=True)
class Decision:
    """A remembered merge decision (see the module docstring)."""

    kind: str
    merge_id: str
    entity_id: str
    surface: str
    scope: str = DEFAULT_SCOPE
    rule: str = "manual"
    score: float = 1.0
    document_id: str | None = None
    principal: str = ""
    created_at: datetime = field(default_factory=utcnow)

    def __post_init__(self) -> None:
        if self.kind not in DECISION_KINDS:
            raise ValueError(f"a decision is {' or '.join(DECISION_KINDS)}, not {self.kind!r}")


@dataclass(slots=True)
class AuditEntry:
    """One change to the graph: ``action`` (merge, unmerge, rename, retype, delete, forget;
    grant, revoke grant, link, unlink; create key, revoke key) on ``subject`` (an entity
    name, a document, a principal, a key's name or a scope), by ``principal`` at ``at``."""

    action: str
    subject: str
    detail: str = ""
    principal: str = ""
    scope: str = DEFAULT_SCOPE
    at: datetime = field(default_factory=utcnow)

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON."""
        return {
            "at": self.at.isoformat(),
            "principal": self.principal,
            "action": self.action,
            "subject": self.subject,
            "detail": self.detail,
            "scope": self.scope,
        }

    @classmethod
    def removal(cls, action: str, document: Document, principal: str) -> AuditEntry:
        """The entry of a forgotten memory or deleted document: its id and the SHA-256 of
        its text, never the text or its title (a memory's title is its text's start)."""
        detail = f"sha256:{document.content_hash}"
        return cls(action, document.id, detail, principal, document.scope)


DECISION_FIELDS = (
    "scope", "kind", "merge_id", "entity_id", "surface", "rule", "score", "document_id",
    "principal", "created_at",
)  # fmt: skip
AUDIT_FIELDS = ("scope", "at", "principal", "action", "subject", "detail")


def decision_values(decision: Decision, codec: Codec) -> tuple[Any, ...]:
    """A decision's fields as a backend stores them, in :data:`DECISION_FIELDS` order."""
    d = decision
    return (
        d.scope, d.kind, d.merge_id, d.entity_id, d.surface, d.rule, float(d.score),
        d.document_id, d.principal, codec.time(d.created_at),
    )  # fmt: skip


def decision_of(row: Sequence[Any], codec: Codec) -> Decision:
    """The inverse of :func:`decision_values`."""
    return Decision(
        scope=row[0], kind=row[1], merge_id=row[2], entity_id=row[3], surface=row[4],
        rule=row[5], score=float(row[6]), document_id=row[7], principal=row[8],
        created_at=codec.read_time(row[9]),
    )  # fmt: skip


def audit_values(entry: AuditEntry, codec: Codec) -> tuple[Any, ...]:
    """An audit entry's fields as a backend stores them, in :data:`AUDIT_FIELDS` order."""
    e = entry
    return (e.scope, codec.time(e.at), e.principal, e.action, e.subject, e.detail)


def audit_of(row: Sequence[Any], codec: Codec) -> AuditEntry:
    """The inverse of :func:`audit_values`."""
    return AuditEntry(
        scope=row[0], at=codec.read_time(row[1]), principal=row[2], action=row[3],
        subject=row[4], detail=row[5],
    )  # fmt: skip


class ChangeLog(ABC):
    """The part of the store contract (:class:`~loregraph.store.base.Store` derives from it)
    that keeps merge decisions and the audit log, and edits an entity by hand."""

    @abstractmethod
    async def add_decision(self, decision: Decision) -> None:
        """Remember a merge decision (:mod:`loregraph.store.changes`); one of the same
        scope, kind and ``merge_id`` is replaced."""

    @abstractmethod
    async def remove_decision(self, scope: str, kind: str, merge_id: str) -> bool:
        """Forget a decision; ``True`` when there was one."""

    @abstractmethod
    async def list_decisions(self, scope: str) -> list[Decision]:
        """The scope's remembered merge decisions, oldest first."""

    @abstractmethod
    async def add_audit(self, entry: AuditEntry) -> None:
        """Append an entry to the audit log."""

    @abstractmethod
    async def list_audit(self, scope: str, limit: int | None = None) -> list[AuditEntry]:
        """The scope's audit log, newest first (at most ``limit`` entries)."""

    @abstractmethod
    async def update_entity(
        self, entity_id: str, *, name: str | None = None, entity_type: str | None = None
    ) -> Entity:
        """Rename and/or retype an entity, keeping its id, mentions and relations.

        A new name changes the entity's name key (exact lookups find it by the new name; the
        aliases are recomputed, never holding the name's own key) and the text index. Raises
        :class:`~loregraph.errors.NotFoundError` for an unknown id.
        """

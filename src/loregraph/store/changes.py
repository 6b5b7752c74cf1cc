"""Records of changes people make to the graph: merge decisions and the audit log.

A :class:`Decision` is remembered by the store and honoured by every later ingest:

* ``split`` — the name ``surface`` is never merged into ``entity_id`` again (an undone
  merge; ``merge_id`` is the id of the merge it undid);
* ``join`` — the entity ``surface`` names is merged into ``entity_id`` (a merge made by
  hand; ``merge_id`` is its id, the one ``unmerge`` takes).

An :class:`AuditEntry` says who changed what, and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from loregraph.models import DEFAULT_SCOPE, Document, utcnow
from loregraph.serial import Record

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
class AuditEntry(Record):
    """One change to the graph: ``action`` (merge, unmerge, rename, retype, delete, forget;
    grant, revoke grant, link, unlink; create key, revoke key) on ``subject`` (an entity
    name, a document, a principal, a key's name or a scope), by ``principal`` at ``at``."""

    action: str
    subject: str
    detail: str = ""
    principal: str = ""
    scope: str = DEFAULT_SCOPE
    at: datetime = field(default_factory=utcnow)

    @classmethod
    def removal(cls, action: str, document: Document, principal: str) -> AuditEntry:
        """The entry of a forgotten memory or deleted document: its id and the SHA-256 of
        its text, never the text or its title (a memory's title is its text's start)."""
        detail = f"sha256:{document.content_hash}"
        return cls(action, document.id, detail, principal, document.scope)

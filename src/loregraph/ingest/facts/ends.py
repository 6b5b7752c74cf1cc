"""An end a write plans for a stored relation, and the times the rules read from relations
(shared by :mod:`.supersede` and :mod:`.claim_ends`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from loregraph.models import Relation


@dataclass(frozen=True, slots=True)
class End:
    """Relation ``relation_id`` ends at ``invalid_at`` because of relation ``by``, read from
    document ``document_id``; with ``reopen``, an ended relation holds again instead (a
    later memory states its fact again: :mod:`.claim_ends`)."""

    relation_id: str
    invalid_at: datetime
    by: str
    document_id: str
    reopen: bool = False


def started(relation: Relation) -> datetime:
    """When a relation started to hold, as far as the graph knows (see module notes)."""
    return relation.valid_at or relation.created_at


def retired(relation: Relation) -> bool:
    """Retired without an end in world time: the graph holds it never held."""
    return relation.expired_at is not None and relation.invalid_at is None

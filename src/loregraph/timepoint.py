"""The one time rule of every query: what is seen ``as_of`` a world time, and what the
store knew ``known_at`` a moment of its own history.

* **World time** (``as_of``, default now) reads the time the content states: a memory's
  time (``remember --at``), a document's or a fact's ``valid_at``. Content with no stated
  world time (a novel ingested today: no ``valid_at``) is **timeless**: it is seen at any
  ``as_of``. A fact holds from its ``valid_at`` (none: always) until its ``invalid_at``
  (none: still). A planned memory (a time after now) is not current before its time.
* **Store time** (``known_at``, default: everything the store holds) reads when the store
  learnt things (``created_at``) and when it stopped believing a fact (``expired_at``):
  with ``known_at``, content stored later is not seen, and a fact ended after ``known_at``
  is seen as the store saw it then (not yet ended).

Every face (CLI, HTTP, MCP, explorer) and every query (ask, context, search, entity,
relations, neighbors, path, history, export) applies this rule through :class:`TimePoint`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from loregraph.models import Relation, aware, utcnow


@dataclass(frozen=True, slots=True)
class TimePoint:
    """When a query looks: the world time ``as_of`` (``None``: now) and the store time
    ``known_at`` (``None``: all the store knows). Naive times are UTC."""

    as_of: datetime | None = None
    known_at: datetime | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "as_of", aware(self.as_of))
        object.__setattr__(self, "known_at", aware(self.known_at))

    @property
    def now(self) -> bool:
        """Whether this is the default view: now, with all the store knows."""
        return self.as_of is None and self.known_at is None

    def world(self) -> datetime:
        """The world time looked at (``as_of``, else now)."""
        return self.as_of or utcnow()

    def sees(self, valid_at: datetime | None, created_at: datetime) -> bool:
        """Whether a memory or document (its stated time ``valid_at``, stored at
        ``created_at``) is seen: timeless or begun by the world time, and stored by
        ``known_at``."""
        if self.known_at is not None and created_at > self.known_at:
            return False
        return valid_at is None or valid_at <= self.world()

    def holds(self, relation: Relation) -> bool:
        """Whether ``relation`` holds at this point: known by ``known_at``, begun by the world
        time (or timeless) and not ended by it as the store then knew."""
        if self.known_at is not None and relation.created_at > self.known_at:
            return False
        expired = relation.expired_at
        if self.known_at is not None and expired is not None and expired > self.known_at:
            expired = None  # the store did not yet know it had ended
        ended = relation.invalid_at if expired is not None else None
        if expired is not None and ended is None:
            return False  # retired: the graph holds it never held
        when = self.world()
        if relation.valid_at is not None and relation.valid_at > when:
            return False
        return ended is None or when < ended

    def begun(self, relation: Relation) -> bool:
        """Whether ``relation`` is part of the record at this point, current or ended:
        known by ``known_at`` and begun by the world time (or timeless). History and export
        list these."""
        if self.known_at is not None and relation.created_at > self.known_at:
            return False
        return relation.valid_at is None or relation.valid_at <= self.world()

    def ended(self, relation: Relation) -> bool:
        """Whether ``relation`` began by the world time but has ended by then (a fact that
        held and no longer does; a retired one never held)."""
        return relation.invalid_at is not None and self.begun(relation) and not self.holds(relation)

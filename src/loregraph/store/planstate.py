"""What a graph database tells the write planner (:mod:`loregraph.store.plan`) before it
plans a write or a delete: a small read role, :class:`WriteState`, each of whose methods is
one or two queries, and the state assembled from it once for every backend.

"Others" means: contributed by documents other than the one being written or deleted. The
graph stores (Cypher, SurrealDB) implement the role; the SQL stores plan inside their own
transactions instead.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from loregraph.models import Evidence, Relation
from loregraph.store.planning import StoredEntity
from loregraph.store.props import CODEC
from loregraph.store.provenance import RelationSource
from loregraph.store.remaining import derived_again, given_by
from loregraph.store.rows import iso_or_none

RelationKey = tuple[str, str, str, str]
"""(source id, type, target id, statement)."""
ContributionRow = tuple[str, Any, str, str, float | None, float | None]
"""(entity id, listed, description, aliases as JSON, salience, confidence)."""
T = TypeVar("T")


@dataclass(slots=True)
class OldDocument:
    """What the stored version of a document contributed."""

    scope: str
    chunk_ids: list[str] = field(default_factory=list)
    mentions: int = 0
    entities: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)


@dataclass(slots=True)
class EntityState:
    """A stored entity with the contributions of the other documents."""

    id: str
    key: str
    type: str
    salience: float
    confidence: float
    mention_sum: int = 0
    mention_rows: int = 0
    listed: bool = False
    descriptions: list[str] = field(default_factory=list)
    saliences: list[float | None] = field(default_factory=list)
    """The listing documents' own saliences (``None``: unknown, written before they were
    kept per document)."""
    confidences: list[float | None] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    """{alias key: smallest surface} over the other documents."""


@dataclass(slots=True)
class RelationState:
    """A stored relation found by its key (times as stored ISO text)."""

    id: str
    fact: str = ""
    valid_at: str | None = None
    invalid_at: str | None = None
    expired_at: str | None = None


class WriteState(Protocol):
    """The reads a graph backend answers for the planner."""

    async def meta_seq(self) -> int:
        """The store's write sequence number (changes with every graph write)."""

    async def old_document(self, document_id: str) -> OldDocument | None:
        """What the stored document contributed (``None``: not stored)."""

    async def foreign_chunks(self, document_id: str, chunk_ids: list[str]) -> list[str]:
        """Ids among ``chunk_ids`` that belong to another document."""

    async def stored_by_id(self, ids: list[str]) -> dict[str, StoredEntity]:
        """Stored entities by id."""

    async def stored_by_key(self, scope: str, keys: list[str]) -> dict[str, str]:
        """``{name key: entity id}`` for the scope's entities with those canonical keys."""

    async def entity_rows(self, ids: list[str]) -> list[tuple[str, str, str, float, float]]:
        """(id, name key, type, salience, confidence) of the stored entities."""

    async def other_mentions(self, ids: list[str], document_id: str) -> list[tuple[str, int, int]]:
        """(entity id, summed count, mention rows) of the others' mentions of the entities."""

    async def other_contributions(self, ids: list[str], document_id: str) -> list[ContributionRow]:
        """The others' contribution rows for the entities."""

    async def relations_by_key(self, keys: list[RelationKey]) -> dict[RelationKey, RelationState]:
        """Stored relations by key; an edge with no statement matches an empty one."""

    async def other_evidence(
        self, relation_ids: list[str], document_id: str
    ) -> dict[str, tuple[int, float]]:
        """``{relation id: (evidence count, max confidence)}`` from the others."""

    async def relations_of(self, entity_ids: list[str]) -> set[str]:
        """Ids of the relations that start or end at any of the entities."""

    async def relation_starts(self, relation_ids: list[str]) -> dict[str, Relation]:
        """The relations (id, ``fact`` and ``valid_at`` only) by id."""

    async def relation_sources(self, relation_ids: list[str]) -> dict[str, list[RelationSource]]:
        """As :meth:`~loregraph.store.provenance.Provenance.relation_sources`."""

    async def document_times(self, document_ids: list[str]) -> dict[str, datetime | None]:
        """The documents' ``valid_at``."""


def at_once(work: Coroutine[Any, Any, T]) -> T:
    """What ``work`` gives, run to its end now: a plan over reads that answer at once (as
    SQLite's do on its worker thread, inside the write's transaction). Raises
    ``RuntimeError`` when the work waits for something instead."""
    try:
        work.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    work.close()
    raise RuntimeError("a plan made at once waited for something")


async def entity_states(
    reads: WriteState, ids: list[str], document_id: str
) -> dict[str, EntityState]:
    """Stored entities with what the documents other than ``document_id`` give them."""
    states = {row[0]: EntityState(*row) for row in await reads.entity_rows(ids)}
    for entity_id, total, count in await reads.other_mentions(ids, document_id):
        if entity_id in states:
            states[entity_id].mention_sum = int(total)
            states[entity_id].mention_rows = int(count)
    for (
        entity_id,
        listed,
        description,
        aliases,
        salience,
        confidence,
    ) in await reads.other_contributions(ids, document_id):
        state = states.get(entity_id)
        if state is None:
            continue
        if listed:
            state.listed = True
            state.descriptions.append(description)
            state.saliences.append(None if salience is None else float(salience))
            state.confidences.append(None if confidence is None else float(confidence))
        state.aliases = merge_aliases(state.aliases, json.loads(aliases or "{}"))
    return states


def merge_aliases(into: dict[str, str], more: dict[str, str]) -> dict[str, str]:
    """``{key: smallest surface}`` over both maps (a new dict)."""
    merged = dict(into)
    for key, surface in more.items():
        if key not in merged or surface < merged[key]:
            merged[key] = surface
    return merged


@dataclass(frozen=True, slots=True)
class Remains:
    """A relation a removed document supported: what the document gave it (its fact, its
    start), the other documents' evidence and their times, and the relation without it
    (the rules: :mod:`loregraph.store.remaining`)."""

    given: tuple[bool, bool]
    sources: list[RelationSource]
    times: dict[str, datetime | None]
    without: Relation

    @property
    def fact(self) -> str:
        """The fact without the document."""
        return self.without.fact

    @property
    def valid_at(self) -> str | None:
        """The start without the document (ISO)."""
        return iso_or_none(self.without.valid_at)


async def remains(
    reads: WriteState, relation_ids: Sequence[str], document_id: str
) -> dict[str, Remains]:
    """Relation id → what ``document_id`` gave it and what it is without it (absent: the
    document gave it nothing that needs deriving again, or it is unknown)."""
    if not relation_ids:
        return {}
    stored = await reads.relation_starts(list(relation_ids))
    sources = await reads.relation_sources(list(stored))
    documents = sorted({s.document_id for found in sources.values() for s in found})
    times = await reads.document_times(documents)
    result: dict[str, Remains] = {}
    for relation_id, relation in stored.items():
        found = sources.get(relation_id, [])
        given = given_by(relation, found, document_id, times)
        if not any(given):
            continue
        left = [s for s in found if s.document_id != document_id]
        fact, start = given
        without = derived_again(relation, left, times, fact=fact, start=start)
        result[relation_id] = Remains(given, left, times, without)
    return result


def replaced(
    found: RelationState,
    relation: Relation,
    evidence: Iterable[tuple[str, str, int, int]],
    left: dict[str, Remains],
) -> tuple[str, str | None]:
    """Fact and start (ISO) of a stored relation that a written bundle supports: what an
    earlier version of its document gave it is derived again from the other documents'
    evidence and the bundle's; the rest is the stored value joined with the bundle's."""
    start = iso_or_none(relation.valid_at)
    other = left.get(found.id)
    if other is None:
        starts = [s for s in (found.valid_at, start) if s]
        return found.fact or relation.fact, min(starts, default=None)
    doc = ""  # the bundle's evidence: no stored document has this id
    sources = [*other.sources, *(RelationSource(doc, Evidence(*piece)) for piece in evidence)]
    times = other.times | {doc: relation.valid_at}
    began_at = CODEC.read_time_or_none(found.valid_at)
    stored = replace(other.without, fact=found.fact, valid_at=began_at)
    fact, began = other.given
    again = derived_again(stored, sources, times, fact=fact, start=began)
    starts = [s for s in (iso_or_none(again.valid_at), start) if s]
    return again.fact or relation.fact, min(starts, default=None)

"""Exploring the graph (``graph.explore``): entities, an entity with its relations, its
neighbourhood, the paths between two entities, the timeline of its facts, documents like a
document, and a passage by id.

Every method of :class:`Explore` is a lookup and one call of
:mod:`loregraph.engine.patterns`, :mod:`loregraph.engine.paths` or
:mod:`loregraph.engine.passages`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import cast

from loregraph.engine.code_context import CodeContext, Retrieves, code_context
from loregraph.engine.core import Section
from loregraph.engine.history import History, relation_history
from loregraph.engine.impact import MAX_IMPACT_HOPS, Impact, impact_of
from loregraph.engine.lookup import find_document, find_entity
from loregraph.engine.passages import PassageView, read_passage
from loregraph.engine.paths import GraphPath, shortest_paths
from loregraph.engine.patterns import (
    Direction,
    EntityRelations,
    Neighbourhood,
    neighbourhood,
    relations_of,
)
from loregraph.engine.suggest import Suggestion, suggest_for
from loregraph.engine.views import EntityView
from loregraph.errors import InputError, NotFoundError
from loregraph.models import Entity, Relation
from loregraph.settings import check_budget, check_limit
from loregraph.timepoint import TimePoint


def world_time(as_of: datetime | None) -> datetime:
    """The world time a query sees: ``as_of`` (UTC when it has no timezone), or now. A time
    after now is allowed: it shows what planned memories say will hold then."""
    return TimePoint(as_of).world()


def known_by(known_at: datetime | None, relations: list[Relation]) -> list[Relation]:
    """``relations`` the store knew at ``known_at`` (all of them for ``None``)."""
    point = TimePoint(None, known_at)
    return [r for r in relations if known_at is None or point.holds(r) or point.ended(r)]


class Explore(Section):
    """Entities, relations, neighbourhoods, paths and timelines, by entity name, and
    passages by id (``graph.explore``)."""

    async def suggest(
        self, document: str, *, limit: int = 5, scope: str | None = None
    ) -> list[Suggestion]:
        """Other documents about the same people, places and periods as ``document`` (its
        id, source or exact title), best first: each with the entities they share, rarer
        ones weighing more, and a short reason. The document itself is never suggested.
        Raises :class:`~loregraph.errors.NotFoundError` for an unknown document."""
        if limit < 1:
            raise InputError(f"the limit must be at least 1, not {limit}")
        await self.core.open()
        found = await find_document(self.core.store, self.core._scope(scope), document)
        return await suggest_for(self.core.store, found, limit)

    async def passage(self, passage_id: str, *, scope: str | None = None) -> PassageView:
        """The passage ``passage_id`` (a citation's ``chunk_id``) of the scope, with its
        document's title; :class:`~loregraph.errors.NotFoundError` when the scope has none."""
        await self.core.open()
        return await read_passage(self.core.store, passage_id, self.core._scope(scope))

    async def entities(
        self,
        *,
        entity_type: str | None = None,
        order: str = "mentions",
        limit: int | None = 50,
        scope: str | None = None,
    ) -> list[Entity]:
        """Entities of the scope, most mentioned first (or by ``degree`` or ``name``)."""
        check_limit(limit)
        await self.core.open()
        return await self.core.store.list_entities(
            self.core._scope(scope), entity_type=entity_type, order=order, limit=limit
        )

    async def find_entity(self, name: str, *, scope: str | None = None) -> Entity:
        """The entity called ``name`` (or with that alias); the closest name if none is exact."""
        await self.core.open()
        return await find_entity(self.core.store, self.core._scope(scope), name)

    async def entity(
        self,
        name: str,
        *,
        limit: int | None = 50,
        scope: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> EntityView:
        """An entity with its relations and their evidence passages, heaviest first: those
        holding now, or at ``as_of`` (then without its description, which a later memory
        may have given), as the store knew them at ``known_at`` (the time rule:
        :mod:`loregraph.timepoint`)."""
        check_limit(limit)
        at = world_time(as_of)
        found = await self.find_entity(name, scope=scope)
        if as_of is not None or known_at is not None:
            found = replace(found, description="")
        relations = await self.core.store.entity_relations(found.id, limit=limit, at=at)
        relations = known_by(known_at, relations)
        other = {r.source_id for r in relations} | {r.target_id for r in relations}
        neighbours = {e.id: e for e in await self.core.store.get_entities(sorted(other))}
        return EntityView(found, relations, neighbours)

    async def relations(
        self,
        name: str,
        *,
        direction: Direction = "both",
        type: str | Sequence[str] | None = None,
        limit: int | None = None,
        as_of: datetime | None = None,
        scope: str | None = None,
        known_at: datetime | None = None,
    ) -> EntityRelations:
        """The relations of the entity called ``name``, outgoing (``out``), incoming (``in``)
        or both, of one type or several when ``type`` is given, heaviest first, each with
        the other end, confidence and evidence. Only relations true at ``as_of`` (default:
        now) that the store knew at ``known_at`` are listed (:mod:`loregraph.timepoint`).

        Raises :class:`~loregraph.errors.NotFoundError` (with close names) for an unknown
        name.
        """
        await self.core.open()
        entity = await find_entity(self.core.store, self.core._scope(scope), name)
        types = [type] if isinstance(type, str) else type
        at = world_time(as_of)
        found = await relations_of(
            self.core.store, entity, direction=direction, types=types, limit=limit, at=at
        )
        kept = {r.id for r in known_by(known_at, [link.relation for link in found.links])}
        found.links = [link for link in found.links if link.relation.id in kept]
        return found

    async def impact(
        self,
        name: str,
        *,
        hops: int = 3,
        limit: int = 100,
        as_of: datetime | None = None,
        scope: str | None = None,
    ) -> Impact:
        """What depends on the entity called ``name``, transitively, nearest first: its
        callers and theirs, the files that import it, its subclasses, the projects that
        depend on it (:mod:`loregraph.engine.impact`), within ``hops`` steps, at most
        ``limit`` entities, following relations true at ``as_of`` (default: now).

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown name and
        :class:`~loregraph.errors.InputError` for ``hops`` outside 1..10.
        """
        if not 1 <= hops <= MAX_IMPACT_HOPS:
            raise InputError(f"hops must be between 1 and {MAX_IMPACT_HOPS}, not {hops}")
        await self.core.open()
        scope = self.core._scope(scope)
        centre = await find_entity(self.core.store, scope, name)
        return await impact_of(
            self.core.store, centre, hops=hops, limit=limit, at=world_time(as_of)
        )

    async def code(
        self,
        question: str,
        *,
        limit: int = 5,
        budget: int = 2000,
        as_of: datetime | None = None,
        scope: str | None = None,
    ) -> CodeContext:
        """What a coding agent needs about ``question`` on an indexed repository, in one
        piece (:mod:`loregraph.engine.code_context`): the functions and classes it names or
        its best passages show (at most ``limit``), each at ``path:first-last`` with its
        code, container, callers and callees, then the documents and memories beside
        them; ``text`` holds it all as markdown within ``budget`` tokens.

        Raises :class:`~loregraph.errors.InputError` for a blank question."""
        if not question.strip():
            raise InputError("the question is empty; say what to look for in the code")
        check_limit(limit)
        check_budget(budget)
        retrieve = cast("Retrieves", self.core).retrieve
        result = await retrieve(question, scope=scope, as_of=as_of)
        scope = self.core._scope(scope)
        return await code_context(
            self.core.store, scope, question, result, limit=limit, budget=budget
        )

    async def neighbors(
        self,
        name: str,
        *,
        hops: int = 1,
        limit: int = 100,
        type: str | Sequence[str] | None = None,
        as_of: datetime | None = None,
        scope: str | None = None,
        known_at: datetime | None = None,
    ) -> Neighbourhood:
        """The entities within ``hops`` relations of the entity called ``name`` (at most
        ``limit``, following the heaviest relations first), each with its hop distance, and
        the relations joining them, following relations true at ``as_of`` (default: now)
        that the store knew at ``known_at`` (:mod:`loregraph.timepoint`). In a graph
        database the expansion runs there.

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown name and
        :class:`~loregraph.errors.InputError` for ``hops`` outside 1..6.
        """
        await self.core.open()
        scope = self.core._scope(scope)
        centre = await find_entity(self.core.store, scope, name)
        types = [type] if isinstance(type, str) else type
        at = world_time(as_of)
        found = await neighbourhood(
            self.core.store, scope, centre, hops=hops, limit=limit, types=types, at=at
        )
        if known_at is not None:
            found.relations = known_by(known_at, found.relations)
            ends = {r.source_id for r in found.relations} | {r.target_id for r in found.relations}
            ends.add(centre.id)
            found.entities = {k: e for k, e in found.entities.items() if k in ends}
            found.distance = {k: d for k, d in found.distance.items() if k in ends}
        return found

    async def history(
        self,
        name: str,
        other: str | None = None,
        *,
        type: str | Sequence[str] | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> History:
        """The timeline of the facts about the entity called ``name`` (only those joining
        it to ``other`` when given; of one type or several when ``type`` is given): every
        typed relation, current or ended, in the order they started, with when each held
        (``valid_at`` to ``invalid_at``), when the graph learnt and stopped believing it, its
        evidence, and the memory or document that ended it. With ``as_of`` or ``known_at``,
        only the facts begun by then and known then (:mod:`loregraph.timepoint`).

        Raises :class:`~loregraph.errors.NotFoundError` (with close names) for an unknown
        name.
        """
        await self.core.open()
        scope = self.core._scope(scope)
        entity = await find_entity(self.core.store, scope, name)
        partner = None if other is None else await find_entity(self.core.store, scope, other)
        types = [type] if isinstance(type, str) else type
        point = None if as_of is None and known_at is None else TimePoint(as_of, known_at)
        return await relation_history(self.core.store, entity, partner, types, point)

    async def path(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 3,
        limit: int = 5,
        type: str | Sequence[str] | None = None,
        as_of: datetime | None = None,
        scope: str | None = None,
        known_at: datetime | None = None,
    ) -> list[GraphPath]:
        """The shortest paths (at most ``limit``, heaviest first) of at most ``max_hops``
        relations true at ``as_of`` (default: now), known to the store at ``known_at``
        (:mod:`loregraph.timepoint`), between the entities called ``source`` and
        ``target``, each step with its relation type and an evidence sentence.

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown name or when no path
        of at most ``max_hops`` joins them, :class:`~loregraph.errors.InputError` when both
        names are one entity or ``max_hops`` is outside 1..6.
        """
        await self.core.open()
        scope = self.core._scope(scope)
        start = await find_entity(self.core.store, scope, source)
        end = await find_entity(self.core.store, scope, target)
        types = [type] if isinstance(type, str) else type
        at = world_time(as_of)
        found = await shortest_paths(
            self.core.store, scope, start, end, max_hops=max_hops, limit=limit, types=types, at=at
        )
        found = [p for p in found if len(known_by(known_at, p.relations)) == len(p.relations)]
        if not found:
            raise NotFoundError(
                f"no path between {start.name!r} and {end.name!r} within {max_hops} "
                f"hop{'s' if max_hops != 1 else ''}"
            )
        return found

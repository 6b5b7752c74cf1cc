"""Question analysis with conversation turns and a persona intent.

:class:`Routing` wraps the retriever's analyser. It runs, concurrently: the analyser, the
model's intent analysis when one is given (:class:`~.llm_intent.LLMIntentAnalyzer`; so it
runs while the question is embedded and searched) and the lookup of the entities the last
conversation turns name. A referring word of the question ("her", "that place") resolved
from the turns (:func:`~.intents.resolve_references`) is added to the analysis as a
mention of the entity it stands for, so retrieval starts from that entity. Without a model
the intent comes from the rules (:func:`~.intents.rule_route`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from loregraph.models import Entity
from loregraph.retrieve.question.analyze import analyze_query
from loregraph.retrieve.results.intents import (
    MAX_TURNS,
    TYPE_CATEGORY,
    IntentRoute,
    resolve_references,
    rule_route,
)
from loregraph.retrieve.results.result import QueryAnalysis
from loregraph.store.base import Store

BaseAnalyzer = Callable[..., Awaitable[QueryAnalysis]]
"""The retriever's analyser: ``(question, store, scope, *, nlp=None) -> QueryAnalysis``."""


class IntentRouter(Protocol):
    """A model's intent analysis (:class:`~.llm_intent.LLMIntentAnalyzer`)."""

    async def route(
        self, question: str, history: Sequence[str], store: Store, scope: str
    ) -> IntentRoute: ...


async def turn_entities(history: Sequence[str], store: Store, scope: str) -> list[list[Entity]]:
    """The stored entities each of the last turns names, in the order it names them."""
    turns = [t for t in history[-MAX_TURNS:] if t.strip()]
    analyses = await asyncio.gather(*(analyze_query(t, store, scope) for t in turns))
    ids = [list(dict.fromkeys(a.matched.values())) for a in analyses]
    flat = list(dict.fromkeys(i for turn in ids for i in turn))
    entities = {e.id: e for e in await store.get_entities(flat)} if flat else {}
    return [[entities[i] for i in turn if i in entities] for turn in ids]


class Routing:
    """An analyser that also resolves references from ``history`` and routes the question.

    The model's route (when a ``router`` is given) is asked for when the analysis starts
    and awaited only by :meth:`settle`, after the passages are searched: it runs while the
    question is embedded and searched. Without a model, ``route`` is set by the rules as
    soon as the analysis ends.
    """

    def __init__(
        self,
        base: BaseAnalyzer | None,
        history: Sequence[str] = (),
        router: IntentRouter | None = None,
    ) -> None:
        self.base: BaseAnalyzer = base or analyze_query
        self.history = tuple(history)
        self.router = router
        self.route: IntentRoute | None = None
        self._pending: asyncio.Future[IntentRoute] | None = None
        self._references: dict[str, Entity] = {}

    async def __call__(
        self, question: str, store: Store, scope: str, *, nlp: Any | None = None
    ) -> QueryAnalysis:
        """The base analysis, with the question's references resolved."""
        if self.router is not None:
            self._pending = asyncio.ensure_future(
                self.router.route(question, self.history, store, scope)
            )
            self._pending.add_done_callback(_retrieved)
        analysis, turns = await asyncio.gather(
            self.base(question, store, scope, nlp=nlp),
            turn_entities(self.history, store, scope),
        )
        ids = list(dict.fromkeys(analysis.matched.values()))
        named = await store.get_entities(ids) if ids else []
        references = resolve_references(question, turns, named)
        for entity in references.values():
            if entity.name not in analysis.matched:
                analysis.candidates.append(entity.name)
                analysis.matched[entity.name] = entity.id
        self._references = references
        if self._pending is None:
            self.route = rule_route(question, [*named, *references.values()])
            self.route.references = {w: e.name for w, e in references.items()}
        return analysis

    async def settle(self) -> IntentRoute:
        """The question's route: the model's once it has answered, else the rules'."""
        pending, self._pending = self._pending, None
        if pending is not None:
            route = await pending
            if route.source == "llm":
                _add_entities(route, self._references.values())
            route.references = {w: e.name for w, e in self._references.items()}
            self.route = route
        return self.route or IntentRoute()


def _retrieved(future: asyncio.Future[IntentRoute]) -> None:
    """Mark a failure as seen when the route is never awaited (the retrieval failed first)."""
    if not future.cancelled():
        future.exception()


def _add_entities(route: IntentRoute, entities: Sequence[Entity] | Any) -> None:
    """Add resolved entities the model did not list to its route."""
    for entity in entities:
        category = TYPE_CATEGORY.get(entity.type)
        if category is None or entity.name in route.entities.get(category, []):
            continue
        route.entities.setdefault(category, []).append(entity.name)
        route.entity_ids.setdefault(entity.name, entity.id)

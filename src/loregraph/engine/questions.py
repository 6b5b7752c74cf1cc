"""The question methods of the async engine: ``retrieve``, ``context``, ``ask`` and
``search`` (:class:`Questions`, the base of :class:`~loregraph.graph.AsyncGraph`).

Each takes the question, a retrieval ``preset``, a ``scope``, an ``as_of`` time (the
graph as it stood then) and ``only`` (``"memories"`` or ``"documents"``: retrieval kept to
one kind of source), and tells the engine's observers about the retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal, TypedDict, Unpack

from loregraph.access import Principal, Role
from loregraph.answer.extractive import nothing_found
from loregraph.answer.types import Answer
from loregraph.engine.core import EngineCore
from loregraph.engine.queries import world_time
from loregraph.engine.views import SearchKind, SearchResults, search_hits
from loregraph.errors import InputError
from loregraph.models import DocKind
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.personas.lens import PersonaLens
from loregraph.retrieve.personas.library import Persona, PersonaLibrary
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.retrieve.search.resilience import GraphStatus
from loregraph.settings import check_budget, check_limit
from loregraph.settings import preset as named_preset

if TYPE_CHECKING:
    pass

ContextFormat = Literal["markdown", "xml", "json", "mermaid"]
Only = Literal["memories", "documents"]
KINDS: dict[str, DocKind] = {"memories": DocKind.MEMORY, "documents": DocKind.DOCUMENT}


def only_kind(only: str | None) -> DocKind | None:
    """The document kind ``only`` names (``None``: both)."""
    if only is None:
        return None
    if only not in KINDS:
        raise InputError(f"only must be 'memories' or 'documents', not {only!r}")
    return KINDS[only]


def context_of(
    result: RetrievalResult, format: ContextFormat = "markdown", budget: int | None = None
) -> str:
    """The context :meth:`Questions.context` gives for a retrieval ``result`` (one
    saying nothing relevant was found when the result is not relevant)."""
    check_budget(budget)
    return assemble(result, format, budget).text


class Asking(TypedDict, total=False):
    """The options of a question (those of :meth:`Questions.retrieve`), passed on by
    ``context``, ``ask`` and ``ask_stream``."""

    preset: str | None
    scope: str | None
    as_of: datetime | None
    known_at: datetime | None
    show_ended: bool | None
    only: Only | None
    persona: str | Persona | None
    history: Sequence[str]
    linked_scopes: Sequence[str]
    conversation: str | None


class Questions(EngineCore):
    """Questions asked of the graph: passages, entities and relations, a context, an answer,
    ranked hits."""

    def graph_status(self) -> GraphStatus:
        """The graph layer's circuit breaker state (``closed``, ``open``: questions are
        answered from passages alone, ``half_open``) and its caches' hits and misses."""
        return self.parts.guard.status()

    _persona_library: PersonaLibrary | None = None

    def persona_library(self) -> PersonaLibrary:
        """The packaged personas and those of ``settings.personas_dir``."""
        if self._persona_library is None:
            self._persona_library = PersonaLibrary(self.settings.personas_dir)
        return self._persona_library

    async def personas(self) -> list[Persona]:
        """Every persona a question can be asked through, by name."""
        return [p for _, p in sorted(self.persona_library().all().items())]

    def _lens(
        self,
        persona: str | Persona | None,
        history: Sequence[str],
        linked_scopes: Sequence[str],
        scope: str,
    ) -> PersonaLens | None:
        if persona is None and not history:
            return None
        chosen = self.persona_library().get(persona) if isinstance(persona, str) else persona
        # the linked scopes are read as the principal asking reads them; the operator reads
        # them only as far as their links share them
        reader = self.principal or Principal(f"through links of {scope}", {scope: Role.READER})
        return PersonaLens(
            chosen,
            history=history,
            linked_scopes=linked_scopes,
            router=self.parts.intent_router(),
            graph=self.settings.graph_augmentation,
            linked_reader=self.seen_by(reader),
        )

    async def retrieve(
        self,
        question: str,
        *,
        preset: str | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        only: Only | None = None,
        conversation: str | None = None,
        known_at: datetime | None = None,
        show_ended: bool | None = None,
        persona: str | Persona | None = None,
        history: Sequence[str] = (),
        linked_scopes: Sequence[str] = (),
    ) -> RetrievalResult:
        """Ranked entities, relations, passages and documents for a question, as things
        stand now or, with ``as_of``, as they stood then: memories and documents of a later
        time are not seen, and passages stating only facts that did not hold then are left
        out; with ``known_at``, as the store knew them then (the time rule:
        :mod:`loregraph.timepoint`; content with no stated time is timeless); with
        ``only``, from memories or from documents alone. ``show_ended`` (default: the
        retrieval setting) lists the facts that have ended, marked as ended, instead of
        leaving them out.

        ``persona`` (a persona's name, or a :class:`Persona`) asks through it: the
        question's intent routes a graph traversal shaped by the persona, and passages rank
        by the combined score (:mod:`loregraph.retrieve.personas.lens`). ``history`` holds the last
        conversation turns (oldest first): "her" or "that place" in the question stands for
        the entity they named last. ``linked_scopes`` are scopes the persona may also read
        (default: those linked to ``scope``, each read as far as its link shares).
        ``conversation`` names the conversation a question belongs to: the names its
        questions resolved are remembered for the next (until the graph changes).
        """
        at = None if as_of is None else world_time(as_of)
        kind = only_kind(only)
        await self.open()
        settings = self.settings.retrieval
        if preset:
            settings = named_preset(preset).replace(show_ended=settings.show_ended)
        if show_ended is not None:
            settings = settings.replace(show_ended=show_ended)
        if not self.settings.graph_augmentation:
            settings = settings.without_graph()
        if persona is not None and not linked_scopes:
            # the scopes linked to this one: read only as far as their links share
            linked_scopes = [
                link.linked for link in await self.store.scope_links(self._scope(scope))
            ]
        lens = self._lens(persona, history, linked_scopes, self._scope(scope))
        retriever = Retriever(
            self.store,
            self.embedder,
            settings,
            analyzer=self.parts.analyzer(),
            guard=self.parts.guard,
            lens=lens,
            principal=self.principal,
        )
        result = await retriever.retrieve(
            question,
            self._scope(scope),
            as_of=at,
            kind=kind,
            conversation=conversation,
            known_at=known_at,
        )
        self.observers.retrieved(result)
        return result

    async def context(
        self,
        question: str,
        *,
        format: ContextFormat = "markdown",
        budget: int | None = None,
        **asking: Unpack[Asking],
    ) -> str:
        """A token-budgeted context for an LLM prompt, in the chosen format; ``asking``
        holds the options of :meth:`retrieve` (preset, scope, as_of, known_at, only, persona,
        history, linked_scopes).

        When nothing in the store is relevant to the question, the context says so (in the
        chosen format) instead of listing unrelated passages. With a ``persona``, the
        markdown and JSON contexts are budgeted by category
        (:mod:`loregraph.retrieve.context.category_budget`).
        """
        check_budget(budget)
        result = await self.retrieve(question, **asking)
        return context_of(result, format, budget)

    async def ask(self, question: str, **asking: Unpack[Asking]) -> Answer:
        """Answer a question with citations. With no LLM configured the answer is extractive;
        ``asking`` holds the options of :meth:`retrieve`.

        When nothing in the store is relevant to the question, the answer says so
        (``Answer.found`` is ``False``) and no language model is asked. With a ``persona``,
        a model answers under the persona's system prompt.
        """
        result = await self.retrieve(question, **asking)
        if not result.relevant:
            return nothing_found(result)
        return await self.parts.answerer().answer(result)

    async def search(
        self,
        query: str,
        *,
        kind: SearchKind = "documents",
        limit: int = 10,
        preset: str | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        only: Only | None = None,
        known_at: datetime | None = None,
    ) -> SearchResults:
        """Ranked documents, entities or relations for a query, never withheld: each hit
        says how much of the query it covers and whether it is about it, and the results
        say whether the best passages, read together, are about the query (``relevant``,
        ``relevance``; see :class:`~loregraph.engine.views.SearchResults`)."""
        check_limit(limit)
        result = await self.retrieve(
            query, preset=preset, scope=scope, as_of=as_of, only=only, known_at=known_at
        )
        return search_hits(result, kind, limit)

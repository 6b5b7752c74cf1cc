"""The question methods of the async engine: ``retrieve``, ``context``, ``ask`` and
``search`` (:class:`QuestionMethods`, a base of :class:`~loregraph.graph.AsyncGraph`).

Each takes the question, a retrieval ``preset``, a ``scope``, an ``as_of`` time (the
graph as it stood then) and ``only`` (``"memories"`` or ``"documents"``: retrieval kept to
one kind of source), and tells the engine's observers about the retrieval.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal

from loregraph.answer.extractive import nothing_found
from loregraph.answer.types import Answer
from loregraph.engine.queries import world_time
from loregraph.engine.views import SearchHit, SearchKind, search_hits
from loregraph.errors import InputError
from loregraph.models import DocKind
from loregraph.retrieve.formats import format_context
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.resilience import GraphStatus
from loregraph.retrieve.result import RetrievalResult
from loregraph.settings import Settings, check_budget, check_limit
from loregraph.settings import preset as named_preset
from loregraph.store.base import Store

if TYPE_CHECKING:
    from loregraph.embed.base import Embedder
    from loregraph.engine.parts import Parts
    from loregraph.observe import Observers

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
    """The context :meth:`QuestionMethods.context` gives for a retrieval ``result`` (one
    saying nothing relevant was found when the result is not relevant)."""
    check_budget(budget)
    if not result.relevant:
        from loregraph.retrieve.nothing import nothing_relevant_context

        return nothing_relevant_context(result, format)
    return format_context(result, format, budget)


class QuestionMethods:
    """Questions asked of the graph: passages, entities and relations, a context, an answer,
    ranked hits."""

    store: Store
    settings: Settings
    parts: Parts
    observers: Observers

    if TYPE_CHECKING:

        def _scope(self, scope: str | None) -> str: ...

        async def open(self) -> None: ...

        @property
        def embedder(self) -> Embedder: ...

    def graph_status(self) -> GraphStatus:
        """The graph layer's circuit breaker state (``closed``, ``open``: questions are
        answered from passages alone, ``half_open``) and its caches' hits and misses."""
        return self.parts.guard.status()

    async def retrieve(
        self,
        question: str,
        *,
        preset: str | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        only: Only | None = None,
        conversation: str | None = None,
    ) -> RetrievalResult:
        """Ranked entities, relations, passages and documents for a question, as things
        stand now or, with ``as_of``, as they stood then: memories and documents of a later
        time are not seen, and passages stating only facts that did not hold then are left
        out; with ``only``, from memories or from documents alone. ``conversation`` names
        the conversation a question belongs to: the names its questions resolved are
        remembered for the next (until the graph changes). Raises
        :class:`~loregraph.errors.InputError` for an ``as_of`` in the future."""
        at = None if as_of is None else world_time(as_of)
        kind = only_kind(only)
        await self.open()
        settings = named_preset(preset) if preset else self.settings.retrieval
        if not self.settings.graph_augmentation:
            settings = settings.without_graph()
        retriever = Retriever(
            self.store,
            self.embedder,
            settings,
            analyzer=self.parts.analyzer(),
            guard=self.parts.guard,
        )
        result = await retriever.retrieve(
            question, self._scope(scope), as_of=at, kind=kind, conversation=conversation
        )
        self.observers.retrieved(result)
        return result

    async def context(
        self,
        question: str,
        *,
        format: ContextFormat = "markdown",
        preset: str | None = None,
        budget: int | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        only: Only | None = None,
        conversation: str | None = None,
    ) -> str:
        """A token-budgeted context for an LLM prompt, in the chosen format.

        When nothing in the store is relevant to the question, the context says so (in the
        chosen format) instead of listing unrelated passages.
        """
        check_budget(budget)
        result = await self.retrieve(
            question, preset=preset, scope=scope, as_of=as_of, only=only, conversation=conversation
        )
        return context_of(result, format, budget)

    async def ask(
        self,
        question: str,
        *,
        preset: str | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        only: Only | None = None,
        conversation: str | None = None,
    ) -> Answer:
        """Answer a question with citations. With no LLM configured the answer is extractive.

        When nothing in the store is relevant to the question, the answer says so
        (``Answer.found`` is ``False``) and no language model is asked.
        """
        result = await self.retrieve(
            question, preset=preset, scope=scope, as_of=as_of, only=only, conversation=conversation
        )
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
    ) -> list[SearchHit]:
        """Ranked documents, entities or relations for a query.

        Returns no hits when nothing in the store is relevant to the query (see
        :attr:`~loregraph.retrieve.result.RetrievalResult.relevant`).
        """
        check_limit(limit)
        result = await self.retrieve(query, preset=preset, scope=scope, as_of=as_of, only=only)
        return search_hits(result, kind, limit) if result.relevant else []

"""What a retrieval through a persona adds to its result: how each passage was found.

:class:`PersonaReport` is :attr:`RetrievalResult.persona` when a persona was given: the
persona's name and system prompt, the question's route (intent, entities by category),
the relationship map's lines, and for each passage a :class:`PassageSource` saying which
category of the context it belongs to (``primary``: found by the question's words or
meaning; ``graph``: found only by the graph traversal or in a linked scope), how it was
found and, for a passage of a linked scope, through which link it was shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.retrieve.results.intents import IntentRoute
from loregraph.serial import Record

Category = Literal["primary", "graph"]


@dataclass(slots=True)
class PassageSource(Record):
    """How one passage was found: its context category, its finders in words, its scores."""

    category: Category
    matched_by: list[str] = field(default_factory=list)
    scope: str = ""
    shared_via: str | None = None
    embedding_score: float | None = None
    graph_score: float | None = None

    def marker(self) -> str:
        """The provenance line the context shows under the passage."""
        origin = f"linked scope {self.scope}" if self.shared_via else "this scope"
        text = f"Source: {origin}, matched by: {' + '.join(self.matched_by) or 'search'}"
        if self.shared_via:
            text += f"; shared via: {self.shared_via}"
        return text


@dataclass(slots=True)
class PersonaReport:
    """The persona side of a retrieval (see the module docstring)."""

    persona: str
    system_prompt: str
    route: IntentRoute
    relationship_map: list[str] = field(default_factory=list)
    sources: dict[str, PassageSource] = field(default_factory=dict)
    linked_scopes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data: persona, intent, entities by category, references, map, sources."""
        route = self.route
        return {
            "persona": self.persona,
            "intent": route.intent,
            "intent_source": route.source,
            "confidence": route.confidence,
            "entities": {k: list(v) for k, v in route.entities.items()},
            "period": list(route.period) if route.period else None,
            "references": dict(route.references),
            "relationship_map": list(self.relationship_map),
            "linked_scopes": list(self.linked_scopes),
            "sources": {k: v.to_dict() for k, v in self.sources.items()},
        }

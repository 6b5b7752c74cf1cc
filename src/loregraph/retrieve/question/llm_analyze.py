"""Query analysis with an LLM, falling back to the offline analysis.

:class:`LLMQueryAnalyzer` has the call signature of
:func:`~loregraph.retrieve.question.analyze.analyze_query`, so the retriever runs it where it runs
the offline analysis: concurrently with embedding the question (intent analysis
in parallel with vector search). It runs the offline analysis and the model together and
returns an :class:`LLMQueryAnalysis` (a :class:`~loregraph.retrieve.results.result.QueryAnalysis`):

* the model classifies the intent as one of ``factual``, ``relationship``,
  ``summary``, ``exploration`` (or, with ``persona=True``, the people-centred ``relational``,
  ``temporal``, ``spatial``, ``entity_focused``, ``general``, ``cross_legacy``, mapped to
  the four for retrieval and kept in ``persona_intent``) and lists the entities the
  question names; entities whose words are not all in the question are ignored;
* when the call fails, times out, or the model's confidence is below ``min_confidence``
  (default 0.5), the offline analysis is returned unchanged, with ``fallback_reason``;
* otherwise the model's intent replaces the rule-based one and its entities are added to
  the candidates (and matched exactly against the store in one lookup).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from loregraph.llm.client import LLMClient
from loregraph.llm.parse import ParsedJSON
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.stage import QuickStage
from loregraph.models import name_key
from loregraph.retrieve.question.analyze import analyze_query
from loregraph.retrieve.question.llm_reply import (
    reply_confidence,
    reply_intent,
    reply_names,
    reply_object,
)
from loregraph.retrieve.results.result import Intent, QueryAnalysis
from loregraph.store.base import Store

STAGE = "query.analyze"

INTENTS: dict[str, str] = {
    "factual": "a specific fact about an entity (who, what, when, where)",
    "relationship": "how two or more entities are connected",
    "summary": "an overview of one entity or topic",
    "exploration": "open-ended discovery of related information",
}
"""The four intents and what each means."""

PERSONA_INTENTS: dict[str, tuple[str, Intent]] = {
    "relational": ("relationships between people", "relationship"),
    "temporal": ("a time period or a sequence of events", "factual"),
    "spatial": ("a place or location", "factual"),
    "entity_focused": ("a specific thing or event", "summary"),
    "general": ("open-ended, no specific focus", "exploration"),
    "cross_legacy": ("another person's perspective or other collections", "exploration"),
}
"""The people-centred intents: description and the intent of the four that retrieval uses."""


@dataclass(slots=True)
class LLMQueryAnalysis(QueryAnalysis):
    """A :class:`QueryAnalysis` with what the model said.

    ``source`` is ``llm`` when the model's answer was used, ``offline`` when the analysis
    fell back (``fallback_reason`` says why).
    """

    source: Literal["llm", "offline"] = "offline"
    persona_intent: str | None = None
    confidence: float = 0.0
    llm_entities: list[str] = field(default_factory=list)
    fallback_reason: str | None = None


@dataclass(slots=True)
class _Reply:
    intent: str
    entities: list[str]
    confidence: float


def _schema(intents: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "intent": {"type": "string", "enum": intents},
            "entities": {"type": "array", "items": {"type": "string"}},
            "confidence": {"type": "number"},
        },
        "required": ["intent", "entities", "confidence"],
    }


def _in_question(entity: str, question: str) -> bool:
    words = name_key(entity).split()
    present = set(name_key(question).split())
    return bool(words) and all(w in present for w in words)


class LLMQueryAnalyzer(QuickStage):
    """Analyses questions with a model; see the module docstring.

    Args:
        client: the model client.
        prompts: prompt library (``query_analysis`` prompt).
        persona: classify with the people-centred intents.
        min_confidence: below this the offline analysis is used (default 0.5).
        timeout: seconds for the call (no retries: a question should not wait).
        structured: send the JSON schema as a response format.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        persona: bool = False,
        min_confidence: float = 0.5,
        timeout: float = 20.0,
        structured: bool = True,
    ) -> None:
        super().__init__(
            client,
            prompts=prompts,
            min_confidence=min_confidence,
            timeout=timeout,
            structured=structured,
        )
        self.persona = persona

    @property
    def intents(self) -> dict[str, str]:
        """The intents the model chooses from, with descriptions."""
        if self.persona:
            return {name: desc for name, (desc, _) in PERSONA_INTENTS.items()}
        return dict(INTENTS)

    async def __call__(
        self, question: str, store: Store, scope: str, *, nlp: Any | None = None
    ) -> LLMQueryAnalysis:
        """Analyse ``question`` (model and offline analysis run concurrently)."""
        offline, reply = await asyncio.gather(
            analyze_query(question, store, scope, nlp=nlp), self._ask(question)
        )
        result = LLMQueryAnalysis(
            question=offline.question,
            intent=offline.intent,
            candidates=list(offline.candidates),
            matched=dict(offline.matched),
            keywords=list(offline.keywords),
            used_spacy=offline.used_spacy,
        )
        if isinstance(reply, str):
            result.fallback_reason = reply
            return result
        result.confidence = reply.confidence
        result.llm_entities = list(reply.entities)
        if reply.confidence < self.min_confidence:
            result.fallback_reason = (
                f"the model was unsure (confidence {reply.confidence:.2f} < "
                f"{self.min_confidence:.2f})"
            )
            return result
        result.source = "llm"
        if self.persona:
            result.persona_intent = reply.intent
            result.intent = PERSONA_INTENTS[reply.intent][1]
        else:
            result.intent = reply.intent  # type: ignore[assignment]  # validated
        known = {name_key(c) for c in result.candidates}
        extra = [e for e in reply.entities if name_key(e) and name_key(e) not in known]
        if extra:
            found = await store.find_entities_by_key(scope, [name_key(e) for e in extra])
            for entity in extra:
                result.candidates.append(entity)
                hit = found.get(name_key(entity))
                if hit is not None:
                    result.matched.setdefault(entity, hit.id)
        return result

    async def _ask(self, question: str) -> _Reply | str:
        """The model's reply, or a string saying why there is none."""
        names = list(self.intents)
        listing = "\n".join(f"- {name}: {desc}" for name, desc in self.intents.items())

        def validate(parsed: ParsedJSON) -> _Reply:
            value = reply_object(parsed.value, "intent and entities")
            intent = reply_intent(value, names)
            entities = reply_names(value.get("entities") or [], "entities")
            entities = [e for e in entities if _in_question(e, question)]
            return _Reply(intent, list(dict.fromkeys(entities)), reply_confidence(value))

        messages = self.prompts.messages(
            "query_analysis", question=question, intents=listing, first_intent=names[0]
        )
        return await self.ask_quickly(
            "query_analysis",
            messages,
            schema=_schema(names),
            validate=validate,
            stage=STAGE,
            max_tokens=1024,
            temperature=0.1,
        )

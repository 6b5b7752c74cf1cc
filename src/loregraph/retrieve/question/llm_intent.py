"""A question's persona intent and entities by category, from a model.

:class:`LLMIntentAnalyzer` asks the model (prompt ``intent_analysis``) for one of the six
intents of :mod:`loregraph.retrieve.results.intents`, the entities by category (people, places,
time periods, events, objects) and a confidence, giving it the last conversation turns so
that "her" or "that place" can be named. The names are looked up in the store in one
call. When the call fails or the confidence is below ``min_confidence`` (0.5), the route
is ``general`` with no entities (``source="fallback"``, ``reason`` says why). It runs while
the question is embedded and searched (:class:`~loregraph.retrieve.question.routing.Routing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from loregraph.llm.parse import ParsedJSON
from loregraph.llm.stage import QuickStage
from loregraph.models import name_key
from loregraph.retrieve.question.llm_reply import (
    reply_confidence,
    reply_intent,
    reply_names,
    reply_object,
)
from loregraph.retrieve.results.intents import (
    ENTITY_CATEGORIES,
    INTENT_NAMES,
    MAX_TURNS,
    IntentRoute,
    PersonaIntent,
    question_period,
    relation_words,
)
from loregraph.store.base import Store

STAGE = "query.intent"


@dataclass(slots=True)
class _Reply:
    intent: PersonaIntent
    entities: dict[str, list[str]]
    confidence: float


def _schema() -> dict[str, Any]:
    names = {"type": "array", "items": {"type": "string"}}
    return {
        "type": "object",
        "properties": {
            "intent": {"type": "string", "enum": list(INTENT_NAMES)},
            "entities": {
                "type": "object",
                "properties": dict.fromkeys(ENTITY_CATEGORIES, names),
            },
            "confidence": {"type": "number"},
        },
        "required": ["intent", "entities", "confidence"],
    }


def _validate(parsed: ParsedJSON) -> _Reply:
    value = reply_object(parsed.value, "intent, entities, confidence")
    intent = cast(PersonaIntent, reply_intent(value, INTENT_NAMES))  # one of INTENT_NAMES
    raw = value.get("entities") or {}
    if not isinstance(raw, dict):
        raise ValueError("entities must be an object of lists by category")
    entities: dict[str, list[str]] = {}
    for category in ENTITY_CATEGORIES:
        names = reply_names(raw.get(category) or [], f"entities.{category}")
        if names:
            entities[category] = list(dict.fromkeys(names))
    return _Reply(intent, entities, reply_confidence(value))


class LLMIntentAnalyzer(QuickStage):
    """Routes questions with a model; see the module docstring.

    Args:
        client: the model client.
        prompts: prompt library (``intent_analysis`` prompt).
        min_confidence: below this the route is ``general`` (default 0.5).
        timeout: seconds for the call (no retries: a question should not wait).
        structured: send the JSON schema as a response format.
    """

    async def route(
        self, question: str, history: Sequence[str], store: Store, scope: str
    ) -> IntentRoute:
        """The model's route for ``question`` (``general`` when it fails or is unsure)."""
        reply = await self._ask(question, history)
        if isinstance(reply, str):
            return IntentRoute(confidence=0.0, source="fallback", reason=reply)
        if reply.confidence < self.min_confidence:
            low = f"{reply.confidence:.2f} < {self.min_confidence:.2f}"
            why = f"the model was unsure (confidence {low})"
            return IntentRoute(confidence=reply.confidence, source="fallback", reason=why)
        names = [n for c in ENTITY_CATEGORIES for n in reply.entities.get(c, [])]
        keys = sorted({name_key(n) for n in names} - {""})
        found = await store.find_entities_by_key(scope, keys) if keys else {}
        ids = {n: found[name_key(n)].id for n in names if name_key(n) in found}
        periods = " ".join(reply.entities.get("time_periods", []))
        return IntentRoute(
            intent=reply.intent,
            entities=reply.entities,
            entity_ids=ids,
            period=question_period(f"{question} {periods}"),
            confidence=reply.confidence,
            source="llm",
            relation_words=relation_words(question),
        )

    async def _ask(self, question: str, history: Sequence[str]) -> _Reply | str:
        """The model's reply, or a string saying why there is none."""
        turns = [t.strip() for t in history[-MAX_TURNS:] if t.strip()]
        listing = "\n".join(f"- {t}" for t in turns) or "(none)"
        messages = self.prompts.messages("intent_analysis", question=question, history=listing)
        return await self.ask_quickly(
            "intent_analysis", messages, schema=_schema(), validate=_validate, stage=STAGE,
            max_tokens=512,
        )  # fmt: skip

"""LLM confirmation of borderline entity merges.

:class:`LLMMergeConfirmer` is a :data:`~loregraph.ingest.resolve.entities.Confirm` callable: the
resolver asks it about every fuzzy or embedding match (never about exact ones). The model
says whether the two records denote one entity; a ``same`` answer with confidence below
``min_confidence`` counts as "no". When the call fails the rule's own decision stands
(``on_error``, default True: the string/embedding rule already judged them alike), and
the failure is counted.
"""

from __future__ import annotations

from typing import Any

from loregraph.ingest.types import CandidateEntity
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMError
from loregraph.llm.parse import ParsedJSON
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.stage import LLMStage
from loregraph.models import Entity
from loregraph.text.entity_types import normalize_type

STAGE = "resolve.confirm"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "same": {"type": "boolean"},
        "confidence": {"type": "number"},
        "reason": {"type": "string"},
    },
    "required": ["same", "confidence"],
}


def _verdict(parsed: ParsedJSON) -> tuple[bool, float]:
    value = parsed.value
    if not isinstance(value, dict) or "same" not in value:
        raise ValueError('the reply must be a JSON object with "same" (true or false)')
    same = value["same"]
    if isinstance(same, str):
        same = same.strip().casefold() in ("true", "yes")
    try:
        confidence = float(value.get("confidence", 1.0))
    except (TypeError, ValueError):
        raise ValueError("confidence must be a number between 0 and 1") from None
    return bool(same), confidence


class LLMMergeConfirmer(LLMStage):
    """Asks the model whether a candidate and a stored entity are the same.

    Args:
        client: the model client.
        prompts: prompt library (``merge_confirm`` prompt).
        min_confidence: a "same" verdict below this is treated as "different".
        on_error: the decision when the model cannot be asked.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        min_confidence: float = 0.7,
        on_error: bool = True,
        structured: bool = True,
    ) -> None:
        super().__init__(client, prompts=prompts, structured=structured)
        self.min_confidence = min_confidence
        self.on_error = on_error

    async def __call__(self, candidate: CandidateEntity, entity: Entity) -> bool:
        """True when the two should merge."""
        aliases = f" (also called {', '.join(entity.aliases[:8])})" if entity.aliases else ""
        messages = self.prompts.messages(
            "merge_confirm",
            a_name=candidate.name,
            a_type=normalize_type(candidate.type),
            a_description=candidate.description or "no description",
            b_name=entity.name,
            b_type=entity.type,
            b_description=entity.description or "no description",
            b_aliases=aliases,
        )
        try:
            outcome = await self.ask_json(
                messages,
                schema=SCHEMA,
                schema_name="merge_decision",
                validate=_verdict,
                stage=STAGE,
                max_tokens=256,
            )
        except LLMError:
            return self.on_error
        same, confidence = outcome.value
        decision = same and confidence >= self.min_confidence
        self.client.usage.count(STAGE, merges_confirmed=int(decision), merges_rejected=1 - decision)
        return decision

"""The LLM contradiction check: which current facts the new facts of a memory or document
contradict.

:class:`LLMContradictionCheck` is a :data:`~loregraph.ingest.facts.supersede.Contradict`
callable, asked once per memory or document
(:func:`loregraph.ingest.facts.supersede.plan_invalidations`): its new facts and the
current facts about the same entities are numbered, and the model names the pairs
``(new, current)`` that cannot hold together. A reply that is not the JSON asked for is
repaired or asked again (:mod:`loregraph.llm.structured`); a pair naming a number that was
not given is ignored. When the model cannot be asked, nothing is ended by it (the offline
rules still apply) and the failure is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from loregraph.ingest.facts.supersede import FactLine
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMError
from loregraph.llm.parse import ParsedJSON
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.stage import LLMStage

STAGE = "ingest.contradiction"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "contradictions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"new": {"type": "integer"}, "current": {"type": "integer"}},
                "required": ["new", "current"],
            },
        }
    },
    "required": ["contradictions"],
}


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def pairs_from(parsed: ParsedJSON, new: int, current: int) -> list[tuple[int, int]]:
    """The pairs of a reply (numbered from 1 in the prompt; from 0 here), those naming a
    number not given left out. Raises :class:`ValueError` for a reply of another shape."""
    value = parsed.value
    if isinstance(value, list):
        value = {"contradictions": value}
    if not isinstance(value, dict) or not isinstance(value.get("contradictions"), list):
        raise ValueError('the reply must be a JSON object with a "contradictions" list')
    out: list[tuple[int, int]] = []
    for item in value["contradictions"]:
        if not isinstance(item, dict):
            continue
        i, j = _number(item.get("new")), _number(item.get("current"))
        if i is not None and j is not None and 1 <= i <= new and 1 <= j <= current:
            out.append((i - 1, j - 1))
    return list(dict.fromkeys(out))


class LLMContradictionCheck(LLMStage):
    """Asks the model which current facts new facts contradict (``contradiction`` prompt)."""

    def __init__(
        self, client: LLMClient, *, prompts: PromptLibrary | None = None, structured: bool = True
    ) -> None:
        super().__init__(client, prompts=prompts, structured=structured)

    async def __call__(
        self, new: Sequence[FactLine], current: Sequence[FactLine], time: datetime
    ) -> list[tuple[int, int]]:
        """The contradicted pairs (indexes into ``new`` and ``current``)."""
        if not new or not current:
            return []
        messages = self.prompts.messages(
            "contradiction",
            time=time.date().isoformat(),
            new_facts="\n".join(f"{i}. {fact.text()}" for i, fact in enumerate(new, 1)),
            current_facts="\n".join(f"{j}. {fact.text()}" for j, fact in enumerate(current, 1)),
        )
        try:
            outcome = await self.ask_json(
                messages,
                schema=SCHEMA,
                schema_name="contradictions",
                validate=lambda parsed: pairs_from(parsed, len(new), len(current)),
                stage=STAGE,
                max_tokens=512,
            )
        except LLMError:
            self.client.usage.count(STAGE, contradiction_checks_failed=1)
            return []
        found = outcome.value
        self.client.usage.count(STAGE, contradictions=len(found))
        return found

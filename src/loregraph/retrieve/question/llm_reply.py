"""Reading the fields of a model's question-analysis reply: intent, names, confidence.

Both LLM question analysers (:mod:`loregraph.retrieve.question.llm_analyze` and
:mod:`loregraph.retrieve.question.llm_intent`) ask for an intent out of a fixed list, names, and a
confidence; these readers check each field and raise :class:`ValueError` naming what is
wrong, which the LLM stage turns into a repair request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def reply_object(value: Any, fields: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object; ``fields`` names what it must hold."""
    if not isinstance(value, dict):
        raise ValueError(f"the reply must be a JSON object with {fields}")
    return value


def reply_intent(value: Mapping[str, Any], names: Sequence[str]) -> str:
    """The reply's intent, case-folded with spaces as underscores; one of ``names``."""
    intent = str(value.get("intent", "")).strip().casefold().replace(" ", "_")
    if intent not in names:
        raise ValueError(f"intent must be one of {', '.join(names)}, got {intent!r}")
    return intent


def reply_names(items: Any, what: str) -> list[str]:
    """The non-empty names of a JSON list (strings or numbers), stripped, in order;
    ``what`` names the field in the error."""
    if not isinstance(items, list):
        raise ValueError(f"{what} must be a list of names")
    return [str(i).strip() for i in items if isinstance(i, str | int) and str(i).strip()]


def reply_confidence(value: Mapping[str, Any]) -> float:
    """The reply's confidence, 1.0 when absent, clamped to [0, 1]."""
    try:
        confidence = float(value.get("confidence", 1.0))
    except (TypeError, ValueError):
        raise ValueError("confidence must be a number between 0 and 1") from None
    return max(0.0, min(confidence, 1.0))

"""The context of a question nothing in the store is relevant to, in every format.

It says so plainly instead of handing an LLM unrelated passages to build an answer from.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from loregraph.retrieve.context.formats import renderer_for
from loregraph.retrieve.results.result import RetrievalResult

NOTHING_RELEVANT = "Nothing in the store is relevant to this question."


def nothing_relevant_context(result: RetrievalResult, fmt: str = "markdown") -> str:
    """The context for ``result`` when it is not relevant, in format ``fmt``.

    Raises :class:`~loregraph.errors.ConfigError` for an unknown format.
    """
    renderer_for(fmt)  # validates the format name
    if fmt == "json":
        payload = {
            "question": result.question,
            "scope": result.scope,
            "preset": result.preset,
            "relevant": False,
            "message": NOTHING_RELEVANT,
            "analysis": asdict(result.analysis),
            "start_entities": [],
            "entities": [],
            "relations": [],
            "passages": [],
            "documents": [],
            "truncated": False,
            "debug": result.debug,
        }
        return json.dumps(payload, ensure_ascii=False, indent=1, default=str)
    if fmt == "xml":
        return f"<nothing-relevant>{NOTHING_RELEVANT}</nothing-relevant>\n"
    if fmt == "mermaid":
        return f"graph TD\n    %% {NOTHING_RELEVANT}\n"
    return f"## Knowledge Graph Context\n\n{NOTHING_RELEVANT}\n"

"""The one place a context is written from a retrieval: what ``context`` returns and what
``ask`` gives a language model are the same text, made here.

* Nothing relevant: a context that says so (:mod:`.nothing`), with no passages.
* Asked through a persona, in Markdown or JSON: the passages by relationship category
  (:mod:`.category_budget`); other formats keep their own layout.
* Otherwise: the passages, entities and relations fitted to the token budget
  (:mod:`.budget`) and written in the format asked for (:mod:`.formats`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from loregraph.retrieve.context.budget import fit_budget
from loregraph.retrieve.context.category_budget import persona_context
from loregraph.retrieve.context.formats import renderer_for
from loregraph.retrieve.context.nothing import nothing_relevant_context
from loregraph.retrieve.results.result import Passage, RetrievalResult

PERSONA_FORMATS = ("markdown", "json")
"""The formats of a persona's context by category (the others keep their own layout)."""


@dataclass(slots=True)
class Context:
    """A context's text and the passages it shows, numbered as it numbers them."""

    text: str
    passages: list[Passage] = field(default_factory=list)


def assemble(result: RetrievalResult, fmt: str = "markdown", budget: int | None = None) -> Context:
    """The context of ``result`` in ``fmt`` within ``budget`` tokens (default: the
    result's own budget), as the module docstring describes."""
    limit = result.token_budget if budget is None else budget
    if not result.relevant:
        return Context(nothing_relevant_context(result, fmt))
    if result.persona is not None and fmt in PERSONA_FORMATS:
        passages, text = persona_context(result, fmt, limit)
        return Context(text, passages)
    view, text = fit_budget(result, renderer_for(fmt), limit)
    return Context(text, list(view.passages))

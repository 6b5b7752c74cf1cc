"""The offline answer to a question a roll call answers: the people, each with evidence.

A roll call (:mod:`loregraph.retrieve.rollcall`) holds the sentence announcing a set of
people by its number and, for each person of the set the rest of the section names, a
sentence naming them. The answer names the people, the most named first, each with the
number of the sentence quoted for them, then quotes the sentences in document order:
"Named in the evidence: Arthur Holmwood [3]; Quincey Morris [4]; Dr. Seward [2]."
"""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.retrieve.result import Passage, RollCall

NAMED_LEAD = "Named in the evidence:"
"""What opens the list of names an answer gives before its quotes."""


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence an answer quotes: its text, at ``start``/``end`` in the document, cited
    from ``passage``."""

    passage: Passage
    text: str
    start: int
    end: int


def called(call: RollCall, max_sentences: int) -> tuple[list[Quote], str]:
    """The quotes (in document order) and the lead naming the people of ``call``: the
    announcing sentence and each member's, at most ``max_sentences``; the announcing
    sentence is dropped first when there is no room for it. A sentence naming two members
    is quoted once."""
    members = call.members[:max_sentences]
    spans = {(m.start, m.end): Quote(m.passage, m.text, m.start, m.end) for m in members}
    if len(spans) < max_sentences:
        announced = Quote(call.passage, call.text, call.start, call.end)
        spans.setdefault((call.start, call.end), announced)
    order = sorted(spans)
    quotes = [spans[span] for span in order]
    named = [f"{m.entity.name} [{order.index((m.start, m.end)) + 1}]" for m in members]
    return quotes, named_lead(named)


def named_lead(items: list[str]) -> str:
    """The line naming ``items`` (names with their citation numbers) before an answer's
    quotes: "Named in the evidence: Dr. Seward [2]; Quincey Morris [4]."."""
    return f"{NAMED_LEAD} {'; '.join(items)}."

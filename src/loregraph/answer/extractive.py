"""The offline answer: the best evidence sentences of the retrieved passages, quoted verbatim.

With no LLM configured, loregraph does not paraphrase: it picks the sentences of the top
passages that best match the question (its keywords, the entities it names, the relation
facts retrieved, and what the answer must hold: a name for "who"/"which"/"where", a number
for "how many"/"when"), drops the repeats that overlapping chunks produce, and quotes them
in document order, each with a numbered citation giving its document and character offsets.

A question asking for a name is answered first with the entities the quoted sentences name
("Named in the evidence: Dr. Seward [1]; Quincey Morris [2]."); when no quoted sentence
holds what the question asks for, the answer says so before quoting the closest evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.answer.evidence import Candidate, Scorer, candidates
from loregraph.answer.types import Answer, Citation
from loregraph.retrieve.results.result import Passage, RetrievalResult
from loregraph.retrieve.temporal.ended import LATER

__all__ = ["Answer", "Citation", "extractive_answer", "nothing_found"]

NO_LLM = "No LLM is configured, so this answer quotes the most relevant passages."
NOTHING_FOUND = "Nothing in the store answers this question."
NOT_STATED = "The passages found do not state this directly; the closest evidence follows."

SELECTION_POOL = 40
MIN_RELATIVE_SCORE = 0.3
"""A further sentence must score at least this fraction of the first one."""
DUPLICATE_JACCARD = 0.8
MAX_NAMED = 6
NAMED_LEAD = "Named in the evidence:"
"""What opens the list of names an answer gives before its quotes."""
CHANGED_LEAD = "Changed:"
"""What opens the line that says which of the question's facts changed, and to what."""
ENDED_NOTE = "No longer current:"
"""What opens the note after the quotes on facts that ended with nothing known in their
place."""
MAX_CHANGES = 3


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence an answer quotes: its text, at ``start``/``end`` in the document, cited
    from ``passage``."""

    passage: Passage
    text: str
    start: int
    end: int


def _is_duplicate(cand: Candidate, chosen: list[Candidate]) -> bool:
    for other in chosen:
        if cand.passage.document_id == other.passage.document_id and (
            cand.doc_start < other.doc_end and other.doc_start < cand.doc_end
        ):
            return True
        union = cand.words | other.words
        if union and len(cand.words & other.words) / len(union) >= DUPLICATE_JACCARD:
            return True
    return False


def _select(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """Greedy: the best sentence, then the best given what is already covered, no repeats;
    stop at ``limit`` or when the next one scores far below the first."""
    chosen: list[Candidate] = []
    covered: set[str] = set()
    pool = sorted(candidates, key=lambda c: -c.score(covered))[:SELECTION_POOL]
    first = 0.0
    while pool and len(chosen) < limit:
        at = max(
            range(len(pool)),
            key=lambda i: (pool[i].score(covered), -pool[i].passage_rank, -pool[i].start),
        )
        score = pool[at].score(covered)
        if chosen and score < MIN_RELATIVE_SCORE * first:
            break  # what is left adds little: a shorter answer reads better
        first = first or score
        best = pool.pop(at)
        if _is_duplicate(best, chosen):
            continue
        chosen.append(best)
        covered.update(best.features)
    return chosen


def _lead(scorer: Scorer, chosen: list[Candidate]) -> str:
    """What the answer says before its quotes: the entities named in the evidence for a
    question asking for a name, or that nothing quoted holds what the question asks for.
    ``chosen`` is in citation order."""
    shape = scorer.focus.shape
    if not shape or not chosen:
        return ""
    if not any(scorer.about(c.text) and scorer.focus.holds_shape(c.text) for c in chosen):
        return NOT_STATED
    if shape != "name":
        return ""
    cited: dict[str, int] = {}
    for index, cand in enumerate(chosen, start=1):
        for entity_id in scorer.named(cand.text):
            cited.setdefault(entity_id, index)
    if not cited:
        return ""
    items = [f"{scorer.names[e]} [{i}]" for e, i in list(cited.items())[:MAX_NAMED]]
    return f"{NAMED_LEAD} {'; '.join(items)}."


def nothing_found(result: RetrievalResult) -> Answer:
    """The answer to a question nothing in the store answers: it says so, cites nothing."""
    return Answer(question=result.question, text=NOTHING_FOUND, retrieval=result, found=False)


def extractive_answer(result: RetrievalResult, max_sentences: int = 5) -> Answer:
    """An answer quoting the best evidence sentences of ``result`` verbatim, with citations.

    When ``result`` is not relevant (or holds no passage) the answer says plainly that
    nothing in the store answers the question (``found`` is ``False``).
    """
    if not result.relevant or not result.passages or max_sentences <= 0:
        return nothing_found(result)
    scorer = Scorer(result)
    chosen = _select(candidates(result, scorer), max_sentences)

    doc_order: dict[str, int] = {}
    for passage in result.passages:
        doc_order.setdefault(passage.document_id, len(doc_order))
    chosen.sort(key=lambda c: (doc_order[c.passage.document_id], c.doc_start))
    quotes = [Quote(c.passage, c.text, c.doc_start, c.doc_end) for c in chosen]
    (changed, note), lead = _changed(result, scorer), _lead(scorer, chosen)
    if changed:  # the change answers it: no "not stated"
        lead = changed if lead == NOT_STATED else "\n\n".join(p for p in (changed, lead) if p)
    return _answered(result, quotes, lead, note)


def _changed(result: RetrievalResult, scorer: Scorer) -> tuple[str, str]:
    """What changed among the facts of the entities the question names (its start
    entities when it names none), as (lead, note): the lead gives the current value first
    ("Changed: now Lisbon (since 2026-02-10; before: Berlin)."); a fact that ended with
    nothing known in its place is a note after the quotes ("No longer current: Berlin
    (until 2026-02-10).")."""
    asked = scorer.named_ids or {s.entity.id for s in result.start_entities}
    now: list[str] = []
    gone: list[str] = []
    for ranked in result.changes:
        rel = ranked.relation
        if rel.source_id not in asked or rel.invalid_at is None:
            continue
        when = rel.invalid_at.date().isoformat()
        new = ranked.replaced_by
        if new and new != LATER and not new.startswith("“"):
            item = f"now {new} (since {when}; before: {ranked.target_name})"
            if item not in now:
                now.append(item)
        elif (item := f"{ranked.target_name} (until {when})") not in gone:
            gone.append(item)
    lead = f"{CHANGED_LEAD} {'; '.join(now[:MAX_CHANGES])}." if now else ""
    note = f"{ENDED_NOTE} {'; '.join(gone[:MAX_CHANGES])}." if gone else ""
    return lead, note


def _answered(result: RetrievalResult, quotes: list[Quote], lead: str, note: str = "") -> Answer:
    """The answer quoting ``quotes`` (in their order, numbered from 1) after ``lead``,
    then ``note``."""
    citations: list[Citation] = []
    body: list[str] = []
    for index, quote in enumerate(quotes, start=1):
        citations.append(Citation.of(index, quote.passage, quote.text, (quote.start, quote.end)))
        body.append(f"{' '.join(quote.text.split())} [{index}]")
    sources = [f"[{c.index}] {c.label()}" for c in citations]
    parts = [NO_LLM, *([lead] if lead else []), "\n".join(body), *([note] if note else [])]
    text = "\n\n".join([*parts, "Sources:\n" + "\n".join(sources)])
    return Answer(
        question=result.question, text=text, citations=citations, llm=False, retrieval=result
    )

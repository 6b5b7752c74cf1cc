"""Whether anything retrieved is about the question: the coverage of its terms.

Ranking always returns *something*; this module decides whether the best of it is relevant.
The signal is the share of the question's information that the best retrieved passage
holds. Each content term of the question weighs ``1 / log2(2 + df)``, where ``df`` is how
many chunks of the scope contain it (looked up with the store's text search, counted up to
:data:`DF_CAP`): a term the store has never seen weighs 1, a name found in a few chunks a
little less, a word found everywhere little. A text's *coverage* is the weight of the
terms it contains over the weight of all of them. The answer's coverage is that of any
single one of the first :data:`PASSAGES_CHECKED` passages, or of the union of the first
:data:`TOGETHER` when each of those covers at least :data:`PART` on its own (a multi-hop
question spreads its terms over several passages: the film's page names the director, the
director's page the birthplace), whichever is higher; the
question is answerable when it reaches :data:`MIN_COVERAGE`, or :data:`NAMED_SHARE` of it
when every name in the question is a stored entity's (:func:`names_only_stored_entities`).
Words are compared without accents (``Akinoshu`` holds ``Akinoshū``).

A question about something the store does not hold names things the store has never seen
(their weight stays in the denominator) and its remaining words are scattered over unrelated
passages, so no passage covers much of it. The threshold was measured on questions each
store can answer against questions it cannot (``bench/abstain.py``; figures in
BENCHMARKS.md). A search that returns texts one by one (memories) keeps each text that
reaches the same threshold (:class:`TextJudge`). Terms in scripts written without spaces
are matched as substrings, like the stores' text search does (:mod:`loregraph.store.scripts`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loregraph.retrieve.question.analyze import analyze_query, unresolved_candidates
from loregraph.retrieve.results.result import Passage, QueryAnalysis
from loregraph.retrieve.results.terms import Term, held_terms, term_weight
from loregraph.retrieve.results.trace import guarded
from loregraph.store.base import Store
from loregraph.store.scripts import split_query
from loregraph.text.words import stem

MIN_COVERAGE = 0.35
"""The least coverage of the question's weighted terms by one passage that counts as
relevant (measured in ``bench/abstain.py``)."""

NAMED_SHARE = 0.6
"""When the question names an entity of the store (capitalised, as the store names it) and
no name the store does not know, the threshold is this share of :data:`MIN_COVERAGE`: a
question about a named character of a long book often shares few words with the passage
that answers it ("What creatures did Renfield collect?" against "flies" and "spiders"),
while the name itself is evidence that the store is about the question. A name the store
does not know ("Dying God", whose "God" alone is stored) is evidence of the opposite, so it
cancels the share."""

PASSAGES_CHECKED = 8
"""How many of the best passages are checked for coverage one by one."""

TOGETHER = 2
"""How many of the best passages are read together: their union's coverage counts."""

PART = 0.25
"""The least coverage of each passage read together. Measured (``bench/abstain.py``'s
stores and questions, the held-out half of 2Wiki left out): a union of the first five
passages with no such floor judged 257 of 876 unrelated questions relevant on the Dracula
store (single passages: 16); two passages that each hold a quarter of the question add no
false answer there."""

DF_CAP = 200
"""Chunk counts are looked up to this many; more counts as this many."""

MAX_TERMS = 16
"""At most this many terms of a question are weighed (the first ones)."""


@dataclass(slots=True)
class Relevance:
    """The relevance decision and what it was decided on; ``named`` tells whether the
    question names stored entities and nothing else (the threshold is then lowered)."""

    relevant: bool
    score: float
    threshold: float
    best_chunk_id: str | None = None
    covered: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    reason: str = ""
    named: bool = False

    def debug(self) -> dict[str, Any]:
        """The stage's entry in :attr:`RetrievalResult.debug` (without ``ms``)."""
        return {
            "count": len(self.covered),
            "relevant": self.relevant,
            "score": round(self.score, 4),
            "threshold": self.threshold,
            "named": self.named,
            "best_chunk": self.best_chunk_id,
            "covered": self.covered,
            "chunk_counts": self.counts,
            "reason": self.reason,
        }


def question_terms(analysis: QueryAnalysis, limit: int = MAX_TERMS) -> list[Term]:
    """The question's content terms: its keywords (stemmed words, or substring pieces for
    scripts without word spaces); a question whose keywords are all too short to count
    (``猫``) falls back to its substring terms."""
    terms: dict[str, Term] = {}
    for keyword in analysis.keywords:
        split = split_query(keyword)
        for word in split.words:
            terms.setdefault(stem(word), Term(word, stem(word)))
        for piece in split.substrings:
            terms.setdefault(piece, Term(piece, piece, substring=True))
    if not terms:
        for piece in split_query(analysis.question).substrings:
            terms.setdefault(piece, Term(piece, piece, substring=True))
    return list(terms.values())[:limit]


async def chunk_counts(
    store: Store, scope: str, terms: Sequence[Term], errors: dict[str, str], cap: int = DF_CAP
) -> dict[str, int]:
    """How many chunks of ``scope`` contain each term (up to ``cap``), by term key."""
    found = await asyncio.gather(
        *(guarded(store.search_chunks_text(scope, t.text, cap), "relevance", errors) for t in terms)
    )
    return {t.key: len(hits) for t, hits in zip(terms, found, strict=True)}


def names_only_stored_entities(analysis: QueryAnalysis) -> bool:
    """Whether the question names a stored entity as a name (a capitalised mention) and
    nothing the store does not know: every other name in it (capitalised phrase, quoted
    string) is a stored entity's too, or is part of one that matched."""
    if unresolved_candidates(analysis):
        return False
    return any(any(ch.isupper() for ch in mention) for mention in analysis.matched)


def threshold_for(base: float, named: bool, share: float = NAMED_SHARE) -> float:
    """The coverage a passage needs: ``base``, or ``share`` of it when the question names
    stored entities and nothing else (:func:`names_only_stored_entities`)."""
    return base * share if named else base


def coverage(
    text: str, terms: Sequence[Term], weights: Mapping[str, float]
) -> tuple[float, list[str]]:
    """The share of the question's term weight that ``text`` holds, and the keys it holds."""
    held = held_terms(text, terms)
    return sum(weights[k] for k in held) / sum(weights.values()), held


def assess(
    analysis: QueryAnalysis,
    terms: Sequence[Term],
    counts: Mapping[str, int],
    passages: Sequence[Passage],
    threshold: float = MIN_COVERAGE,
    checked: int = PASSAGES_CHECKED,
) -> Relevance:
    """Decide whether the best of ``passages`` is relevant to the question."""
    if not passages:
        return Relevance(False, 0.0, threshold, reason="no passage was found")
    named = names_only_stored_entities(analysis)
    if not terms:
        found = bool(analysis.matched)
        return Relevance(
            found or threshold <= 0,
            1.0 if found else 0.0,
            threshold,
            reason="names a stored entity" if found else "the question has no content words",
            named=named,
        )
    threshold = threshold_for(threshold, named)
    weights = {t.key: term_weight(counts.get(t.key, 0)) for t in terms}
    best, best_chunk, best_held = -1.0, None, []
    for passage in passages[: max(checked, 1)]:
        score, held = coverage(passage.text, terms, weights)
        if score > best:
            best, best_chunk, best_held = score, passage.chunk_id, held
    union = set(best_held)
    for passage in passages[:TOGETHER]:
        score, held = coverage(passage.text, terms, weights)
        if score < PART:
            union = set(best_held)
            break
        union.update(held)
    together = sum(weights[k] for k in union) / sum(weights.values())
    if together > best:
        best, best_held = together, [t.key for t in terms if t.key in union]
    relevant = best >= threshold
    reason = (
        "a passage covers enough of the question"
        if relevant
        else "no passage covers enough of the question"
    )
    return Relevance(
        relevant, best, threshold, best_chunk, best_held, dict(counts), reason, named=named
    )


@dataclass(frozen=True, slots=True)
class TextJudge:
    """Whether one text is about a question, by the coverage :func:`assess` measures for a
    passage: for a search whose results are separate texts (memories), each kept or not."""

    analysis: QueryAnalysis
    terms: tuple[Term, ...]
    weights: Mapping[str, float]
    threshold: float

    def share(self, text: str) -> float:
        """The share of the question's weighted terms ``text`` holds (1 or 0 for a
        question with no content terms: whether it names a stored entity)."""
        if not self.terms:
            return 1.0 if self.analysis.matched or self.threshold <= 0 else 0.0
        return coverage(text, self.terms, self.weights)[0]


async def text_judge(
    question: str, store: Store, scope: str, threshold: float = MIN_COVERAGE
) -> TextJudge:
    """The :class:`TextJudge` of ``question`` in ``scope``: its terms weighed by how many
    chunks of the scope hold them, its threshold lowered when it names stored entities."""
    analysis = await analyze_query(question, store, scope)
    terms = question_terms(analysis)
    counts = await chunk_counts(store, scope, terms, {})
    weights = {t.key: term_weight(counts.get(t.key, 0)) for t in terms}
    named = names_only_stored_entities(analysis)
    return TextJudge(analysis, tuple(terms), weights, threshold_for(threshold, named))

"""Candidate relations of one document from its sentence records (rules: ``assemble``).

Typed relations come from :mod:`.dependency` and are kept only when supported: a sentence
names both ends, or a subject pronoun is the title entity of a short document, or the same
(source, type, target) is stated in at least :data:`MIN_REPEATS` sentences (a pronoun
resolved by guess — the subject of a previous sentence, a diary's "I" — is not enough
once). Their ends must also fit the preposition (:func:`fits_types`). Co-occurrence
(``CO_OCCURS_WITH``) and ``ABOUT`` relations are weaker, separate evidence. Every relation
is aggregated per (source, type, target) with one evidence entry per sentence (its ``fact``
is the first); co-occurrence pairs are undirected and stored in name order.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from loregraph.ingest.extract.assemble import (
    ABOUT_CONFIDENCE,
    COOCCURRENCE_CONFIDENCE,
    FACT_CHARS,
    MAX_COOCCURRING,
    PRONOUN_CONFIDENCE,
    SHORT_DOCUMENT_SENTENCES,
    TYPED_CONFIDENCE,
    Assembled,
    ChunkLocator,
    DocumentAnalysis,
    excerpt,
)
from loregraph.ingest.extract.dependency import HE_SHE, NARRATOR, NOUN_PREPS
from loregraph.ingest.types import CandidateRelation, RelationEvidence
from loregraph.models import ABOUT, CO_OCCURS
from loregraph.text.entity_types import CONCEPT, LOCATION, ORGANIZATION, PERSON

_DIARY = re.compile(
    r"\s*['’]s\s+(?:\w+\s+)?(?:journal|diary|notebook|log|memoirs?|memorandum|notes)\b",
    re.IGNORECASE,
)


class _Relations:
    def __init__(self, analysis: DocumentAnalysis, locator: ChunkLocator, text: str) -> None:
        self.analysis, self.locator, self.text = analysis, locator, text
        self.found: dict[tuple[str, str, str], CandidateRelation] = {}
        self.seen: set[tuple[str, str, str, int]] = set()

    def add(
        self, src: str, kind: str, dst: str, sentence: int, focus: tuple[int, int], conf: float
    ) -> bool:
        key = (src, kind, dst)
        if (*key, sentence) in self.seen:
            return False
        self.seen.add((*key, sentence))
        start, end = self.analysis.sentences[sentence]
        chunk = self.locator.locate(start, end)
        fact = excerpt(self.text, start, end, focus, FACT_CHARS)
        size = chunk.end - chunk.start
        lo = min(max(start - chunk.start, 0), max(size - 1, 0))
        hi = max(min(end - chunk.start, size), lo + 1)
        evidence = RelationEvidence(chunk_seq=chunk.seq, sentence=fact, start=lo, end=hi)
        rel = self.found.get(key)
        if rel is None:
            self.found[key] = CandidateRelation(src, dst, kind, fact, conf, [evidence])
            return True
        rel.confidence = max(rel.confidence, conf)
        rel.evidence.append(evidence)
        return False


def diary_headings(analysis: DocumentAnalysis, prepared: str) -> set[int]:
    """The spans that name a diary in a heading ("Dr. Seward's Diary"): the writer is not
    taking part in the sentence the parser joined the heading to, so such a span is no end
    of a relation."""
    return {i for i, span in enumerate(analysis.spans) if _DIARY.match(prepared, span.end)}


def build_relations(
    analysis: DocumentAnalysis,
    assembled: Assembled,
    locator: ChunkLocator,
    text: str,
    *,
    prepared: str,
    co_occurrence: bool,
) -> tuple[list[CandidateRelation], dict[str, int]]:
    """Typed, co-occurrence and ABOUT relations, and their counts for the stats.

    ``text`` is the document text (facts are quoted from it), ``prepared`` the text the
    parser saw (same offsets; paragraph breaks intact).
    """
    short = len(analysis.sentences) <= SHORT_DOCUMENT_SENTENCES
    out = _Relations(analysis, locator, text)
    headings = diary_headings(analysis, prepared)
    canonical = [None if i in headings else n for i, n in enumerate(assembled.canonical)]
    assembled = replace(assembled, canonical=canonical)
    stats = _typed(out, assembled, short=short)
    stats["co_occurrence_pairs"] = _co_occurrences(out, assembled) if co_occurrence else 0
    about = 0
    if assembled.title is not None and short:
        about = _about(out, assembled, assembled.title)
    stats["about_relations"] = about
    return list(out.found.values()), stats


MIN_REPEATS = 2
"""A typed relation with an end found through a pronoun needs this many sentences."""

_NAMED, _TITLE, _GUESS = "named", "title", "guess"
_LOCATIVE = frozenset({"IN", "AT", "NEAR"})


def fits_types(kind: str, source: str, target: str) -> bool:
    """Whether a relation's ends have the types its preposition needs (entity types).

    An entity's bare prepositional modifier relates it to a place ("Bistritz in
    Transylvania", "Carfax near Purfleet", "Morris, of Texas") or, for "of", to an
    organisation ("Dr. Vincent, of the North Hospital"); "from" never joins two places
    (that is the parser attaching a journey's "from" to the destination). A relation
    ending in "in"/"at"/"near" never has a nationality, language or other concept as its
    place ("is sung in Bulgarian").
    """
    if kind.lower() in NOUN_PREPS:
        if kind == "OF":
            return target in (LOCATION, ORGANIZATION)
        return target == LOCATION and not (kind == "FROM" and source == LOCATION)
    return not (kind.rsplit("_", 1)[-1] in _LOCATIVE and target == CONCEPT)


def _typed(out: _Relations, assembled: Assembled, *, short: bool) -> dict[str, int]:
    """The dependency parse's relations that are supported; returns their counts.

    Each (source, type, target) is first gathered over the whole document, its ends
    resolved through pronouns (module doc of :mod:`.assemble`). It is kept when one of its
    sentences names both ends, or a subject pronoun is the title entity of a short
    document, or it is stated in at least :data:`MIN_REPEATS` sentences; a relation seen
    once through a guessed pronoun (the subject of a previous sentence; "I" is none) is
    dropped and counted as ``typed_unsupported``.
    """
    analysis = out.analysis
    spans, names = analysis.spans, assembled.canonical
    types, title = assembled.types, assembled.title

    def pronoun(code: int, sentence: int) -> tuple[str | None, str]:
        if code == NARRATOR:  # "I" is nobody the text names
            return None, _GUESS
        person = code == HE_SHE
        if short and title is not None and (types[title] == PERSON) == person:
            return title, _TITLE
        for back in (sentence - 1, sentence - 2):
            subject = analysis.subjects[back] if back >= 0 else None
            name = names[subject] if subject is not None else None
            if name is not None and (types[name] == PERSON) == person:
                return name, _GUESS
        return None, _GUESS

    found: dict[tuple[str, str, str], list[tuple[int, tuple[int, int], str]]] = {}
    for src, kind, dst, sentence in analysis.relations:
        a, how_a = (names[src], _NAMED) if src >= 0 else pronoun(src, sentence)
        b, how_b = (names[dst], _NAMED) if dst >= 0 else pronoun(dst, sentence)
        if a is None or b is None or a == b or not fits_types(kind, types[a], types[b]):
            continue
        ends = [spans[i] for i in (src, dst) if i >= 0]
        focus = (min(s.start for s in ends), max(s.end for s in ends))
        how = (
            _GUESS if _GUESS in (how_a, how_b) else (_TITLE if _TITLE in (how_a, how_b) else _NAMED)
        )
        found.setdefault((a, kind, b), []).append((sentence, focus, how))
    stats = dict.fromkeys(
        ("typed_relations", "typed_relation_mentions", "pronoun_relations", "typed_unsupported"), 0
    )
    for (a, kind, b), seen in found.items():
        hows = {how for _, _, how in seen}
        if len({sentence for sentence, _, _ in seen}) < MIN_REPEATS and hows == {_GUESS}:
            stats["typed_unsupported"] += 1
            continue
        for sentence, focus, how in seen:
            conf = TYPED_CONFIDENCE if how == _NAMED else PRONOUN_CONFIDENCE
            stats["typed_relations"] += out.add(a, kind, b, sentence, focus, conf)
            stats["typed_relation_mentions"] += 1
            stats["pronoun_relations"] += how != _NAMED
    return stats


def _co_occurrences(out: _Relations, assembled: Assembled) -> int:
    """Pairs of the first distinct entities of each sentence; returns how many were new."""
    spans, names = out.analysis.spans, assembled.canonical
    by_sentence: dict[int, list[int]] = defaultdict(list)
    for i, span in enumerate(spans):
        if names[i] is not None:
            by_sentence[span.sentence].append(i)
    pairs = 0
    for sentence, members in sorted(by_sentence.items()):
        members.sort(key=lambda i: spans[i].start)
        distinct: dict[str, int] = {}
        for i in members:
            name = names[i]
            if name is not None and name not in distinct:
                distinct[name] = i
        chosen = list(distinct.items())[:MAX_COOCCURRING]
        for x in range(len(chosen)):
            for y in range(x + 1, len(chosen)):
                (a, i), (b, j) = sorted((chosen[x], chosen[y]))
                focus = (min(spans[i].start, spans[j].start), max(spans[i].end, spans[j].end))
                pairs += out.add(a, CO_OCCURS, b, sentence, focus, COOCCURRENCE_CONFIDENCE)
    return pairs


def _about(out: _Relations, assembled: Assembled, title: str) -> int:
    """``ABOUT`` from the title entity to every other entity, at its first mention."""
    spans, names = out.analysis.spans, assembled.canonical
    first: dict[str, int] = {}
    for i, span in enumerate(spans):
        name = names[i]
        if name is None or name == title:
            continue
        if name not in first or span.start < spans[first[name]].start:
            first[name] = i
    about = 0
    for name, i in sorted(first.items()):
        span = spans[i]
        about += out.add(
            title, ABOUT, name, span.sentence, (span.start, span.end), ABOUT_CONFIDENCE
        )
    return about

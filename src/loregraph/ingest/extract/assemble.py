"""A document's piece records → one :class:`ExtractionResult`.

Document-level decisions of the offline extractor:

* **Chunk attribution.** The text is parsed once; every mention and sentence is given to
  the chunk that contains it *most centrally* (largest distance to the chunk's nearer
  edge; the first such chunk on a tie), or, when no chunk contains it whole, the chunk that
  overlaps it most. Each mention is counted in exactly one chunk, so counts are never
  doubled by the 200-character overlap.
* **Names.** A name at least a third of whose mentions are objects of a locative
  preposition ("in Whitby", "at Galatz") is a place, whatever the tagger's label (persons
  and organisations are rarely "in" or "at").
  "X's Y" spans are cut to "X" when X is a person; an all-capitals span
  (a heading) is dropped when its words also occur in lower case, and so is a one-word
  non-person span whose word occurs more often in lower case than as a name ("Telegram").
* **Title entity.** The document title is an entity (``is_title``, salience 5): its
  mentions are the spans and the places where the title string (less a qualifier:
  "X (film)", "X, Margrave of Y") occurs; its type is the majority label of those spans,
  else the qualifier's ("(film)" → Product), else the head-noun rule, else Person when
  the first sentences say he/she more than it, else the head word's type, else Concept.
  A title that is no name (a lower-case word or a date: a note filed as "public", "todo"
  or "2026-11-20") is an entity only where the text writes it as a name; a title that is
  a name always has at least one occurrence.
* **Clustering** of variant names (:func:`~loregraph.ingest.resolve.cluster.cluster_candidates`).
* **Salience** (1-5): 5 for the title entity; otherwise ``1 + 4·ln(1+m)/ln(1+M)`` with
  ``m`` the entity's mentions and ``M`` the largest among non-title entities, +1 when it
  appears in the first sentence, at least 3 in a text of at most
  :data:`SHORT_TEXT_SENTENCES` sentences (so a short passage's entities pass selection while
  one-off spaCy noise in a book does not), capped at 5.
* **Descriptions**: a sentence that says what the entity is, chosen by
  :func:`.describe.choose` (copula, apposition, role noun, else the most central mention;
  never a heading), trimmed to 200 characters around the mention. The title entity of a
  short document keeps the document's first sentence. Descriptions and relation facts are
  verbatim from the document (whitespace collapsed).
* **Relations**: typed ones from the dependency parse (confidence 0.8; 0.6 through a
  pronoun), co-occurrence of every pair of the first :data:`MAX_COOCCURRING` distinct
  entities of a sentence (``CO_OCCURS_WITH``, 0.3), and in short documents (at most
  :data:`SHORT_DOCUMENT_SENTENCES` sentences) ``ABOUT`` from the title entity to every other
  entity (0.5). A subject pronoun is the title entity in a short document with a title of a
  fitting type (he/she: a person; it: not a person); otherwise the subject of one of the two
  previous sentences of a fitting type; otherwise the relation is dropped, as is one whose
  end is "I"/"me".
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from dataclasses import dataclass, field

from loregraph.ingest.extract.describe import DescriptionCues, choose
from loregraph.ingest.extract.spacy_ner import TITLE_LABEL, PieceAnalysis, SpanRecord
from loregraph.ingest.resolve.cluster import cluster_candidates
from loregraph.ingest.types import (
    CandidateEntity,
    Occurrence,
    SourceDocument,
    TextChunk,
)
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.entity_types import CONCEPT, PERSON, normalize_type

PLACE_HINT_SHARE = 3
"""A name is a place when at least 1 in this many of its mentions follow "in", "at"…"""
_TAGGER_LABELS = frozenset({"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "FAC", "WORK_OF_ART", "NORP"})
"""The tagger's labels a place hint may overrule (a name the sentence shows to be software
or code keeps that type: "kept in Redis")."""
SHORT_DOCUMENT_SENTENCES = 40
SHORT_TEXT_SENTENCES = 10
MAX_COOCCURRING = 6
TYPED_CONFIDENCE = 0.8
PRONOUN_CONFIDENCE = 0.6
COOCCURRENCE_CONFIDENCE = 0.3
ABOUT_CONFIDENCE = 0.5
DESCRIPTION_CHARS = 200
FACT_CHARS = 300


@dataclass(slots=True)
class DocumentAnalysis(PieceAnalysis):
    """The piece records of one document, with document-wide sentence and span indexes."""

    cues: DescriptionCues = field(default_factory=DescriptionCues)
    """What the parse says about names, for descriptions (added by the extractor)."""

    def add(self, piece: PieceAnalysis) -> None:
        """Append a piece (pieces must be added in document order)."""
        s0, e0 = len(self.sentences), len(self.spans)
        if s0 == 0:
            self.pronouns.update(piece.pronouns)
        self.sentences.extend(piece.sentences)
        for span in piece.spans:
            span.sentence += s0
            self.spans.append(span)
        for src, kind, dst, k in piece.relations:
            self.relations.append(
                (src + e0 if src >= 0 else src, kind, dst + e0 if dst >= 0 else dst, k + s0)
            )
        self.subjects.extend(None if s is None else s + e0 for s in piece.subjects)
        self.lower_words.update(piece.lower_words)


class ChunkLocator:
    """Finds the chunk a character range belongs to (rule in the module docstring)."""

    def __init__(self, chunks: list[TextChunk]) -> None:
        self.chunks = sorted(chunks, key=lambda c: (c.start, c.seq))
        self.starts = [c.start for c in self.chunks]

    def locate(self, start: int, end: int) -> TextChunk:
        """The chunk for the range ``[start, end)``."""
        hi = max(bisect.bisect_right(self.starts, max(start, end - 1)), 1)
        best, best_key = self.chunks[hi - 1], (-1, -(1 << 60))
        for i in range(hi - 1, -1, -1):
            chunk = self.chunks[i]
            if chunk.end <= start and i < hi - 1:
                break
            inside = chunk.start <= start and end <= chunk.end
            key = (
                (1, min(start - chunk.start, chunk.end - end))
                if inside
                else (0, min(end, chunk.end) - max(start, chunk.start))
            )
            if key >= best_key:
                best, best_key = chunk, key
        return best


def excerpt(text: str, start: int, end: int, focus: tuple[int, int], limit: int) -> str:
    """``text[start:end]`` with whitespace collapsed, cut at words to ``limit`` around ``focus``.

    The result is always a verbatim (whitespace-collapsed) piece of the text, so that it can
    be quoted as evidence.
    """
    if end - start > limit * 2:
        middle = (focus[0] + focus[1]) // 2
        start, end = max(start, middle - limit), min(end, middle + limit)
    piece = " ".join(text[start:end].split())
    if len(piece) <= limit:
        return piece
    rel = len(" ".join(text[start : max(start, focus[0])].split()))
    lo = max(0, min(rel - limit // 3, len(piece) - limit))
    cut = piece[lo : lo + limit]
    if lo > 0 and piece[lo - 1] != " " and " " in cut:
        cut = cut[cut.find(" ") + 1 :]
    if lo + limit < len(piece) and piece[lo + limit] != " " and " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.strip()


def _apply_name_rules(analysis: DocumentAnalysis) -> list[SpanRecord | None]:
    spans = analysis.spans
    person = {name_key(s.surface) for s in spans if s.label == "PERSON" and not s.title_ref}
    for span in spans:
        if not span.owner or not names.is_valid_name(span.owner):
            continue
        if span.label == "PERSON" or name_key(span.owner) in person:
            span.surface, span.end, span.label = span.owner, span.owner_end, "PERSON"
    counts = Counter(name_key(s.surface) for s in spans)
    hints = Counter(name_key(s.surface) for s in spans if s.place_hint)
    for span in spans:
        key = name_key(span.surface)
        if span.label in _TAGGER_LABELS and hints[key] * PLACE_HINT_SHARE >= counts[key] > 0:
            span.label = "LOC" if not span.title_ref else span.label
    lower = analysis.lower_words
    kept: list[SpanRecord | None] = []
    for span in spans:
        key = name_key(span.surface)
        words = key.split()
        letters = [c for c in span.surface if c.isalpha()]
        caps = len(letters) > 1 and all(c.isupper() for c in letters)
        heading = caps and bool(words) and all(lower[w] for w in words)
        common = span.label != "PERSON" and len(words) == 1 and lower[key] > counts[key]
        kept.append(None if not span.title_ref and (heading or common) else span)
    return kept


def _title_type(votes: Counter[str], core: str, qualifier: str, pronouns: Counter[str]) -> str:
    if votes:
        return max(votes, key=lambda t: (votes[t], t))
    qualified = normalize_type(qualifier.split()[0]) if qualifier else CONCEPT
    for guess in (qualified, names.head_type(core)):
        if guess and guess != CONCEPT:
            return guess
    if pronouns["personal"] > pronouns["neuter"]:
        return PERSON
    words = core.split()
    if words:
        head = words[: words.index("of")] if "of" in words[1:] else words
        guess = normalize_type(head[-1])
        if guess != CONCEPT:
            return guess
    return CONCEPT


@dataclass(slots=True)
class Assembled:
    """Entities of one document plus what relation building needs to know about them."""

    entities: list[CandidateEntity]
    canonical: list[str | None]
    """Per span of the analysis: the entity name it belongs to (None: dropped)."""
    types: dict[str, str]
    title: str | None
    stats: dict[str, int]


@dataclass(slots=True)
class _Title:
    """The document title as an entity name: ``name`` (empty: no title), its ``core`` less
    a qualifier ("X (film)" → "X"), the ``qualifier`` and the core's name ``key``."""

    name: str
    core: str
    qualifier: str
    key: str

    def is_mention(self, span: SpanRecord) -> bool:
        """Whether the span is a mention of the title (its string, or a span of its name)."""
        return span.label == TITLE_LABEL or (
            not span.title_ref and name_key(span.surface) == self.key
        )


def _title_of(document: SourceDocument, spans: list[SpanRecord | None]) -> _Title:
    title, core, qualifier = document.entity_title.strip(), "", ""
    if title:
        core, qualifier = names.split_qualifier(title)
    title_key = name_key(core) if core else ""
    if title and not names.is_valid_name(title):
        surfaces = Counter(s.surface for s in spans if s and name_key(s.surface) == title_key)
        title = surfaces.most_common(1)[0][0] if surfaces else title.title()
    return _Title(title, core, qualifier, title_key)


def assemble_entities(
    document: SourceDocument,
    locator: ChunkLocator,
    text: str,
    analysis: DocumentAnalysis,
) -> Assembled:
    """Candidates (clustered, with salience and descriptions) for one document."""
    spans = _apply_name_rules(analysis)
    title = _title_of(document, spans)
    candidates = _group_spans(spans, locator, title, analysis)
    clustered, records = cluster_candidates(candidates, document.cluster_rules)
    mapping = {surface: canonical for surface, canonical, _ in records}
    for cand in clustered:
        mapping.setdefault(cand.name, cand.name)
    title_name = next((c.name for c in clustered if c.is_title), None)
    canonical: list[str | None] = []
    for span in spans:
        if span is None:
            canonical.append(None)
        elif title_name and title.is_mention(span):
            canonical.append(title_name)
        else:
            canonical.append(mapping.get(span.surface))

    _describe(clustered, canonical, spans, analysis, text)
    _score(clustered, canonical, spans, len(analysis.sentences))
    stats = _stats(spans, canonical, len(analysis.sentences))
    stats |= {"entities": len(clustered), "merged_names": len(records)}
    return Assembled(
        entities=clustered,
        canonical=canonical,
        types={c.name: c.type for c in clustered},
        title=title_name,
        stats=stats,
    )


def _group_spans(
    spans: list[SpanRecord | None],
    locator: ChunkLocator,
    title: _Title,
    analysis: DocumentAnalysis,
) -> list[CandidateEntity]:
    """One candidate per (surface, label) of the kept spans, then the title entity."""
    groups: dict[tuple[str, str], CandidateEntity] = {}
    title_votes: Counter[str] = Counter()
    title_occ: Counter[tuple[int, str]] = Counter()
    for span in spans:
        if span is None:
            continue
        seq = locator.locate(span.start, span.end).seq
        if title.is_mention(span):
            if span.label != TITLE_LABEL:
                title_votes[normalize_type(span.label)] += 1
            title_occ[(seq, span.surface)] += 1
            continue
        cand = groups.get((span.surface, span.label))
        if cand is None:
            cand = CandidateEntity(name=span.surface, type=span.label, mentions=0)
            groups[(span.surface, span.label)] = cand
        cand.mentions += 1
        _add_occurrence(cand, seq, span.surface)
    candidates = list(groups.values())
    if title.name and (title_occ or names.is_valid_name(title.core)):
        if not title_occ:
            first = min(locator.chunks, key=lambda c: c.seq)
            title_occ[(first.seq, title.core or title.name)] += 1
        title_cand = CandidateEntity(
            name=title.name,
            type=_title_type(title_votes, title.core, title.qualifier, analysis.pronouns),
            salience=5.0,
            mentions=sum(title_occ.values()),
            occurrences=[Occurrence(s, f, n) for (s, f), n in sorted(title_occ.items())],
            is_title=True,
        )
        candidates.append(title_cand)
    return candidates


def _stats(
    spans: list[SpanRecord | None], canonical: list[str | None], sentences: int
) -> dict[str, int]:
    return {
        "sentences": sentences,
        "entity_spans": sum(
            1 for s in spans if s is not None and not s.title_ref and s.label != TITLE_LABEL
        ),
        "title_string_matches": sum(1 for s in spans if s is not None and s.label == TITLE_LABEL),
        "title_references": sum(1 for s in spans if s is not None and s.title_ref),
        "title_references_resolved": sum(
            1 for s, c in zip(spans, canonical, strict=True) if s and s.title_ref and c
        ),
        "spans_dropped": sum(1 for s in spans if s is None),
    }


def _add_occurrence(cand: CandidateEntity, seq: int, surface: str) -> None:
    last = cand.occurrences[-1] if cand.occurrences else None
    if last is not None and last.chunk_seq == seq and last.surface == surface:
        last.count += 1
    else:
        cand.occurrences.append(Occurrence(seq, surface, 1))


def _describe(
    entities: list[CandidateEntity],
    canonical: list[str | None],
    spans: list[SpanRecord | None],
    analysis: DocumentAnalysis,
    text: str,
) -> None:
    sentences, cues = analysis.sentences, analysis.cues
    long = len(sentences) > SHORT_DOCUMENT_SENTENCES
    mentions = {c.name: c.mentions for c in entities}
    picks = choose(spans, canonical, text, sentences, cues, mentions, long=long)
    for cand in entities:
        pick = picks.get(cand.name)
        if cand.is_title and sentences and (pick is None or not long):
            # a short record's first sentence defines its subject; a long text's may not
            start, end = (cues.first() if long else None) or sentences[0]
            cand.description = excerpt(text, start, end, (start, start), DESCRIPTION_CHARS)
        elif pick is not None:
            cand.description = excerpt(text, pick.start, pick.end, pick.mention, DESCRIPTION_CHARS)


def _score(
    entities: list[CandidateEntity],
    canonical: list[str | None],
    spans: list[SpanRecord | None],
    n_sentences: int,
) -> None:
    in_first = {
        name
        for span, name in zip(spans, canonical, strict=True)
        if span is not None and name is not None and span.sentence == 0
    }
    top = max((c.mentions for c in entities if not c.is_title), default=1)
    scale = math.log1p(max(top, 1))
    for cand in entities:
        if cand.is_title:
            cand.salience = 5.0
            continue
        value = 1.0 + 4.0 * math.log1p(cand.mentions) / scale if scale > 0 else 5.0
        if cand.name in in_first:
            value += 1.0
        if n_sentences <= SHORT_TEXT_SENTENCES:
            value = max(value, 3.0)
        cand.salience = round(min(value, 5.0), 2)

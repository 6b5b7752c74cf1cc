"""Grounding the LLM's output in the document: mentions, relation endpoints, evidence.

* **Mentions.** Every entity's name and aliases (and a name of two or more words without
  its leading title) are searched in the document as whole words, case-sensitively. Longer
  matches win over shorter overlapping ones; a surface claimed by two entities (a shared
  surname) is given to neither. Each match is counted once, in the chunk that contains it
  most centrally (:class:`~loregraph.ingest.extract.assemble.ChunkLocator`).
* **Endpoints.** A relation's source and target must name a core entity: exactly (by name
  key, aliases and surfaces included), else by string similarity (ratio ≥ 90 and
  compatible names), else as the words of exactly one core name (``Harker`` when one core
  name contains it); otherwise the relation is dropped and counted. Each end must also be
  in the batch's text (as written, or as its entity is named there, :mod:`.llm_ground`),
  else the relation is dropped and counted as ungrounded.
* **Evidence.** The model's verbatim quote is found in the mega-batch text (whitespace and
  case ignored); failing that, the first sentence of the batch that names both ends is the
  evidence; failing that, the first chunk of the batch where the source is mentioned, with
  the model's fact as the sentence.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from loregraph.ingest.extract.assemble import ChunkLocator
from loregraph.ingest.extract.llm_ground import TextGrounder
from loregraph.ingest.extract.llm_schema import Items, RawRelation
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    Occurrence,
    RelationEvidence,
    TextChunk,
)
from loregraph.models import name_key
from loregraph.text import names
from loregraph.text.sentences import split_sentences

FUZZY_ENDPOINT = 90.0
MAX_EVIDENCE_CHARS = 400


def _pattern(surface: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in surface.split())
    return re.compile(rf"(?<!\w){body}(?:['’]s)?(?!\w)")


def find_occurrences(
    text: str, chunks: Sequence[TextChunk], entities: dict[str, list[str]]
) -> dict[str, list[Occurrence]]:
    """Occurrences per entity name, given ``{name: surfaces}`` (rules in the module doc)."""
    owners: dict[str, set[str]] = {}
    for entity, surfaces in entities.items():
        for surface in surfaces:
            owners.setdefault(surface, set()).add(entity)
    matches: list[tuple[int, int, str, str]] = []
    for surface, who in owners.items():
        if len(who) != 1:
            continue  # ambiguous: a surface two entities share
        owner = next(iter(who))
        for m in _pattern(surface).finditer(text):
            matches.append((m.start(), m.end(), surface, owner))
    matches.sort(key=lambda m: (-(m[1] - m[0]), m[0]))
    starts: list[int] = []  # claimed spans, disjoint, sorted by start
    ends: list[int] = []
    counts: Counter[tuple[str, int, str]] = Counter()
    locator = ChunkLocator(list(chunks))
    for start, end, surface, owner in matches:
        at = bisect.bisect_left(starts, start)
        if (at < len(starts) and starts[at] < end) or (at > 0 and ends[at - 1] > start):
            continue
        starts.insert(at, start)
        ends.insert(at, end)
        chunk = locator.locate(start, end)
        counts[(owner, chunk.seq, surface)] += 1
    out: dict[str, list[Occurrence]] = {name: [] for name in entities}
    for (owner, seq, surface), count in sorted(counts.items(), key=lambda kv: kv[0][1]):
        out[owner].append(Occurrence(chunk_seq=seq, surface=surface, count=count))
    return out


class EndpointResolver:
    """Maps the names a relation uses to core entity names (rules in the module doc)."""

    def __init__(self, core: Sequence[CandidateEntity]) -> None:
        self.index: dict[str, str] = {}
        for cand in core:
            self.index.setdefault(name_key(cand.name), cand.name)
        for cand in core:
            for occ in cand.occurrences:
                self.index.setdefault(name_key(occ.surface), cand.name)
        self.index.pop("", None)
        self.keys = list(self.index)
        self.person = {c.name: names.looks_like_person_name(c.name) for c in core}
        self.words = {c.name: set(name_key(c.name).split()) for c in core}

    def resolve(self, name: str) -> tuple[str | None, str]:
        """``(core name, how)``; ``how`` is ``exact``, ``fuzzy``, ``partial`` or ``unknown``."""
        key = name_key(name)
        if not key:
            return None, "unknown"
        if key in self.index:
            return self.index[key], "exact"
        if self.keys:
            best = process.extractOne(key, self.keys, scorer=fuzz.ratio)
            if best is not None and best[1] >= FUZZY_ENDPOINT:
                canonical = self.index[best[0]]
                if names.names_compatible(name, canonical, person=self.person[canonical]):
                    return canonical, "fuzzy"
        words = set(key.split())
        holders = [c for c, ws in self.words.items() if words <= ws]
        if len(holders) == 1:
            return holders[0], "partial"
        return None, "unknown"


def _quote_pattern(quote: str) -> re.Pattern[str] | None:
    words = re.findall(r"\w+", quote)
    if len(words) < 3:
        return None
    body = r"\W+".join(re.escape(w) for w in words)
    return re.compile(body, re.IGNORECASE)


def locate_evidence(
    batch_text: str,
    batch_offset: int,
    locator: ChunkLocator,
    quote: str,
    source_surfaces: Sequence[str],
    target_surfaces: Sequence[str],
) -> tuple[int, int, str] | None:
    """Document offsets and text of the evidence (``None`` when nothing is found)."""
    pattern = _quote_pattern(quote)
    if pattern is not None:
        m = pattern.search(batch_text)
        if m is not None:
            return batch_offset + m.start(), batch_offset + m.end(), "quote"
    src = [_pattern(s) for s in source_surfaces]
    dst = [_pattern(s) for s in target_surfaces]
    for a, b in split_sentences(batch_text):
        sentence = batch_text[a:b]
        if any(p.search(sentence) for p in src) and any(p.search(sentence) for p in dst):
            return batch_offset + a, batch_offset + b, "sentence"
    return None


def evidence_at(text: str, locator: ChunkLocator, start: int, end: int) -> RelationEvidence:
    """The evidence record for document range ``[start, end)`` (offsets in its chunk)."""
    chunk = locator.locate(start, end)
    end = min(end, start + MAX_EVIDENCE_CHARS)
    sentence = " ".join(text[start:end].split())
    rel_start = max(0, start - chunk.start)
    rel_end = max(rel_start, min(end, chunk.end) - chunk.start)
    return RelationEvidence(chunk_seq=chunk.seq, sentence=sentence, start=rel_start, end=rel_end)


@dataclass(frozen=True, slots=True)
class BatchSpan:
    """A mega-batch's text, its offset in the document and its chunks."""

    text: str
    offset: int
    chunk_seqs: list[int]


def ground_relations(
    text: str,
    chunks: Sequence[TextChunk],
    batches: Sequence[BatchSpan],
    raw: Sequence[Items],
    core: Sequence[CandidateEntity],
    stats: Counter[str],
    *,
    min_confidence: float,
) -> list[CandidateRelation]:
    """The relationship pass's replies as candidate relations between core entities, each
    with evidence; what is dropped or resolved is counted in ``stats``."""
    resolver = EndpointResolver(core)
    by_name = {c.name: c for c in core}
    locator = ChunkLocator(list(chunks))
    out: list[CandidateRelation] = []
    for batch, items in zip(batches, raw, strict=True):
        grounder = TextGrounder(batch.text)
        stats["relations_malformed"] += items.malformed
        for rel in items.relations:
            stats["relations_listed"] += 1
            if rel.confidence < min_confidence:
                stats["relations_low_confidence"] += 1
                continue
            made = _ground(text, batch, rel, resolver, by_name, locator, stats, grounder)
            if made is not None:
                out.append(made)
    return out


def _end_in_batch(grounder: TextGrounder, written: str, entity: CandidateEntity) -> bool:
    """Whether a relation end is in the batch's text: as the model wrote it, or as the
    entity it resolved to is named there."""
    surfaces = [entity.name, *(o.surface for o in entity.occurrences)]
    if any(grounder.exact(s) for s in surfaces):
        return True
    return grounder.locate(written) is not None


def _ground(
    text: str,
    batch: BatchSpan,
    rel: RawRelation,
    resolver: EndpointResolver,
    by_name: dict[str, CandidateEntity],
    locator: ChunkLocator,
    stats: Counter[str],
    grounder: TextGrounder,
) -> CandidateRelation | None:
    source, how_s = resolver.resolve(rel.source)
    target, how_t = resolver.resolve(rel.target)
    if source is None or target is None:
        stats["relations_unknown_entity"] += 1
        return None
    if source == target:
        stats["relations_self"] += 1
        return None
    if not (
        _end_in_batch(grounder, rel.source, by_name[source])
        and _end_in_batch(grounder, rel.target, by_name[target])
    ):
        stats["relations_ungrounded"] += 1  # an end the batch's text does not mention
        return None
    if how_s != "exact" or how_t != "exact":
        stats["relations_resolved"] += 1
    surfaces = {
        n: list(dict.fromkeys([n, *(o.surface for o in by_name[n].occurrences)]))
        for n in (source, target)
    }
    found = locate_evidence(
        batch.text, batch.offset, locator, rel.evidence, surfaces[source], surfaces[target]
    )
    if found is not None:
        start, end, how = found
        if how != "quote":
            stats["relations_evidence_inferred"] += 1
        evidence = evidence_at(text, locator, start, end)
    else:
        stats["relations_evidence_missing"] += 1
        seqs = set(batch.chunk_seqs)
        occ = [o.chunk_seq for o in by_name[source].occurrences if o.chunk_seq in seqs]
        seq = occ[0] if occ else batch.chunk_seqs[0]
        chunk = next(c for c in locator.chunks if c.seq == seq)
        evidence = evidence_at(text, locator, chunk.start, chunk.start)
        evidence.sentence = rel.fact or f"{source} {rel.type} {target}"
    return CandidateRelation(
        source=source,
        target=target,
        type=rel.type,
        fact=rel.fact or evidence.sentence,
        confidence=rel.confidence,
        evidence=[evidence],
    )

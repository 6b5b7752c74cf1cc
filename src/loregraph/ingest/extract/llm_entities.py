"""The LLM extractor's entity listings → the document's candidates, and its core entities.

* **Merging.** Entities the model listed in several mega-batches are merged by name key:
  mentions added, salience and confidence the maximum, aliases pooled, the type with the
  most salience over the listings, the description of the most salient listing.
* **Dropping.** A merged entity whose name cannot be a proper name is dropped and counted
  (``entities_invalid``), and so is one whose confidence is below the threshold
  (``entities_low_confidence``).
* **Mentions.** Every kept entity's name and aliases are found in the document
  (:func:`~.llm_locate.find_occurrences`); the counted mentions replace the model's
  estimate. An entity found nowhere keeps one occurrence in the first chunk of the first
  batch that listed it (counted as ``entities_unlocated``).
* **Core entities** are chosen exactly as the pipeline will choose them: type
  normalisation, in-document clustering, then
  :func:`~loregraph.ingest.extract.select.select_entities`.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence

from loregraph.ingest.extract.llm_ground import surfaces_of
from loregraph.ingest.extract.llm_locate import find_occurrences
from loregraph.ingest.extract.llm_schema import RawEntity
from loregraph.ingest.extract.select import select_entities
from loregraph.ingest.resolve.cluster import cluster_candidates
from loregraph.ingest.types import (
    CandidateEntity,
    MegaBatch,
    Occurrence,
    SourceDocument,
    TextChunk,
)
from loregraph.models import name_key
from loregraph.settings import ExtractionSettings
from loregraph.text import names
from loregraph.text.entity_types import normalize_type

Listing = tuple[RawEntity, int]
"""An entity as one batch listed it, with the batch's index."""


def merge_listings(
    document: SourceDocument,
    chunks: list[TextChunk],
    batches: Sequence[MegaBatch],
    listed: Sequence[list[RawEntity] | None],
    min_confidence: float,
    stats: Counter[str],
) -> list[CandidateEntity]:
    """The candidates of the grounded listings of every batch (``None``: a batch done
    offline), merged, filtered and located in the document (module docstring)."""
    merged: dict[str, list[Listing]] = {}
    for batch, grounded in zip(batches, listed, strict=True):
        for entity in grounded or ():
            merged.setdefault(name_key(entity.name), []).append((entity, batch.index))
    title_key = name_key(names.split_qualifier(document.entity_title)[0])
    kept: list[tuple[CandidateEntity, list[str], int]] = []
    for key, listings in merged.items():
        found = _candidate(key, listings, title_key, min_confidence, stats)
        if found is not None:
            kept.append(found)
    occurrences = find_occurrences(
        document.text, chunks, {c.name: surfaces for c, surfaces, _ in kept}
    )
    out: list[CandidateEntity] = []
    for candidate, _surfaces, first_batch in kept:
        located = occurrences.get(candidate.name, [])
        if located:
            candidate.occurrences = located
            candidate.mentions = sum(o.count for o in located)
        else:
            stats["entities_unlocated"] += 1
            seq = batches[first_batch].chunk_seqs[0]
            candidate.occurrences = [Occurrence(seq, candidate.name, 1)]
        out.append(candidate)
    return out


def _candidate(
    key: str,
    listings: list[Listing],
    title_key: str,
    min_confidence: float,
    stats: Counter[str],
) -> tuple[CandidateEntity, list[str], int] | None:
    """One name key's listings as a candidate, its search surfaces and its first batch;
    ``None`` (counted) when its name is invalid or its confidence too low."""
    best = max(listings, key=lambda x: (x[0].salience, x[0].confidence))[0]
    confidence = max(e.confidence for e, _ in listings)
    name = names.clean_surface(best.name)
    if not key or not names.is_valid_name(name):
        stats["entities_invalid"] += 1
        return None
    if confidence < min_confidence:
        stats["entities_low_confidence"] += 1
        return None
    kinds: dict[str, float] = {}
    for e, _ in listings:
        kinds[e.type] = kinds.get(e.type, 0.0) + e.salience
    aliases = list(dict.fromkeys(a for e, _ in listings for a in e.aliases))
    candidate = CandidateEntity(
        name=name,
        type=max(sorted(kinds), key=lambda t: kinds[t]),
        description=best.description,
        salience=max(e.salience for e, _ in listings),
        mentions=sum(e.mentions for e, _ in listings),
        confidence=confidence,
        is_title=bool(title_key) and key == title_key,
    )
    return candidate, surfaces_of(name, aliases), min(i for _, i in listings)


def core_entities(
    entities: list[CandidateEntity], settings: ExtractionSettings
) -> list[CandidateEntity]:
    """The core entities, chosen as the pipeline will choose them (on copies)."""
    trial = copy.deepcopy(entities)
    for cand in trial:
        cand.type = normalize_type(cand.type)
    clustered, _records = cluster_candidates(trial)
    return select_entities(clustered, settings).core

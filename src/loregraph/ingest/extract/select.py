"""Core-entity selection: the entities a document is about.

Which candidates of a document become graph nodes, and which of them are *core*: the
entities the LLM relationship pass is restricted to.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from loregraph.ingest.types import CandidateEntity
from loregraph.settings import ExtractionSettings
from loregraph.text.entity_types import normalize_type


@dataclass(slots=True)
class Selection:
    """The outcome of selection: ``nodes`` to write, ``core`` to relate (a subset of nodes)."""

    nodes: list[CandidateEntity] = field(default_factory=list)
    core: list[CandidateEntity] = field(default_factory=list)


def entity_score(candidate: CandidateEntity) -> float:
    """The score: ``mentions * 2 + salience``."""
    return candidate.mentions * 2 + candidate.salience


def _order(candidate: CandidateEntity) -> tuple[float, str, str]:
    return (-entity_score(candidate), candidate.name, candidate.type)


def select_entities(candidates: list[CandidateEntity], settings: ExtractionSettings) -> Selection:
    """Choose a document's nodes and core entities.

    Candidates are ranked by :func:`entity_score`, highest first, ties broken by name (then
    type), so the result never depends on input order.

    * ``core``: the title entities first (``is_title``: what the document is about), then
      the best-ranked candidates that pass *both* minimums (``mentions >=
      min_entity_mentions`` and ``salience >= min_entity_salience``), at most
      ``core_entity_per_type`` of each (normalised) type and ``core_entity_limit`` in all.
      Title entities count toward both limits but are never left out.
    * ``nodes``: every candidate that passes *at least one* minimum, best-ranked first, cut
      at ``max_document_nodes``; the core and the title entities are always included (a cut
      drops the lowest-ranked non-core candidates instead).
    """
    ranked = sorted(candidates, key=_order)
    titles = [c for c in ranked if c.is_title]

    core: list[CandidateEntity] = list(titles)
    per_type: Counter[str] = Counter(normalize_type(c.type) for c in titles)
    for cand in ranked:
        if len(core) >= settings.core_entity_limit:
            break
        if cand.is_title:
            continue
        if cand.mentions < settings.min_entity_mentions:
            continue
        if cand.salience < settings.min_entity_salience:
            continue
        kind = normalize_type(cand.type)
        if per_type[kind] >= settings.core_entity_per_type:
            continue
        per_type[kind] += 1
        core.append(cand)

    kept = {id(c) for c in core}
    room = max(settings.max_document_nodes - len(core), 0)
    extra: list[CandidateEntity] = []
    for cand in ranked:
        if len(extra) >= room:
            break
        if id(cand) in kept:
            continue
        if (
            cand.mentions >= settings.min_entity_mentions
            or cand.salience >= settings.min_entity_salience
        ):
            extra.append(cand)
            kept.add(id(cand))

    nodes = [c for c in ranked if id(c) in kept]
    core.sort(key=lambda c: (not c.is_title, *_order(c)))
    return Selection(nodes=nodes, core=core)

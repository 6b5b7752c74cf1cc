"""StartEntity entities: the entities a question is about, found four ways and fused with RRF.

* ``exact``: mentions whose name or alias matched exactly during analysis;
* ``fuzzy``: trigram similarity for mentions that matched nothing exactly;
* ``bm25``: full-text search over entity names, aliases and descriptions;
* ``vector``: cosine similarity of the question embedding to entity embeddings.

Exact matches carry the most weight (they are taken first, then vector hits fill the rest).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from loregraph.models import Scored, Vector
from loregraph.retrieve.question.analyze import unresolved_candidates
from loregraph.retrieve.results.result import QueryAnalysis, StartEntity
from loregraph.retrieve.results.trace import guarded, no_hits
from loregraph.retrieve.search.fuse import reciprocal_rank_fusion
from loregraph.settings import RetrievalSettings
from loregraph.store.base import Store

FUZZY_THRESHOLD = 0.45
"""Minimum trigram similarity for a fuzzy seed."""

FUZZY_PER_CANDIDATE = 3
SEARCH_LIMIT = 10
SOURCE_WEIGHTS = {"exact": 4.0, "fuzzy": 1.5, "bm25": 1.0, "vector": 1.0}


@dataclass(slots=True)
class SeedLists:
    """The ranked entity-id lists each seed finder produced (empty when it did not run)."""

    exact: list[str] = field(default_factory=list)
    fuzzy: list[str] = field(default_factory=list)
    bm25: list[str] = field(default_factory=list)
    vector: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    def as_rankings(self) -> dict[str, list[str]]:
        """The non-empty rankings by finder name."""
        named = {"exact": self.exact, "fuzzy": self.fuzzy, "bm25": self.bm25}
        named["vector"] = self.vector
        return {name: ids for name, ids in named.items() if ids}


def exact_ranking(analysis: QueryAnalysis) -> list[str]:
    """Exactly matched entity ids, in the order their mentions appear in the question."""
    seen: dict[str, None] = {}
    for entity_id in analysis.matched.values():
        seen.setdefault(entity_id, None)
    return list(seen)


def merge_fuzzy(results: Sequence[Sequence[Scored]], threshold: float) -> list[str]:
    """Merge per-candidate fuzzy hits: best similarity first, below ``threshold`` dropped."""
    best: dict[str, float] = {}
    for hits in results:
        for hit in hits:
            if hit.score >= threshold and hit.score > best.get(hit.id, -1.0):
                best[hit.id] = hit.score
    return [entity_id for entity_id, _ in sorted(best.items(), key=lambda kv: -kv[1])]


def text_query(analysis: QueryAnalysis) -> str:
    """The full-text query for a question: its keywords (stopwords only add noise)."""
    return " ".join(analysis.keywords) or analysis.question


async def seed_lists(
    store: Store,
    scope: str,
    analysis: QueryAnalysis,
    vector: Vector | None,
    settings: RetrievalSettings,
    *,
    limit: int = SEARCH_LIMIT,
    fuzzy_threshold: float = FUZZY_THRESHOLD,
) -> SeedLists:
    """Run the enabled seed finders concurrently; returns each one's ranked ids."""
    lists = SeedLists()
    if settings.use_exact:
        lists.exact = exact_ranking(analysis)
        lists.ran.append("exact")
    fuzzy_targets = unresolved_candidates(analysis) if settings.use_fuzzy else []
    if settings.use_fuzzy:
        lists.ran.append("fuzzy")
    bm25_on = settings.use_bm25_entities and bool(analysis.question.strip())
    vector_on = settings.use_vector_entities and vector is not None
    if bm25_on:
        lists.ran.append("bm25")
    if vector_on:
        lists.ran.append("vector")

    errors = lists.errors
    fuzzy_tasks = [
        guarded(
            store.search_entities_fuzzy(scope, candidate, FUZZY_PER_CANDIDATE),
            "entities.fuzzy",
            errors,
        )
        for candidate in fuzzy_targets
    ]
    bm25_task = (
        guarded(
            store.search_entities_text(scope, text_query(analysis), limit), "entities.bm25", errors
        )
        if bm25_on
        else no_hits()
    )
    vector_task = (
        guarded(store.search_entities_vector(scope, vector, limit), "entities.vector", errors)
        if vector_on and vector is not None
        else no_hits()
    )
    bm25, vec, *fuzzy = await asyncio.gather(bm25_task, vector_task, *fuzzy_tasks)
    lists.fuzzy = merge_fuzzy(fuzzy, fuzzy_threshold)
    lists.bm25 = [hit.id for hit in bm25]
    lists.vector = [hit.id for hit in vec]
    return lists


def fuse_seed_lists(lists: SeedLists, k: int, max_seeds: int) -> list[tuple[str, float, list[str]]]:
    """(entity id, fused score, finders) for the top ``max_seeds`` seeds, best first."""
    fused = reciprocal_rank_fusion(lists.as_rankings(), k=k, weights=SOURCE_WEIGHTS)
    return [(f.id, f.score, f.found_by) for f in fused[: max(0, max_seeds)]]


async def find_seeds(
    store: Store,
    scope: str,
    analysis: QueryAnalysis,
    vector: Vector | None,
    settings: RetrievalSettings,
) -> tuple[list[StartEntity], SeedLists]:
    """The top ``settings.max_start_entities`` seed entities with their finders, best first."""
    lists = await seed_lists(store, scope, analysis, vector, settings)
    top = fuse_seed_lists(lists, settings.rrf_k, settings.max_start_entities)
    if not top:
        return [], lists
    entities = {e.id: e for e in await store.get_entities([entity_id for entity_id, _, _ in top])}
    seeds = [
        StartEntity(entity=entities[entity_id], score=score, found_by=found_by)
        for entity_id, score, found_by in top
        if entity_id in entities
    ]
    return seeds, lists

"""The graph side of one retrieval: find the seed entities, then expand from them.

Each stage is a function of what the earlier stages found; it records one
:class:`~loregraph.retrieve.results.trace.StageRecord` into the query's trace. The text and vector
passage searches run concurrently with the seed finders (they need nothing from them), and
their rankings travel on to the passage stage (:mod:`loregraph.retrieve.search.gather`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from loregraph.models import DocKind, Relation, Vector
from loregraph.retrieve.graph.expand import rank_entities, rank_relations, seeds_only
from loregraph.retrieve.graph.expander import Expander
from loregraph.retrieve.graph.graphindex import GraphIndex
from loregraph.retrieve.graph.ppr import personalised_pagerank, restart_weights
from loregraph.retrieve.question.relevance import chunk_counts, question_terms
from loregraph.retrieve.results.result import (
    QueryAnalysis,
    RankedEntity,
    RankedRelation,
    StartEntity,
)
from loregraph.retrieve.results.terms import Term
from loregraph.retrieve.results.trace import RetrievalTrace, Stopwatch, guarded, no_hits
from loregraph.retrieve.search.seeds import SeedLists, find_seeds, text_query
from loregraph.settings import RetrievalSettings
from loregraph.store.base import Store

RELATION_ENTITIES = 20
"""Relations are listed among this many top-ranked entities (the rest rank too low to show)."""

PPR_CHUNK_SEEDS = 5
"""How many of the best text/vector chunks also seed PageRank's restart set."""


@dataclass(slots=True)
class Found:
    """What the search stage found: seeds, their finders' lists, text/vector chunk rankings."""

    seeds: list[StartEntity]
    lists: SeedLists
    chunk_rankings: dict[str, list[str]]
    terms: list[Term]
    counts: dict[str, int]
    vector_scores: dict[str, float] = field(default_factory=dict)
    """The vector search's similarity of each chunk it found."""


@dataclass(slots=True)
class Expanded:
    """What the expand stage found: ranked entities and relations, PageRank's chunks."""

    entities: list[RankedEntity]
    relations: list[RankedRelation]
    ppr_chunks: list[str] = field(default_factory=list)


async def search(
    store: Store,
    scope: str,
    cfg: RetrievalSettings,
    analysis: QueryAnalysis,
    vector: Vector | None,
    trace: RetrievalTrace,
    kind: DocKind | None = None,
) -> Found:
    """StartEntity entities, BM25/vector chunk rankings (of documents of ``kind`` only, when
    given) and the relevance term counts, together."""
    watch = Stopwatch()
    errors = trace.errors
    limit = max(cfg.max_passages * 4, 20)
    bm25_chunks = (
        guarded(
            store.search_chunks_text(scope, text_query(analysis), limit, kind=kind),
            "chunks.bm25",
            errors,
        )
        if cfg.passages_by_bm25
        else no_hits()
    )
    vector_chunks = (
        guarded(
            store.search_chunks_vector(scope, vector, limit, kind=kind), "chunks.vector", errors
        )
        if cfg.passages_by_vector and vector is not None
        else no_hits()
    )
    terms = question_terms(analysis)
    (seeds, lists), bm25_hits, vector_hits, counts = await asyncio.gather(
        find_seeds(store, scope, analysis, vector, cfg),
        bm25_chunks,
        vector_chunks,
        chunk_counts(store, scope, terms, errors),
    )
    errors.update(lists.errors)
    if lists.ran:
        trace.record(
            "start",
            watch.ms(),
            len(seeds),
            ran=lists.ran,
            lists={name: len(ids) for name, ids in lists.as_rankings().items()},
            seeds=[s.entity.name for s in seeds],
        )
    else:
        trace.skip("start", "no start entity finder in this preset")
    chunk_rankings: dict[str, list[str]] = {}
    if bm25_hits:
        chunk_rankings["bm25"] = [h.id for h in bm25_hits]
    if vector_hits:
        chunk_rankings["vector"] = [h.id for h in vector_hits]
    scores = {h.id: h.score for h in vector_hits}
    return Found(seeds, lists, chunk_rankings, terms, counts, vector_scores=scores)


def _interleave(rankings: list[list[str]], limit: int) -> list[str]:
    """The first ``limit`` distinct ids, taking one from each ranking in turn."""
    out: dict[str, None] = {}
    depth = 0
    while len(out) < limit and any(depth < len(r) for r in rankings):
        for ranking in rankings:
            if depth < len(ranking):
                out.setdefault(ranking[depth], None)
        depth += 1
    return list(out)[:limit]


async def expand(
    store: Store,
    cfg: RetrievalSettings,
    analysis: QueryAnalysis,
    found: Found,
    index: GraphIndex | None,
    expander: Expander | None,
    trace: RetrievalTrace,
) -> Expanded:
    """Expand from the seeds (PageRank, k-hop, or none) and rank entities and relations."""
    watch = Stopwatch()
    seeds, chunk_rankings = found.seeds, list(found.chunk_rankings.values())
    matched = set(analysis.matched.values()) | set(found.lists.fuzzy)
    vector_ids = set(found.lists.vector)
    if index is not None and cfg.expansion == "ppr" and (seeds or chunk_rankings):
        expanded, pool, details = await _pagerank(store, cfg, seeds, index, chunk_rankings)
    elif expander is not None and cfg.expansion == "bfs" and seeds:
        expanded, pool, details = await _k_hop(store, cfg, found, expander, matched, vector_ids)
    else:
        expanded = Expanded(seeds_only(seeds, matched_ids=matched, vector_ids=vector_ids), [])
        seed_ids = [s.entity.id for s in seeds]
        pool = await store.relations_among(seed_ids) if len(seed_ids) > 1 else []
        details = {}
    scores = {e.entity.id: e.score for e in expanded.entities}
    names = {e.entity.id: e.entity.name for e in expanded.entities}
    expanded.relations = rank_relations(pool, scores, names, cfg.max_relations)
    count, n_relations = len(expanded.entities), len(expanded.relations)
    if details:
        trace.record("expand", watch.ms(), count, **details, relations=n_relations)
    else:
        reason = "no start entities" if not seeds else f"expansion={cfg.expansion!r}"
        trace.skip("expand", reason, count, watch.ms(), relations=n_relations)
    return expanded


async def _pagerank(
    store: Store,
    cfg: RetrievalSettings,
    seeds: list[StartEntity],
    index: GraphIndex,
    chunk_rankings: list[list[str]],
) -> tuple[Expanded, list[Relation], dict[str, object]]:
    """Personalised PageRank from the seeds and the best chunks, on the in-memory graph."""
    seed_ids = [s.entity.id for s in seeds]
    first_chunks = _interleave(chunk_rankings, PPR_CHUNK_SEEDS)
    ent_w, chunk_w = restart_weights({s.entity.id: s.score for s in seeds}, first_chunks)
    scores = personalised_pagerank(
        index.ppr,
        ent_w,
        chunk_w,
        damping=cfg.ppr_damping,
        top_entities=cfg.max_entities,
        top_chunks=max(cfg.max_passages * 4, 20),
    )
    wanted = list(dict.fromkeys([*seed_ids, *scores.entities]))[: cfg.max_entities]
    found_list, pool = await asyncio.gather(
        store.get_entities(wanted), store.relations_among(wanted[:RELATION_ENTITIES])
    )
    found = {e.id: e for e in found_list}
    top_score = max(scores.entities.values(), default=1.0) or 1.0
    entities = [
        RankedEntity(
            entity=found[eid],
            score=scores.entities.get(eid, 0.0) / top_score + (1.0 if eid in seed_ids else 0.0),
            hop=0 if eid in seed_ids else None,
            is_start=eid in seed_ids,
            found_by=["start", "ppr"] if eid in seed_ids else ["ppr"],
        )
        for eid in wanted
        if eid in found
    ]
    entities.sort(key=lambda e: -e.score)
    details: dict[str, object] = {
        "mode": "ppr",
        "iterations": scores.iterations,
        "nodes": scores.nodes,
    }
    return Expanded(entities, [], list(scores.chunks)), pool, details


async def _k_hop(
    store: Store,
    cfg: RetrievalSettings,
    found: Found,
    expander: Expander,
    matched: set[str],
    vector_ids: set[str],
) -> tuple[Expanded, list[Relation], dict[str, object]]:
    """Breadth-first expansion over the in-memory graph index, then merge + rank."""
    seed_ids = [s.entity.id for s in found.seeds]
    reached = await expander.expand(
        seed_ids,
        depth=cfg.max_graph_depth,
        per_node=cfg.per_node,
        max_entities=max(cfg.max_entities, len(seed_ids)),
    )
    found_list = await store.get_entities(list(reached.hops))
    entities = rank_entities(
        {e.id: e for e in found_list},
        reached.hops,
        reached.links,
        found.seeds,
        matched_ids=matched,
        vector_ids=vector_ids,
        max_entities=cfg.max_entities,
    )
    pool = await store.relations_among([e.entity.id for e in entities[:RELATION_ENTITIES]])
    details: dict[str, object] = {
        "mode": "bfs",
        "depth": cfg.max_graph_depth,
        "reached": len(reached.hops),
    }
    return Expanded(entities, []), pool, details

"""The retrieval orchestrator: analyse → seed → expand → gather passages → fuse → rank.

Independent store searches run concurrently; the question is embedded once (in a worker
thread) and the vector reused by every vector search. Every stage reports how long it took
and what it found in ``RetrievalResult.debug``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from loregraph.embed.base import Embedder
from loregraph.errors import EmptyStoreError
from loregraph.models import Relation, Scored, Vector
from loregraph.retrieve.analyze import analyze_query
from loregraph.retrieve.expand import rank_relations, rank_subgraph, seeds_only
from loregraph.retrieve.passages import (
    fuse_passages,
    load_passages,
    mention_ranking,
    rank_documents,
)
from loregraph.retrieve.ppr import SHARED_CACHE, PprCache, personalised_pagerank, restart_weights
from loregraph.retrieve.result import QueryAnalysis, RankedEntity, RetrievalResult, Seed
from loregraph.retrieve.seeds import SeedLists, find_seeds, text_query
from loregraph.retrieve.timing import Stopwatch, guarded, skipped, stage
from loregraph.settings import PRESETS, RetrievalSettings
from loregraph.store.base import Store

MENTION_ENTITIES = 20
"""How many of the top-ranked entities contribute passages by mention."""

PPR_CHUNK_SEEDS = 5
"""How many of the best text/vector chunks also seed PageRank's restart set."""


async def _no_hits() -> list[Scored]:
    return []


class Retriever:
    """Graph-augmented retrieval over one store.

    ``nlp`` is an optional, already loaded spaCy pipeline used for extra question mentions;
    ``ppr_cache`` defaults to a process-wide cache of PageRank matrices.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: RetrievalSettings | None = None,
        *,
        nlp: Any | None = None,
        ppr_cache: PprCache | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or PRESETS["hybrid"]
        self.nlp = nlp
        self.ppr_cache = ppr_cache or SHARED_CACHE

    async def _embed(self, question: str) -> Vector | None:
        if self.embedder is None:
            return None
        matrix = await asyncio.to_thread(self.embedder.embed, [question])
        vector = np.asarray(matrix[0], dtype=np.float32)
        return vector if float(np.linalg.norm(vector)) > 0 else None

    async def retrieve(
        self, question: str, scope: str, *, settings: RetrievalSettings | None = None
    ) -> RetrievalResult:
        """Retrieve entities, relations and passages for ``question`` from ``scope``.

        Raises :class:`~loregraph.errors.EmptyStoreError` when the scope has no documents.
        """
        cfg = settings or self.settings
        total = Stopwatch()
        debug: dict[str, dict[str, Any]] = {}

        if not await self.store.list_documents(scope, limit=1):
            raise EmptyStoreError(
                f"scope {scope!r} holds no documents; ingest some first "
                "(e.g. `loregraph ingest PATH`)"
            )

        wants_vector = cfg.use_vector_entities or cfg.passages_by_vector
        watch = Stopwatch()
        analysis_task = analyze_query(question, self.store, scope, nlp=self.nlp)
        if wants_vector:
            analysis, vector = await asyncio.gather(analysis_task, self._embed(question))
        else:
            analysis, vector = await analysis_task, None
        debug["analyze"] = stage(
            watch.ms(),
            len(analysis.candidates),
            intent=analysis.intent,
            matched=len(analysis.matched),
            spacy=analysis.used_spacy,
        )
        debug["embed"] = (
            stage(watch.ms(), int(vector is not None), dim=None if vector is None else len(vector))
            if wants_vector
            else skipped("no vector stage in this preset")
        )

        # Seeds and the text/vector passage rankings do not depend on each other.
        watch = Stopwatch()
        errors: dict[str, str] = {}
        limit = max(cfg.max_passages * 4, 20)
        bm25_chunks = (
            guarded(
                self.store.search_chunks_text(scope, text_query(analysis), limit),
                "chunks.bm25",
                errors,
            )
            if cfg.passages_by_bm25
            else _no_hits()
        )
        vector_chunks = (
            guarded(self.store.search_chunks_vector(scope, vector, limit), "chunks.vector", errors)
            if cfg.passages_by_vector and vector is not None
            else _no_hits()
        )
        (seeds, lists), bm25_hits, vector_hits = await asyncio.gather(
            find_seeds(self.store, scope, analysis, vector, cfg), bm25_chunks, vector_chunks
        )
        errors.update(lists.errors)
        debug["seeds"] = (
            stage(
                watch.ms(),
                len(seeds),
                ran=lists.ran,
                lists={name: len(ids) for name, ids in lists.as_rankings().items()},
                seeds=[s.entity.name for s in seeds],
            )
            if lists.ran
            else skipped("no seed finder enabled in this preset")
        )

        watch = Stopwatch()
        chunk_rankings: dict[str, list[str]] = {}
        if bm25_hits:
            chunk_rankings["bm25"] = [h.id for h in bm25_hits]
        if vector_hits:
            chunk_rankings["vector"] = [h.id for h in vector_hits]
        entities, relations, ppr_chunks = await self._expand(
            scope, cfg, analysis, seeds, lists, chunk_rankings, debug
        )
        debug["expand"]["ms"] = watch.ms()

        watch = Stopwatch()
        ran: list[str] = []
        if cfg.passages_by_mentions and entities:
            top = entities[:MENTION_ENTITIES]
            rows = await self.store.chunks_mentioning([e.entity.id for e in top])
            chunk_rankings = {
                "mentions": mention_ranking(rows, {e.entity.id: e.score for e in top}),
                **chunk_rankings,
            }
            ran.append("mentions")
        if cfg.passages_by_bm25:
            ran.append("bm25")
        if cfg.passages_by_vector:
            ran.append("vector")
        if ppr_chunks:
            chunk_rankings["ppr"] = ppr_chunks
            ran.append("ppr")
        fused = fuse_passages(chunk_rankings, cfg.rrf_k, cfg.max_passages)
        passages = await load_passages(self.store, fused)
        documents = rank_documents(passages, cfg.rrf_k)
        debug["passages"] = stage(
            watch.ms(),
            len(passages),
            ran=ran,
            lists={name: len(ids) for name, ids in chunk_rankings.items()},
            documents=len(documents),
        )
        if errors:
            debug["errors"] = {"ms": 0.0, "count": len(errors), "skipped": True, **errors}
        debug["total"] = stage(total.ms(), len(passages), preset=cfg.name)

        return RetrievalResult(
            question=question,
            scope=scope,
            preset=cfg.name,
            analysis=analysis,
            seeds=seeds,
            entities=entities,
            relations=relations,
            passages=passages,
            documents=documents,
            token_budget=cfg.token_budget,
            debug=debug,
        )

    async def _expand(
        self,
        scope: str,
        cfg: RetrievalSettings,
        analysis: QueryAnalysis,
        seeds: list[Seed],
        lists: SeedLists,
        chunk_rankings: dict[str, list[str]],
        debug: dict[str, dict[str, Any]],
    ) -> tuple[list[RankedEntity], list[Any], list[str]]:
        """Expand from the seeds; returns ranked entities, ranked relations, PPR chunk ids."""
        matched = set(analysis.matched.values()) | set(lists.fuzzy)
        vector_ids = set(lists.vector)
        seed_ids = [s.entity.id for s in seeds]
        ppr_chunks: list[str] = []
        rel_pool: list[Relation]

        if cfg.expansion == "ppr" and (seeds or chunk_rankings):
            graph, rebuilt = await self.ppr_cache.get(self.store, scope)
            first_chunks = _interleave(chunk_rankings.values(), PPR_CHUNK_SEEDS)
            ent_w, chunk_w = restart_weights({s.entity.id: s.score for s in seeds}, first_chunks)
            scores = personalised_pagerank(
                graph,
                ent_w,
                chunk_w,
                damping=cfg.ppr_damping,
                top_entities=cfg.max_entities,
                top_chunks=max(cfg.max_passages * 4, 20),
            )
            ppr_chunks = list(scores.chunks)
            wanted = list(dict.fromkeys([*seed_ids, *scores.entities]))[: cfg.max_entities]
            found = {e.id: e for e in await self.store.get_entities(wanted)}
            top_score = max(scores.entities.values(), default=1.0) or 1.0
            entities = [
                RankedEntity(
                    entity=found[eid],
                    score=scores.entities.get(eid, 0.0) / top_score
                    + (1.0 if eid in seed_ids else 0.0),
                    hop=0 if eid in seed_ids else None,
                    is_seed=eid in seed_ids,
                    found_by=["seed", "ppr"] if eid in seed_ids else ["ppr"],
                )
                for eid in wanted
                if eid in found
            ]
            entities.sort(key=lambda e: -e.score)
            rel_pool = await self.store.relations_among([e.entity.id for e in entities])
            debug["expand"] = stage(
                0.0,
                len(entities),
                mode="ppr",
                iterations=scores.iterations,
                nodes=scores.nodes,
                rebuilt=rebuilt,
                chunks=len(ppr_chunks),
            )
        elif cfg.expansion == "bfs" and seeds:
            subgraph = await self.store.expand(
                scope,
                seed_ids,
                depth=cfg.max_graph_depth,
                per_node=cfg.per_node,
                max_entities=cfg.max_entities,
            )
            entities = rank_subgraph(
                subgraph,
                seeds,
                matched_ids=matched,
                vector_ids=vector_ids,
                max_entities=cfg.max_entities,
            )
            rel_pool = subgraph.relations
            debug["expand"] = stage(
                0.0,
                len(entities),
                mode="bfs",
                depth=cfg.max_graph_depth,
                reached=len(subgraph.hops),
            )
        else:
            entities = seeds_only(seeds, matched_ids=matched, vector_ids=vector_ids)
            rel_pool = await self.store.relations_among(seed_ids) if len(seed_ids) > 1 else []
            reason = "no seeds" if not seeds else f"expansion={cfg.expansion!r}"
            debug["expand"] = {**skipped(reason), "count": len(entities)}

        scores_by_id = {e.entity.id: e.score for e in entities}
        names = {e.entity.id: e.entity.name for e in entities}
        relations = rank_relations(rel_pool, scores_by_id, names, cfg.max_relations)
        debug["expand"]["relations"] = len(relations)
        return entities, relations, ppr_chunks


def _interleave(rankings: Any, limit: int) -> list[str]:
    """The first ``limit`` distinct ids taking one from each ranking in turn."""
    lists = [list(r) for r in rankings]
    out: dict[str, None] = {}
    depth = 0
    while len(out) < limit and any(depth < len(r) for r in lists):
        for ranking in lists:
            if depth < len(ranking):
                out.setdefault(ranking[depth], None)
        depth += 1
    return list(out)[:limit]

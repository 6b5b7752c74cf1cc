"""The retrieval orchestrator: analyse → seed → expand → gather passages → fuse → rank.

Independent work runs concurrently: the question is embedded once (in a worker thread)
while it is analysed and the scope's in-memory graph index is fetched; the seed finders
and the text/vector passage searches then run together. Every stage reports how long it
took and what it found in ``RetrievalResult.debug``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, Protocol

import numpy as np

from loregraph.embed.base import Embedder
from loregraph.errors import EmptyStoreError, InputError
from loregraph.models import Relation, Scored, Vector
from loregraph.retrieve.analyze import analyze_query, check_question, loaded_spacy
from loregraph.retrieve.expand import rank_entities, rank_relations, seeds_only
from loregraph.retrieve.graphindex import SHARED_CACHE, GraphCache, GraphIndex
from loregraph.retrieve.pages import MAX_ANCHORS, bridge_ranking, named_entities, relation_words
from loregraph.retrieve.passages import (
    evidence_ranking,
    fuse_passages,
    load_passages,
    mention_ranking,
    rank_documents,
)
from loregraph.retrieve.ppr import personalised_pagerank, restart_weights
from loregraph.retrieve.relevance import MIN_COVERAGE, assess, chunk_counts, question_terms
from loregraph.retrieve.result import (
    QueryAnalysis,
    RankedEntity,
    RankedRelation,
    RetrievalResult,
    Seed,
)
from loregraph.retrieve.seeds import SeedLists, find_seeds, text_query
from loregraph.retrieve.timing import Stopwatch, guarded, skipped, stage
from loregraph.settings import PRESETS, RetrievalSettings
from loregraph.store.base import Store

MENTION_ENTITIES = 10
"""How many of the top-ranked entities contribute passages by mention."""

FACT_RELATIONS = 10
"""How many of the top-ranked relations contribute their evidence chunks as passages."""

RELATION_ENTITIES = 20
"""Relations are listed among this many top-ranked entities (the rest rank too low to show)."""

DOCUMENT_PASSAGES = 30
"""Documents are ranked from this many fused passages (more than are shown)."""

PPR_CHUNK_SEEDS = 5
"""How many of the best text/vector chunks also seed PageRank's restart set."""


async def _none() -> None:
    return None


async def _no_hits() -> list[Scored]:
    return []


async def _no_relations() -> list[Relation]:
    return []


def _attach_evidence(
    relations: list[RankedRelation], loaded: list[Relation]
) -> list[RankedRelation]:
    """The ranked relations, with the evidence-carrying versions of those that were loaded."""
    by_id = {r.id: r for r in loaded}
    return [
        dataclasses.replace(r, relation=by_id[r.relation.id]) if r.relation.id in by_id else r
        for r in relations
    ]


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


class Analyzer(Protocol):
    """Turns a question into a :class:`QueryAnalysis` (offline rules, or an LLM)."""

    async def __call__(
        self, question: str, store: Store, scope: str, *, nlp: Any | None = None
    ) -> QueryAnalysis: ...


class Retriever:
    """Graph-augmented retrieval over one store.

    ``embedder`` may be ``None`` (no vector search). ``nlp`` is an optional, already loaded
    spaCy pipeline used for extra question mentions; without one, the pipeline the offline
    extractor loaded in this process is used if there is one (``use_loaded_spacy``), and no
    model is ever loaded for a query. ``graph_cache`` defaults to a process-wide cache of
    in-memory graph indexes. ``analyzer`` replaces the offline query analysis (e.g. with
    an LLM analyzer that falls back to it). ``min_coverage`` is the relevance threshold
    (:mod:`loregraph.retrieve.relevance`; 0 treats every non-empty result as relevant).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: RetrievalSettings | None = None,
        *,
        nlp: Any | None = None,
        use_loaded_spacy: bool = True,
        graph_cache: GraphCache | None = None,
        analyzer: Analyzer | None = None,
        min_coverage: float = MIN_COVERAGE,
    ) -> None:
        self.store = store
        self.min_coverage = min_coverage
        self.analyzer: Analyzer = analyzer or analyze_query
        self.embedder = embedder
        self.settings = settings or PRESETS["hybrid"]
        self.nlp = nlp
        self.use_loaded_spacy = use_loaded_spacy
        self.graph_cache = graph_cache or SHARED_CACHE

    async def _embed(self, question: str) -> Vector | None:
        if self.embedder is None:
            return None
        matrix = await asyncio.to_thread(self.embedder.embed, [question])
        vector = np.asarray(matrix[0], dtype=np.float32)
        return vector if float(np.linalg.norm(vector)) > 0 else None

    def _nlp(self) -> Any | None:
        if self.nlp is not None:
            return self.nlp
        return loaded_spacy() if self.use_loaded_spacy else None

    async def _graph(self, scope: str) -> tuple[GraphIndex, bool, float]:
        watch = Stopwatch()
        index, rebuilt = await self.graph_cache.get(self.store, scope)
        return index, rebuilt, watch.ms()

    async def retrieve(
        self, question: str, scope: str, *, settings: RetrievalSettings | None = None
    ) -> RetrievalResult:
        """Retrieve entities, relations and passages for ``question`` from ``scope``.

        Raises :class:`~loregraph.errors.EmptyStoreError` when the scope has no documents
        and :class:`~loregraph.errors.InputError` when the question is blank.
        """
        cfg = settings or self.settings
        total = Stopwatch()
        debug: dict[str, dict[str, Any]] = {}
        if not question.strip():
            raise InputError("the question is empty; ask something about the documents")
        check_question(question)
        if not await self.store.list_documents(scope, limit=1):
            raise EmptyStoreError(
                f"scope {scope!r} holds no documents; ingest some first "
                "(e.g. `loregraph ingest PATH`)"
            )

        # 1. analyse, embed and fetch the graph index concurrently
        watch = Stopwatch()
        wants_vector = cfg.use_vector_entities or cfg.passages_by_vector
        wants_graph = cfg.expansion != "none" or cfg.passages_by_mentions or cfg.entity_pages
        analysis, vector, graph = await asyncio.gather(
            self.analyzer(question, self.store, scope, nlp=self._nlp()),
            self._embed(question) if wants_vector else _none(),
            self._graph(scope) if wants_graph else _none(),
        )
        ms = watch.ms()
        debug["analyze"] = stage(
            ms,
            len(analysis.candidates),
            intent=analysis.intent,
            matched=len(analysis.matched),
            spacy=analysis.used_spacy,
        )
        debug["embed"] = (
            stage(ms, int(vector is not None)) if wants_vector else skipped("no vector stage")
        )
        index: GraphIndex | None = None
        if graph is not None:
            index, rebuilt, graph_ms = graph
            debug["graph"] = stage(graph_ms, len(index.entity_index), rebuilt=rebuilt)
        else:
            debug["graph"] = skipped("no graph stage in this preset")

        # 2. seeds, and the text/vector passage rankings (independent of each other)
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
        terms = question_terms(analysis)
        (seeds, lists), bm25_hits, vector_hits, counts = await asyncio.gather(
            find_seeds(self.store, scope, analysis, vector, cfg),
            bm25_chunks,
            vector_chunks,
            chunk_counts(self.store, scope, terms, errors),
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
            else skipped("no seed finder in this preset")
        )
        chunk_rankings: dict[str, list[str]] = {}
        if bm25_hits:
            chunk_rankings["bm25"] = [h.id for h in bm25_hits]
        if vector_hits:
            chunk_rankings["vector"] = [h.id for h in vector_hits]

        # 3. expansion
        watch = Stopwatch()
        entities, relations, ppr_chunks = await self._expand(
            scope, cfg, analysis, seeds, lists, index, list(chunk_rankings.values()), debug
        )
        debug["expand"]["ms"] = watch.ms()

        # 4. passages: graph rankings fused with the text/vector ones
        watch = Stopwatch()
        ran: list[str] = []
        graph_rankings: dict[str, list[str]] = {}
        if cfg.passages_by_mentions and entities and index is not None:
            top = entities[:MENTION_ENTITIES]
            rows = index.mentions_of([e.entity.id for e in top])
            graph_rankings["mentions"] = mention_ranking(rows, {e.entity.id: e.score for e in top})
            ran.append("mentions")
            fact_ids = [r.relation.id for r in relations[:FACT_RELATIONS]]
            if fact_ids:
                relations = _attach_evidence(relations, await self.store.get_relations(fact_ids))
                graph_rankings["facts"] = evidence_ranking(relations[:FACT_RELATIONS])
                ran.append("facts")
        if cfg.passages_by_bm25:
            ran.append("bm25")
        if cfg.passages_by_vector:
            ran.append("vector")
        if ppr_chunks:
            graph_rankings["ppr"] = ppr_chunks
            ran.append("ppr")
        if cfg.entity_pages and index is not None and index.pages:
            page_rankings = await self._pages(analysis, index)
            graph_rankings.update(page_rankings)
            ran.extend(page_rankings)
        rankings = {**graph_rankings, **chunk_rankings}
        fused = fuse_passages(rankings, cfg.rrf_k, max(cfg.max_passages, DOCUMENT_PASSAGES))
        ranked_passages = await load_passages(self.store, fused)
        documents = rank_documents(ranked_passages, cfg.rrf_k)
        passages = ranked_passages[: cfg.max_passages]
        debug["passages"] = stage(
            watch.ms(),
            len(passages),
            ran=ran,
            lists={name: len(ids) for name, ids in rankings.items()},
            documents=len(documents),
        )
        watch = Stopwatch()
        relevance = assess(analysis, terms, counts, ranked_passages, threshold=self.min_coverage)
        debug["relevance"] = {"ms": watch.ms(), **relevance.debug()}
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
            relevant=relevance.relevant,
        )

    async def _pages(self, analysis: QueryAnalysis, index: GraphIndex) -> dict[str, list[str]]:
        """The ``pages`` and ``bridges`` rankings (see :mod:`loregraph.retrieve.pages`)."""
        named = [e for e in named_entities(analysis) if e in index.pages]
        if not named:
            return {}
        page_chunks = list(dict.fromkeys(c for e in named for c in index.pages[e]))
        out = {"pages": page_chunks}
        anchor_ids = list(dict.fromkeys(c for e in named[:MAX_ANCHORS] for c in index.pages[e]))
        mentioned_ids = index.entities_in(anchor_ids)
        wanted_entities = list(
            dict.fromkeys(e for ids in mentioned_ids.values() for e in ids if e in index.pages)
        )
        anchors, entities = await asyncio.gather(
            self.store.get_chunks(anchor_ids), self.store.get_entities(wanted_entities)
        )
        by_id = {e.id: e for e in entities}
        mentioned = {
            chunk_id: [by_id[e] for e in ids if e in by_id]
            for chunk_id, ids in mentioned_ids.items()
        }
        bridges = bridge_ranking(
            anchors, mentioned, index.pages, relation_words(analysis), set(named)
        )
        if bridges:
            out["bridges"] = bridges
        return out

    async def _expand(
        self,
        scope: str,
        cfg: RetrievalSettings,
        analysis: QueryAnalysis,
        seeds: list[Seed],
        lists: SeedLists,
        index: GraphIndex | None,
        chunk_rankings: list[list[str]],
        debug: dict[str, dict[str, Any]],
    ) -> tuple[list[RankedEntity], list[RankedRelation], list[str]]:
        """Expand from the seeds; returns ranked entities, ranked relations, PPR chunk ids."""
        matched = set(analysis.matched.values()) | set(lists.fuzzy)
        vector_ids = set(lists.vector)
        seed_ids = [s.entity.id for s in seeds]
        ppr_chunks: list[str] = []
        pool: list[Relation]

        if index is not None and cfg.expansion == "ppr" and (seeds or chunk_rankings):
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
            ppr_chunks = list(scores.chunks)
            wanted = list(dict.fromkeys([*seed_ids, *scores.entities]))[: cfg.max_entities]
            found_list, pool = await asyncio.gather(
                self.store.get_entities(wanted),
                self.store.relations_among(wanted[:RELATION_ENTITIES]),
            )
            found = {e.id: e for e in found_list}
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
            debug["expand"] = stage(
                0.0, len(entities), mode="ppr", iterations=scores.iterations, nodes=scores.nodes
            )
        elif index is not None and cfg.expansion == "bfs" and seeds:
            hops = index.bfs(
                seed_ids,
                depth=cfg.max_graph_depth,
                per_node=cfg.per_node,
                max_entities=max(cfg.max_entities, len(seed_ids)),
            )
            found_list = await self.store.get_entities(list(hops))
            entities = rank_entities(
                {e.id: e for e in found_list},
                hops,
                index.link_weights(hops),
                seeds,
                matched_ids=matched,
                vector_ids=vector_ids,
                max_entities=cfg.max_entities,
            )
            pool = await self.store.relations_among(
                [e.entity.id for e in entities[:RELATION_ENTITIES]]
            )
            debug["expand"] = stage(
                0.0, len(entities), mode="bfs", depth=cfg.max_graph_depth, reached=len(hops)
            )
        else:
            entities = seeds_only(seeds, matched_ids=matched, vector_ids=vector_ids)
            pool = await self.store.relations_among(seed_ids) if len(seed_ids) > 1 else []
            reason = "no seeds" if not seeds else f"expansion={cfg.expansion!r}"
            debug["expand"] = {**skipped(reason), "count": len(entities)}

        scores_by_id = {e.entity.id: e.score for e in entities}
        names = {e.entity.id: e.entity.name for e in entities}
        relations = rank_relations(pool, scores_by_id, names, cfg.max_relations)
        debug["expand"]["relations"] = len(relations)
        return entities, relations, ppr_chunks

"""The passage side of one retrieval: rank passages, fuse, rank documents, judge relevance.

The graph's rankings (passages mentioning the top entities, evidence of the top relations,
PageRank's chunks, entity pages and the pages they lead to) are fused by RRF with the text
and vector rankings of the search stage; documents are ranked by their passages; finally
the relevance check decides whether the best passages are about the question at all. Each
step records into the query's trace (:mod:`loregraph.retrieve.results.trace`), and
:func:`record_findings` says what found each result.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from loregraph.models import DocKind, Relation
from loregraph.retrieve.graph.graphindex import GraphIndex
from loregraph.retrieve.graph.pages import (
    MAX_ANCHORS,
    bridge_ranking,
    named_entities,
    relation_words,
)
from loregraph.retrieve.question.relevance import PASSAGES_CHECKED, Relevance, assess
from loregraph.retrieve.results.result import (
    Passage,
    QueryAnalysis,
    RankedDocument,
    RankedRelation,
    StartEntity,
)
from loregraph.retrieve.results.trace import RetrievalTrace, Stopwatch
from loregraph.retrieve.search.kinds import keep_kind
from loregraph.retrieve.search.passages import (
    evidence_ranking,
    fuse_passages,
    load_passages,
    mention_ranking,
    mention_selectivity,
    rank_documents,
)
from loregraph.retrieve.search.stages import Expanded, Found
from loregraph.settings import RetrievalSettings
from loregraph.store.base import Store

MENTION_ENTITIES = 10
"""How many of the top-ranked entities contribute passages by mention."""

FACT_RELATIONS = 10
"""How many of the top-ranked relations contribute their evidence chunks as passages."""

DOCUMENT_PASSAGES = 40
"""Documents are ranked from this many fused passages (more than are shown); those after the
shown ones are the result's reserve, which a context with a larger budget shows too."""


@dataclasses.dataclass(slots=True)
class Gathered:
    """The fused passages (more than are shown, best first), those shown, their documents."""

    ranked: list[Passage]
    passages: list[Passage]
    documents: list[RankedDocument]


def _attach_evidence(
    relations: list[RankedRelation], loaded: list[Relation]
) -> list[RankedRelation]:
    """The ranked relations, with the evidence-carrying versions of those that were loaded."""
    by_id = {r.id: r for r in loaded}
    return [
        dataclasses.replace(r, relation=by_id[r.relation.id]) if r.relation.id in by_id else r
        for r in relations
    ]


async def graph_rankings(
    store: Store,
    cfg: RetrievalSettings,
    analysis: QueryAnalysis,
    index: GraphIndex | None,
    expanded: Expanded,
    scope: str,
) -> tuple[dict[str, list[str]], list[str], float]:
    """The graph's passage rankings, the names of every passage ranking that ran, and the
    selectivity of the mentions they rank by (:func:`mention_selectivity`).

    Loads the evidence of the top relations into ``expanded.relations`` when it ranks by it.
    """
    ran: list[str] = []
    rankings: dict[str, list[str]] = {}
    selectivity = 1.0
    entities = expanded.entities
    if cfg.passages_by_mentions and entities and index is not None:
        top = entities[:MENTION_ENTITIES]
        rows = index.mentions_of([e.entity.id for e in top])
        scores = {e.entity.id: e.score for e in top}
        rankings["mentions"] = mention_ranking(rows, scores)
        selectivity = mention_selectivity(rows, scores)
        ran.append("mentions")
        fact_ids = [r.relation.id for r in expanded.relations[:FACT_RELATIONS]]
        if fact_ids:
            loaded = await store.get_relations(fact_ids)
            expanded.relations = _attach_evidence(expanded.relations, loaded)
            rankings["facts"] = evidence_ranking(expanded.relations[:FACT_RELATIONS])
            ran.append("facts")
    if cfg.passages_by_bm25:
        ran.append("bm25")
    if cfg.passages_by_vector:
        ran.append("vector")
    if expanded.ppr_chunks:
        rankings["ppr"] = expanded.ppr_chunks
        ran.append("ppr")
    if cfg.entity_pages and index is not None and index.pages:
        page_rankings = await entity_page_rankings(store, analysis, index)
        rankings.update(page_rankings)
        ran.extend(page_rankings)
    return rankings, ran, selectivity


async def entity_page_rankings(
    store: Store, analysis: QueryAnalysis, index: GraphIndex
) -> dict[str, list[str]]:
    """The ``pages`` and ``bridges`` rankings (see :mod:`loregraph.retrieve.graph.pages`)."""
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
        store.get_chunks(anchor_ids), store.get_entities(wanted_entities)
    )
    by_id = {e.id: e for e in entities}
    mentioned = {
        chunk_id: [by_id[e] for e in ids if e in by_id] for chunk_id, ids in mentioned_ids.items()
    }
    bridges = bridge_ranking(anchors, mentioned, index.pages, relation_words(analysis), set(named))
    if bridges:
        out["bridges"] = bridges
    return out


async def gather(
    store: Store,
    cfg: RetrievalSettings,
    analysis: QueryAnalysis,
    index: GraphIndex | None,
    found: Found,
    expanded: Expanded,
    trace: RetrievalTrace,
    *,
    scope: str,
    kind: DocKind | None = None,
) -> Gathered:
    """Fuse the graph and text/vector rankings into passages and rank their documents
    (passages of documents of ``kind`` only, when given)."""
    watch = Stopwatch()
    graph, ran, selectivity = await graph_rankings(store, cfg, analysis, index, expanded, scope)
    if kind is not None:
        graph = await keep_kind(store, index, kind, graph)
    rankings = {**graph, **found.chunk_rankings}
    limit = max(cfg.max_passages, DOCUMENT_PASSAGES)
    fused = fuse_passages(rankings, cfg.rrf_k, limit, selectivity)
    ranked = await load_passages(store, fused)
    documents = rank_documents(ranked, cfg.rrf_k)
    passages = ranked[: cfg.max_passages]
    trace.record(
        "passages",
        watch.ms(),
        len(passages),
        ran=ran,
        lists={name: len(ids) for name, ids in rankings.items()},
        selectivity=round(selectivity, 3),
        documents=len(documents),
    )
    return Gathered(ranked, passages, documents)


def candidate_passages(
    ranked: Sequence[Passage], lexical: Sequence[str], checked: int = PASSAGES_CHECKED
) -> list[Passage]:
    """The passages relevance is judged on: the best ``checked`` fused ones, and those among
    ``ranked`` that the question's own words (BM25) put in their first ``checked``. In a
    long document the fused order can put a passage naming the question's entities above
    the one holding its rarer words; the question is answerable when either covers it."""
    out = list(ranked[:checked])
    top = set(lexical[:checked])
    out.extend(p for p in ranked[checked:] if p.chunk_id in top)
    return out


def judge_relevance(
    analysis: QueryAnalysis,
    found: Found,
    passages: Sequence[Passage],
    threshold: float,
    trace: RetrievalTrace,
) -> Relevance:
    """Whether the best passages are about the question
    (:mod:`loregraph.retrieve.question.relevance`)."""
    watch = Stopwatch()
    checked = candidate_passages(passages, found.chunk_rankings.get("bm25", []))
    relevance = assess(
        analysis, found.terms, found.counts, checked, threshold=threshold, checked=len(checked)
    )
    info = relevance.debug()
    count = info.pop("count")
    trace.record("relevance", watch.ms(), count, **info)
    return relevance


def record_findings(
    trace: RetrievalTrace, seeds: Sequence[StartEntity], expanded: Expanded, gathered: Gathered
) -> None:
    """Record which stage and which rankings found each result.

    A document is found by the rankings of its passages among those it was ranked from.
    """
    trace.found("start", "start", ((s.entity.id, s.found_by) for s in seeds))
    trace.found("entity", "expand", ((e.entity.id, e.found_by) for e in expanded.entities))
    mode = trace.stage("expand")
    how = str(mode.details.get("mode", "start")) if mode is not None else "start"
    trace.found("relation", "expand", ((r.relation.id, (how,)) for r in expanded.relations))
    trace.found("passage", "passages", ((p.chunk_id, p.found_by) for p in gathered.passages))
    by_document: dict[str, dict[str, None]] = {}
    for passage in gathered.ranked:
        by_document.setdefault(passage.document_id, {}).update(dict.fromkeys(passage.found_by))
    trace.found(
        "document",
        "documents",
        ((d.document_id, by_document.get(d.document_id, {})) for d in gathered.documents),
    )

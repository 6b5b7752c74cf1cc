"""Retrieval through a persona: route the question, traverse, merge and rank.

A :class:`PersonaLens` is given to the :class:`~loregraph.retrieve.pipeline.Retriever`.
Its analyser (:class:`~.routing.Routing`) resolves references from the conversation turns
and routes the question; after the passages are gathered, :meth:`PersonaLens.apply` runs
the intent's traversal (:mod:`.traversal`), reads the linked scopes (for a cross_legacy
question, when the persona includes them) and ranks every passage by its **combined score**:

* a passage found by the question's words or meaning (the primary results) scores its
  fused score (words and meaning together) on the embedding similarity scale: scaled so
  that the best passage scores the best similarity the vector search found (so the
  primary results keep the preset's order);
* a passage found by the graph scores its graph relevance (:func:`~.traversal.graph_relevance`);
* a passage found by both scores ``max(both) + 0.15``.

Graph-found passages outside the time range (the period the question names for a temporal
question, else the persona's ``temporal_range``) are left out. Without a persona the lens
only resolves references: the retrieval is otherwise the preset's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from loregraph.models import ABOUT, CO_OCCURS, DocKind, Document, Relation, Vector
from loregraph.retrieve.graph.graphindex import SHARED_CACHE, GraphCache, GraphIndex
from loregraph.retrieve.personas.library import Persona
from loregraph.retrieve.personas.traversal import (
    GraphHit,
    Traversal,
    linked_hits,
    scope_subject,
    traverse,
)
from loregraph.retrieve.question.routing import BaseAnalyzer, IntentRouter, Routing
from loregraph.retrieve.results.categories import OTHER, category_of
from loregraph.retrieve.results.intents import IntentRoute, question_period
from loregraph.retrieve.results.provenance import PassageSource, PersonaReport
from loregraph.retrieve.results.result import Passage
from loregraph.retrieve.results.trace import RetrievalTrace, Stopwatch
from loregraph.retrieve.search.fuse import Fused
from loregraph.retrieve.search.gather import Gathered
from loregraph.retrieve.search.passages import load_documents, load_passages, rank_documents
from loregraph.retrieve.search.stages import Found
from loregraph.settings import RetrievalSettings
from loregraph.store.base import Store

BOTH_BONUS = 0.15
"""Added to the better score of a passage found both by embedding and by the graph."""

RECENT_YEARS = 10
"""``recent``: the last this many years before the newest dated graph-found passage."""

MAP_RELATIONS = 12
"""At most this many relations are offered to the relationship map."""

Years = tuple[int, int]


def combined_score(embedding: float | None, graph: float | None) -> float:
    """The design's combined score: one source's score, or ``max(both) + 0.15``."""
    if embedding is None:
        return graph or 0.0
    if graph is None:
        return embedding
    return max(embedding, graph) + BOTH_BONUS


def passage_years(passage: Passage, document: Document | None) -> Years | None:
    """The years a passage names, else its document's world time, else ``None``."""
    named = question_period(passage.text)
    if named is not None:
        return named
    when = document.valid_at if document is not None else None
    return (when.year, when.year) if when is not None else None


RECENT: Years = (-1, -1)
"""Stands for ``recent`` until the passages' years are known (:func:`recent_span`)."""


def recent_span(years: Iterable[Years | None]) -> Years | None:
    """The last :data:`RECENT_YEARS` years up to the newest of ``years`` (``None``: none)."""
    newest = max((y[1] for y in years if y is not None), default=None)
    return None if newest is None else (newest - RECENT_YEARS, newest)


def in_range(years: Years | None, span: Years | None, strict: bool = False) -> bool:
    """Whether a passage's years meet the range (undated passages do unless ``strict``:
    a question naming a period wants passages of that period)."""
    if span is None:
        return True
    if years is None:
        return not strict
    return years[0] <= span[1] and years[1] >= span[0]


class PersonaLens:
    """A persona, the conversation's last turns and the scopes linked to the question's.

    ``router`` is the model's intent analysis (``None``: the rules); ``linked_scopes`` are
    the scopes whose documents the question may also read (the caller decides which).
    ``graph=False`` (the graph layer switched off) walks no graph: the passages keep their
    embedding scores, the linked scopes are still searched by meaning.
    """

    def __init__(
        self,
        persona: Persona | None,
        *,
        history: Sequence[str] = (),
        linked_scopes: Sequence[str] = (),
        router: IntentRouter | None = None,
        graph_cache: GraphCache | None = None,
        graph: bool = True,
        linked_reader: Store | None = None,
    ) -> None:
        self.persona = persona
        self.linked_reader = linked_reader
        """The store as the linked scopes are read: by the principal asking, or by one who
        reads only what the links share (``None``: the retriever's store)."""
        self.graph = graph
        self.history = tuple(history)
        self.linked_scopes = tuple(linked_scopes)
        self.router = router
        self.graph_cache = graph_cache or SHARED_CACHE
        self.routing: Routing | None = None
        self.report: PersonaReport | None = None

    def analyzer(self, base: BaseAnalyzer | None) -> Routing:
        """The retriever's analyser, wrapped (see :class:`~.routing.Routing`)."""
        router = self.router if self.persona is not None else None
        self.routing = Routing(base, self.history, router)
        return self.routing

    async def apply(
        self,
        store: Store,
        scope: str,
        cfg: RetrievalSettings,
        vector: Vector | None,
        index: GraphIndex | None,
        found: Found,
        got: Gathered,
        trace: RetrievalTrace,
        kind: DocKind | None = None,
        graph: bool = True,
    ) -> Gathered:
        """The gathered passages re-ranked through the persona (unchanged without one);
        with ``kind``, graph-found passages of documents of that kind only; without
        ``graph`` (the graph layer switched off, or its breaker open) no graph walk."""
        persona = self.persona
        if persona is None:
            return got
        watch = Stopwatch()
        route = await self.routing.settle() if self.routing is not None else IntentRoute()
        subject = await scope_subject(store, scope)
        walked = Traversal()
        if self.graph and graph:
            if index is None:
                index, _ = await self.graph_cache.get(store, scope)
            walked = await traverse(store, scope, index, route, persona, subject)
        hits = dict(walked.hits)
        reads_linked = persona.include_cross_legacy and route.intent == "cross_legacy"
        linked = self.linked_scopes if reads_linked else ()
        reader = self.linked_reader or store
        for hit in await linked_hits(
            reader, scope, linked, vector, route, persona.max_graph_results
        ):
            if hit.chunk_id not in hits or hit.score > hits[hit.chunk_id].score:
                hits[hit.chunk_id] = hit
        span = await self._span(store, route, persona, subject)
        strict = route.intent == "temporal" and route.period is not None
        ranked, sources = await _merge(
            store, scope, got.ranked, found, hits, (span, strict), persona, kind
        )
        self.report = PersonaReport(
            persona=persona.name,
            system_prompt=persona.system_prompt,
            route=route,
            relationship_map=relationship_lines(walked),
            sources=sources,
            linked_scopes=list(linked),
        )
        graph_only = sum(1 for s in sources.values() if s.category == "graph")
        trace.record(
            "persona",
            watch.ms(),
            graph_only,
            persona=persona.name,
            intent=route.intent,
            intent_source=route.source,
            reached=len(walked.reached),
            hits=len(hits),
            linked=len(linked),
            graph=self.graph,
            span=str(persona.temporal_range) if span == RECENT else list(span or ()),
        )
        return Gathered(ranked, ranked[: cfg.max_passages], rank_documents(ranked, cfg.rrf_k))

    async def _span(
        self, store: Store, route: IntentRoute, persona: Persona, subject: object
    ) -> Years | None:
        if route.intent == "temporal" and route.period is not None:
            return route.period
        wanted = persona.temporal_range
        if wanted.kind == "years":
            return (wanted.first or 0, wanted.last or 9999)
        if wanted.kind == "recent":
            return RECENT
        if wanted.kind == "career" and subject is not None:
            relations = await store.entity_relations(getattr(subject, "id", ""))
            years = [
                t.year
                for r in relations
                if category_of(r.type) == "colleague"
                for t in (r.valid_at, r.invalid_at)
                if t is not None
            ]
            return (min(years), max(years)) if years else None
        return None


def _primary_scores(ranked: Sequence[Passage], found: Found) -> dict[str, float]:
    """Each primary passage's score on the embedding similarity scale: its fused score
    (words and meaning together) scaled so that the best passage scores the best
    similarity the vector search found. The primary results keep the preset's order."""
    top_vector = max(found.vector_scores.values(), default=1.0)
    top_fused = max((p.score for p in ranked), default=0.0) or 1.0
    return {p.chunk_id: top_vector * p.score / top_fused for p in ranked}


async def _merge(
    store: Store,
    scope: str,
    ranked: Sequence[Passage],
    found: Found,
    hits: dict[str, GraphHit],
    time: tuple[Years | None, bool],
    persona: Persona,
    kind: DocKind | None = None,
) -> tuple[list[Passage], dict[str, PassageSource]]:
    """Primary and graph passages with their combined scores, best first, and sources;
    ``time`` is the range graph-found passages must meet and whether undated ones fail."""
    span, strict = time
    primary = _primary_scores(ranked, found)
    extra_ids = sorted((c for c in hits if c not in primary), key=lambda c: (-hits[c].score, c))
    extra = await load_passages(store, [Fused(c, hits[c].score, {"graph": 1}) for c in extra_ids])
    documents = await load_documents(
        store, list(dict.fromkeys(p.document_id for p in [*ranked, *extra]))
    )
    years = {p.chunk_id: passage_years(p, documents.get(p.document_id)) for p in [*ranked, *extra]}
    if span == RECENT:
        span = recent_span(years.values())
    kept_extra = [
        p
        for p in extra
        if in_range(years[p.chunk_id], span, strict)
        and (kind is None or _kind(documents.get(p.document_id)) == kind)
    ]
    in_time = {p.chunk_id for p in ranked if in_range(years[p.chunk_id], span, strict)}
    out: list[Passage] = []
    sources: dict[str, PassageSource] = {}
    for passage in ranked:
        hit = hits.get(passage.chunk_id) if passage.chunk_id in in_time else None
        emb = primary[passage.chunk_id]
        matched = [
            "embedding similarity" if passage.chunk_id in found.vector_scores else "text search"
        ]
        if hit is not None:
            matched.append(hit.how)
        found_by = [*passage.found_by, "graph"] if hit is not None else passage.found_by
        score = combined_score(emb, hit.score if hit else None)
        out.append(dataclasses.replace(passage, score=score, found_by=found_by))
        sources[passage.chunk_id] = PassageSource(
            "primary", matched, scope, None, emb, hit.score if hit else None
        )
    for passage in kept_extra[: persona.max_graph_results]:
        hit = hits[passage.chunk_id]
        how = "linked" if hit.shared_via else "graph"
        out.append(dataclasses.replace(passage, score=hit.score, found_by=[how]))
        sources[passage.chunk_id] = PassageSource(
            "graph", [hit.how], hit.scope, hit.shared_via, None, hit.score
        )
    out.sort(key=lambda p: -p.score)
    return out, sources


def _kind(document: Document | None) -> DocKind | None:
    return document.kind if document is not None else None


def relationship_lines(walked: Traversal) -> list[str]:
    """The typed relations the traversal crossed as lines (``Rose Albright marries Walter
    Albright (family)``), those of a relationship category first; co-occurrences and a
    title's ``ABOUT`` links are not relationships and are left out."""
    names = {i: r.entity.name for i, r in walked.reached.items()}
    relations = [r for r in walked.relations if r.type not in (CO_OCCURS, ABOUT)]
    relations.sort(key=lambda r: (category_of(r.type) == OTHER, -r.weight))
    lines: list[str] = []
    for relation in relations[:MAP_RELATIONS]:
        source = names.get(relation.source_id)
        target = names.get(relation.target_id)
        if source is None or target is None:
            continue
        verb = relation.type.replace("_", " ").lower()
        category = category_of(relation.type)
        lines.append(f"{source} {verb} {target}{_years(relation)} ({category})")
    return list(dict.fromkeys(lines))


def _years(relation: Relation) -> str:
    start, end = relation.valid_at, relation.invalid_at
    if start is None and end is None:
        return ""
    return f" ({start.year if start else ''}–{end.year if end else ''})"

"""Fuzz query analysis, the text-search query builders and retrieval with any question.

Only loregraph's own errors may come out. Query analysis only names entities the store
holds; the FTS5 and tsquery expressions built from any text are valid (the store runs them);
search results are ids the store holds, with finite scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loregraph.errors import InputError, LoregraphError
from loregraph.graph import AsyncGraph
from loregraph.models import name_key
from loregraph.retrieve.question.analyze import (
    analyze_query,
    capitalised_phrases,
    classify_intent,
    question_ngrams,
    quoted_strings,
)
from loregraph.store.postgres.search import ts_query
from loregraph.store.scripts import split_query
from loregraph.store.sqlite.search import fts_query

from .fuzzing import fuzz, tally
from .strategies import QUESTION
from .tiny import LoopRunner, open_tiny, tiny_graph

SCOPE = "default"
INTENTS = {"factual", "relationship", "summary", "exploration"}


class Tiny:
    """The tiny store, its engine, and the loop they live on."""

    def __init__(self, run: LoopRunner, graph: AsyncGraph) -> None:
        self.run = run
        self.graph = graph
        self.entity_ids = {e.id for e in run(_entities(graph))}
        self.chunk_ids = {
            c for d in run(graph.store.list_documents(SCOPE)) for c in run(_chunk_ids(graph, d.id))
        }


async def _entities(graph: AsyncGraph) -> list:  # type: ignore[type-arg]
    return [e async for e in graph.store.iter_entities(SCOPE)]


async def _chunk_ids(graph: AsyncGraph, document_id: str) -> list[str]:
    bundle = await graph.store.read_bundle(document_id)
    return [] if bundle is None else [c.id for c in bundle.chunks]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tiny]:
    with open_tiny(tmp_path_factory.mktemp("tiny-query")) as (run, graph):
        yield Tiny(run, graph)


@fuzz(1500)
@given(question=QUESTION)
def test_question_parsing_never_fails(question: str) -> None:
    tally("analyze (pure)")
    phrases = capitalised_phrases(question)
    quoted = quoted_strings(question)
    for phrase in phrases:
        assert phrase.strip() and name_key(phrase)
    for quote in quoted:
        assert quote.strip() and quote in question
    for key, span in question_ngrams(question):
        assert key and 0 <= span.first <= span.last
    assert classify_intent(question, phrases) in INTENTS


@fuzz(600)
@given(question=QUESTION)
def test_analysis_names_only_stored_entities(tiny: Tiny, question: str) -> None:
    tally("analyze_query")
    try:
        analysis = tiny.run(analyze_query(question, tiny.graph.store, SCOPE))
    except LoregraphError:
        return
    assert analysis.intent in INTENTS
    assert set(analysis.matched.values()) <= tiny.entity_ids
    candidate_keys = {name_key(c) for c in analysis.candidates}
    assert {name_key(m) for m in analysis.matched} <= candidate_keys
    assert all(c.strip() for c in analysis.candidates)


@fuzz(900)
@given(text=QUESTION)
def test_text_search_runs_any_query(tiny: Tiny, text: str) -> None:
    tally("text search (FTS5 builder)")
    match = fts_query(text)
    assert match is None or match.strip()
    pg = ts_query(text)
    assert pg is None or pg.strip()
    terms = split_query(text)
    assert all(t and t == t.casefold() for t in terms.words + terms.substrings)
    store = tiny.graph.store
    try:
        chunks = tiny.run(store.search_chunks_text(SCOPE, text, 10))
        entities = tiny.run(store.search_entities_text(SCOPE, text, 10))
    except InputError:
        return
    assert {hit.id for hit in chunks} <= tiny.chunk_ids
    assert {hit.id for hit in entities} <= tiny.entity_ids
    for hit in (*chunks, *entities):
        assert math.isfinite(hit.score)
    if match is None and not terms.substrings:
        assert not chunks and not entities


@pytest.fixture(scope="module")
def tiny_minilm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tiny]:
    """The tiny store embedded with the default model (its tokenizer is what a question
    meets first)."""
    from loregraph.embed.minilm import MiniLMEmbedder

    folder = tmp_path_factory.mktemp("tiny-minilm")
    with open_tiny(folder, embedder=MiniLMEmbedder()) as (run, graph):
        yield Tiny(run, graph)


@fuzz(150)
@given(question=QUESTION, command=st.sampled_from(["search", "ask", "context", "entity"]))
def test_every_query_command_answers_or_says_what_is_wrong(
    tiny_minilm: Tiny, question: str, command: str
) -> None:
    tally("retrieval commands")
    graph, run = tiny_minilm.graph, tiny_minilm.run
    try:
        if command == "search":
            hits = run(graph.search(question, limit=5))
            assert len(hits) <= 5
        elif command == "ask":
            answer = run(graph.ask(question))
            assert isinstance(answer.text, str)
        elif command == "context":
            assert isinstance(run(graph.context(question)), str)
        else:
            run(graph.explore.entity(question))
    except LoregraphError as exc:
        assert str(exc).strip()


@pytest.fixture(scope="module")
def tiny_pg(harness_pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tiny]:
    folder = tmp_path_factory.mktemp("tiny-query-pg")
    with open_tiny(folder, f"{harness_pg_url}&schema=fuzz_query") as (run, graph):
        yield Tiny(run, graph)


@fuzz(250)
@given(text=QUESTION)
def test_postgres_text_search_runs_any_query(tiny_pg: Tiny, text: str) -> None:
    tally("text search (PostgreSQL)")
    store = tiny_pg.graph.store
    try:
        chunks = tiny_pg.run(store.search_chunks_text(SCOPE, text, 10))
        entities = tiny_pg.run(store.search_entities_text(SCOPE, text, 10))
    except InputError:
        return
    assert {hit.id for hit in chunks} <= tiny_pg.chunk_ids
    assert {hit.id for hit in entities} <= tiny_pg.entity_ids
    for hit in (*chunks, *entities):
        assert math.isfinite(hit.score)


def test_tiny_graph_helper_builds_an_engine() -> None:
    assert isinstance(tiny_graph(":memory:"), AsyncGraph)

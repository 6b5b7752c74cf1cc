"""Knowing when nothing is relevant: the decision, and what search, context and ask do then."""

from __future__ import annotations

import json
from typing import Any

import pytest

from loregraph import AsyncGraph
from loregraph.answer.extractive import NOTHING_FOUND
from loregraph.embed.hashing import HashingEmbedder
from loregraph.errors import ConfigError
from loregraph.retrieve.context.nothing import NOTHING_RELEVANT
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.question.relevance import (
    MIN_COVERAGE,
    NAMED_SHARE,
    Term,
    assess,
    held_terms,
    names_only_stored_entities,
    question_terms,
    term_weight,
    threshold_for,
)
from loregraph.retrieve.results.result import Passage, QueryAnalysis
from loregraph.retrieve.search.gather import candidate_passages

NONSENSE = "zzzzqqq xyzzy"
ABSENT = "Who painted the Mona Lisa in Florence?"
PRESENT = "Who is the sister of Tomas Reyes?"


def passage(text: str, chunk_id: str = "c1") -> Passage:
    return Passage(chunk_id, "d1", "Doc", 0, 0, len(text), text, 1.0)


def test_terms_are_stemmed_words_or_substrings_by_script() -> None:
    english = question_terms(QueryAnalysis("q", keywords=["proposals", "lucy"]))
    assert english == [Term("proposals", "proposal"), Term("lucy", "lucy")]
    chinese = question_terms(QueryAnalysis("q", keywords=["北京的首都"]))
    assert [t.key for t in chinese] == ["北京的", "京的首", "的首都"]
    assert all(t.substring for t in chinese)
    arabic = question_terms(QueryAnalysis("q", keywords=["مدينة"]))
    assert arabic == [Term("مدينة", "مدينة", substring=True)]
    # a one-character word is no keyword; the question's own substring terms stand in
    assert question_terms(QueryAnalysis("猫", keywords=[])) == [Term("猫", "猫", substring=True)]
    assert question_terms(QueryAnalysis("who is it?", keywords=[])) == []


def test_a_passage_holds_a_term_by_stem_or_substring() -> None:
    terms = [Term("proposed", "propos"), Term("مدينة", "مدينة", substring=True)]
    assert held_terms("She had three proposals today, in a city.", terms) == []
    assert held_terms("He proposes.", terms) == ["propos"]
    assert held_terms("Two men proposed to her in المدينة.", terms) == ["propos", "مدينة"]


def test_rarer_terms_weigh_more() -> None:
    assert term_weight(0) == 1.0
    assert term_weight(0) > term_weight(1) > term_weight(10) > term_weight(200) > 0


def test_coverage_decides_relevance() -> None:
    analysis = QueryAnalysis("Which men proposed to Lucy?", keywords=["men", "proposed", "lucy"])
    terms = question_terms(analysis)
    counts = {"men": 40, "propos": 2, "lucy": 30}
    good = passage("Lucy had three proposals: the men proposed one after another.")
    weak = passage("The men went out.", "c2")
    decided = assess(analysis, terms, counts, [weak, good])
    assert decided.relevant and decided.best_chunk_id == "c1"
    assert decided.score == pytest.approx(1.0)
    assert set(decided.covered) == {"men", "propos", "lucy"}
    only_weak = assess(analysis, terms, counts, [weak])
    assert not only_weak.relevant and 0 < only_weak.score < MIN_COVERAGE
    # the same words, but the question names something the store never saw
    absent = assess(analysis, terms, {"men": 40, "propos": 2, "lucy": 0}, [weak])
    assert absent.score < only_weak.score
    assert not assess(analysis, terms, counts, []).relevant
    assert assess(analysis, terms, counts, [weak], threshold=0.0).relevant


def test_a_question_without_content_words_is_relevant_only_when_it_names_an_entity() -> None:
    blank = QueryAnalysis("Who is he?")
    assert not assess(blank, [], {}, [passage("He is here.")]).relevant
    named = QueryAnalysis("Who is Osray?", matched={"Osray": "e1"})
    assert assess(named, [], {}, [passage("Osray is an island.")]).relevant


async def test_nonsense_and_absent_questions_are_not_relevant(
    store: Any, embedder: HashingEmbedder
) -> None:
    retriever = Retriever(store, embedder)
    for question in (NONSENSE, ABSENT):
        result = await retriever.retrieve(question, "default")
        assert result.passages, "ranking still returns passages"
        assert not result.relevant, question
        info = result.debug["relevance"]
        assert info["relevant"] is False and info["score"] < info["threshold"]
    nonsense = await retriever.retrieve(NONSENSE, "default")
    assert nonsense.debug["relevance"]["score"] == 0.0


async def test_a_real_question_is_relevant(store: Any, embedder: HashingEmbedder) -> None:
    result = await Retriever(store, embedder).retrieve(PRESENT, "default")
    assert result.relevant
    info = result.debug["relevance"]
    assert info["score"] >= info["threshold"]
    assert info["best_chunk"] in {p.chunk_id for p in result.passages}
    assert "sister" in info["covered"]


async def test_relevance_is_per_scope(store: Any, embedder: HashingEmbedder) -> None:
    retriever = Retriever(store, embedder)
    assert (await retriever.retrieve("Which hotel has quiet gardens?", "other")).relevant
    assert not (await retriever.retrieve("Which hotel has quiet gardens?", "default")).relevant


async def test_engine_says_plainly_when_nothing_is_relevant(
    store: Any, embedder: HashingEmbedder
) -> None:
    graph = AsyncGraph(store, embedder=embedder)
    for query, kind in ((NONSENSE, "documents"), (ABSENT, "entities"), (ABSENT, "relations")):
        found = await graph.search(query, kind=kind)  # type: ignore[arg-type]
        assert not found.relevant and found.relevance < found.threshold
        assert not any(hit.relevant for hit in found)
    closest = await graph.search(ABSENT)
    assert closest, "the closest matches are shown, flagged as not relevant"
    answer = await graph.ask(NONSENSE)
    assert answer.text == NOTHING_FOUND
    assert not answer.found and answer.citations == [] and not answer.llm
    assert answer.retrieval is not None and not answer.retrieval.relevant
    markdown = await graph.context(ABSENT)
    assert NOTHING_RELEVANT in markdown and "Passages" not in markdown
    payload = json.loads(await graph.context(ABSENT, format="json"))
    assert payload["relevant"] is False and payload["passages"] == []
    assert NOTHING_RELEVANT in await graph.context(ABSENT, format="xml")
    assert (await graph.context(ABSENT, format="mermaid")).startswith("graph TD")
    with pytest.raises(ConfigError):
        await graph.context(ABSENT, format="yaml")  # type: ignore[arg-type]


async def test_engine_answers_a_real_question(store: Any, embedder: HashingEmbedder) -> None:
    graph = AsyncGraph(store, embedder=embedder)
    hits = await graph.search(PRESENT)
    assert hits.relevant and hits.relevance >= hits.threshold
    best = next(hit for hit in hits if hit.title == "Osray Chronicles")
    assert best.relevant and best.relevance > 0
    answer = await graph.ask(PRESENT)
    assert answer.found and answer.citations
    assert "Ines Mora is the sister of Tomas Reyes" in answer.text
    assert "Ines Mora" in await graph.context(PRESENT)


def test_a_question_naming_a_stored_entity_needs_the_named_share_of_the_threshold() -> None:
    keywords = ["creatures", "renfield", "collect"]
    counts = {"creatur": 0, "renfield": 40, "collect": 10}
    text = "Renfield would collect things in his room."  # coverage between the two
    named = QueryAnalysis("What creatures did Renfield collect?", keywords=keywords)
    named.matched = {"Renfield": "e1"}
    plain = QueryAnalysis("what creatures did renfield collect?", keywords=keywords)
    plain.matched = {"renfield": "e2"}  # a lower-case mention is not a name
    terms = question_terms(named)
    by_name = assess(named, terms, counts, [passage(text)])
    unnamed = assess(plain, terms, counts, [passage(text)])
    assert by_name.score == unnamed.score
    assert MIN_COVERAGE * NAMED_SHARE <= by_name.score < MIN_COVERAGE
    assert by_name.relevant and by_name.named and by_name.debug()["named"] is True
    assert by_name.threshold == threshold_for(MIN_COVERAGE, True) < MIN_COVERAGE
    assert not unnamed.relevant and not unnamed.named
    assert unnamed.threshold == threshold_for(MIN_COVERAGE, False) == MIN_COVERAGE


def test_a_name_the_store_does_not_know_cancels_the_named_share() -> None:
    keywords = ["film", "came", "first", "dots", "dying", "god"]
    counts = {"film": 1, "came": 200, "first": 149, "dot": 4, "dying": 15, "god": 173}
    text = "The first that came was God's own messenger."
    terms = question_terms(QueryAnalysis("q", keywords=keywords))
    # "God" is stored, but it is a word of the title "Dying God", which is not
    title = QueryAnalysis(
        "Which film came out first, 3 Dots or Dying God?",
        candidates=["God", "Dots", "Dying God"],
        matched={"God": "e1"},
        keywords=keywords,
    )
    assert not names_only_stored_entities(title)
    decided = assess(title, terms, counts, [passage(text)])
    assert MIN_COVERAGE * NAMED_SHARE <= decided.score < MIN_COVERAGE
    assert not decided.relevant and not decided.named and decided.threshold == MIN_COVERAGE
    # the same words with every name known: the share applies
    known = QueryAnalysis(title.question, candidates=["God"], matched={"God": "e1"})
    assert names_only_stored_entities(known)
    assert assess(known, terms, counts, [passage(text)]).relevant
    # a candidate made only of the words of a matched name is no unknown name
    parts = QueryAnalysis(
        "q", candidates=["Jonathan Harker", "Harker"], matched={"Jonathan Harker": "e2"}
    )
    assert names_only_stored_entities(parts)
    # a known first name does not vouch for an unknown full name
    full = QueryAnalysis("q", candidates=["Arthur", "Arthur Holmwood"], matched={"Arthur": "e3"})
    assert not names_only_stored_entities(full)


def test_relevance_also_checks_the_passages_the_question_words_rank_first() -> None:
    fused = [passage(f"text {i}", f"f{i}") for i in range(12)]
    checked = candidate_passages(fused, ["f10", "x1"], checked=8)
    assert [p.chunk_id for p in checked] == [*(f"f{i}" for i in range(8)), "f10"]
    assert candidate_passages(fused, ["f11"], checked=12) == fused


def test_two_passages_that_each_hold_part_of_a_multi_hop_question_answer_it_together() -> None:
    question = "Where was the director of the film Blue Harbour born?"
    analysis = QueryAnalysis(question, keywords=["director", "film", "Blue", "Harbour", "born"])
    terms = question_terms(analysis)
    counts = {"director": 2, "film": 40, "blue": 2, "harbour": 2, "born": 2}
    film = passage("Blue Harbour is a film by Ana Tal.", "c1")
    person = passage("Ana Tal was born in Porto; she is a director.", "c2")
    alone = assess(analysis, terms, counts, [film], threshold=0.75)
    together = assess(analysis, terms, counts, [film, person], threshold=0.75)
    assert not alone.relevant and together.relevant and together.score == 1.0
    stray = passage("A storm was born at sea.", "c2")  # holds too little on its own
    assert not assess(analysis, terms, counts, [film, stray], threshold=0.75).relevant


def test_spelling_variants_with_accents_match() -> None:
    analysis = QueryAnalysis("Where is Akinoshu?", keywords=["Akinoshu"])
    terms = question_terms(analysis)
    assert held_terms("The shrine of Akinoshū lies north.", terms) == [terms[0].key]

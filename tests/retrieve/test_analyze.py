"""Offline query analysis: mentions, exact matching against a real store, intent, keywords."""

from __future__ import annotations

from typing import Any

import pytest
from retrieve_corpus import EntitySpec, build_bundle

from loregraph.models import Entity
from loregraph.retrieve.question.analyze import (
    analyze_query,
    capitalised_phrases,
    classify_intent,
    quoted_strings,
    unresolved_candidates,
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How does Dracula travel from Transylvania to England?",
            ["Dracula", "Transylvania", "England"],
        ),
        ("Who was Lothair Ii's mother?", ["Lothair Ii"]),
        ("Who is Jesus' mother", ["Jesus"]),
        ("Is the Isle of Man near Port Calder?", ["Isle of Man", "Port Calder"]),
        ("Who was Dr. Van Helsing?", ["Dr. Van Helsing"]),
        ("Did The Lord of The Rings win?", ["Lord of The Rings"]),
        ("Is Theresa May older than Will Smith?", ["Theresa May", "Will Smith"]),
    ],
)
def test_capitalised_phrases(question: str, expected: list[str]) -> None:
    assert capitalised_phrases(question) == expected


def test_odd_title_casing_keeps_the_whole_phrase_and_its_parts() -> None:
    phrases = capitalised_phrases("Who is the director of film God'S Gift To Women?")
    assert phrases[0] == "God'S Gift To Women"
    assert "God" in phrases


def test_phrase_joined_by_and_yields_its_parts() -> None:
    assert capitalised_phrases("How are Mina and Lucy connected?") == [
        "Mina and Lucy",
        "Mina",
        "Lucy",
    ]


def test_title_cased_question_drops_its_question_words() -> None:
    phrases = capitalised_phrases("Who Is The Mother Of The Director Of Film Zorba?")
    assert phrases == ["Mother Of The Director Of Film Zorba"]


def test_quoted_strings() -> None:
    assert quoted_strings("What did \"The Demeter\" carry and 'the box' hold?") == [
        "The Demeter",
        "the box",
    ]
    assert quoted_strings("Harker's and Mina's") == []


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("How is Alice connected to Bob?", "relationship"),
        ("Tell me about the relationship between Alice and Bob", "relationship"),
        ("How do Alice and Bob know each other?", "relationship"),
        ("Tell me about Alice's background", "summary"),
        ("Who is Count Dracula?", "summary"),
        ("Describe the Meridian", "summary"),
        ("What else should I know about this project?", "exploration"),
        ("What projects has Alice worked on at Google?", "factual"),
        ("Who is the director of the film Titanic?", "factual"),
    ],
)
def test_intent_rules(question: str, intent: str) -> None:
    assert classify_intent(question, capitalised_phrases(question)) == intent


async def test_ngrams_match_stored_names_and_aliases(store: Any) -> None:
    analysis = await analyze_query(
        "Did captain elena varga trust dr. reyes on the meridian?", store, "default"
    )
    ids = set(analysis.matched.values())
    assert Entity.make_id("default", "Elena Varga") in ids
    assert Entity.make_id("default", "Tomas Reyes") in ids  # via the alias "Dr. Reyes"
    assert Entity.make_id("default", "Meridian") in ids
    assert "trust" in analysis.keywords and "meridian" in analysis.keywords


async def test_longest_match_wins_and_possessive_is_stripped(store: Any) -> None:
    analysis = await analyze_query("Where is Ines Mora's lighthouse?", store, "default")
    assert analysis.matched == {"Ines Mora": Entity.make_id("default", "Ines Mora")}
    assert analysis.candidates == ["Ines Mora"]


async def test_odd_casing_matches_case_insensitively(store: Any) -> None:
    analysis = await analyze_query("What Did Port CALDER Export?", store, "default")
    assert Entity.make_id("default", "Port Calder") in analysis.matched.values()


async def test_unmatched_mentions_are_left_for_fuzzy_search(store: Any) -> None:
    analysis = await analyze_query("Did Elena Vargas sail with Osray Fishers?", store, "default")
    assert Entity.make_id("default", "Osray") in analysis.matched.values()
    assert "Elena Vargas" in unresolved_candidates(analysis)


async def test_matching_respects_scope(store: Any) -> None:
    other = await analyze_query("Tell me about the Meridian", store, "other")
    default = await analyze_query("Tell me about the Meridian", store, "default")
    assert other.matched["Meridian"] == Entity.make_id("other", "Meridian")
    assert default.matched["Meridian"] == Entity.make_id("default", "Meridian")


async def test_lowercase_mention_of_a_proper_name_matches(store: Any) -> None:
    analysis = await analyze_query("who runs the guild here?", store, "default")
    assert Entity.make_id("default", "Guild") in analysis.matched.values()


async def test_lone_common_word_does_not_match_a_common_noun_entity(store: Any) -> None:
    analysis = await analyze_query("which ship carries grain?", store, "default")
    assert Entity.make_id("default", "grain") not in analysis.matched.values()


async def test_code_is_named_only_as_it_is_written(store: Any, embedder: Any) -> None:
    text = "The DEFAULT clause gives a column a value. Run pg_dump to back up a database."
    specs = [
        EntitySpec("DEFAULT", "Code", "An SQL key word"),
        EntitySpec("pg_dump", "Code", "A tool"),
    ]
    bundle = build_bundle("manual", "Manual", "manual.md", text, embedder, entity_specs=specs)
    await store.write_document(bundle)
    prose = await analyze_query("What is the default format of pg_dump?", store, "manual")
    assert prose.matched == {"pg_dump": Entity.make_id("manual", "pg_dump")}  # not DEFAULT
    code = await analyze_query("Which value does DEFAULT give?", store, "manual")
    assert code.matched == {"DEFAULT": Entity.make_id("manual", "DEFAULT")}


async def test_loaded_spacy_pipeline_adds_mentions(store: Any) -> None:
    pytest.importorskip("spacy")
    from loregraph.errors import DependencyError
    from loregraph.ingest.extract.spacy_nlp import load_nlp

    try:
        nlp = load_nlp("en_core_web_sm")
    except DependencyError:
        pytest.skip("the spaCy model is not installed")
    question = "did elena varga ever visit Lisbon?"
    analysis = await analyze_query(question, store, "default", nlp=nlp)
    assert analysis.used_spacy
    assert "Lisbon" in analysis.candidates
    plain = await analyze_query(question, store, "default")
    assert not plain.used_spacy


async def test_retrieval_uses_spacy_only_when_passed(store: Any) -> None:
    """A pipeline loaded elsewhere in the process (by an ingest) changes nothing."""
    pytest.importorskip("spacy")
    from loregraph.errors import DependencyError
    from loregraph.ingest.extract.spacy_nlp import load_nlp
    from loregraph.retrieve.pipeline import Retriever

    try:
        nlp = load_nlp("en_core_web_sm")  # what an offline ingest loads
    except DependencyError:
        pytest.skip("the spaCy model is not installed")
    question = "did elena varga ever visit Lisbon?"
    plain = await Retriever(store, None).retrieve(question, "default")
    assert not plain.analysis.used_spacy and "Lisbon" in plain.analysis.candidates
    given = await Retriever(store, None, nlp=nlp).retrieve(question, "default")
    assert given.analysis.used_spacy and given.debug["analyze"]["spacy"] is True


async def test_code_with_edge_punctuation_is_named_as_written(store: Any, embedder: Any) -> None:
    text = "Avoid SELECT * on wide tables."
    specs = [EntitySpec("SELECT *", "Code", "A query of every column")]
    bundle = build_bundle("manual", "Manual", "manual.md", text, embedder, entity_specs=specs)
    await store.write_document(bundle)
    analysis = await analyze_query("When is SELECT * slow?", store, "manual")
    assert Entity.make_id("manual", "SELECT *") in analysis.matched.values()

"""The offline extractive answer: verbatim sentences, citations that point at the source."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from retrieve_corpus import OSRAY, VOYAGE, sample_result

from loregraph.answer.extractive import (
    NAMED_LEAD,
    NO_LLM,
    NOT_STATED,
    NOTHING_FOUND,
    extractive_answer,
)
from loregraph.embed.hashing import HashingEmbedder
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.results.terms import Focus, wanted_types
from loregraph.settings import PRESETS
from loregraph.text.sentences import split_sentences

DOCS = {"The Voyage of the Meridian": VOYAGE, "Osray Chronicles": OSRAY}


def body_sentences(text: str) -> list[tuple[str, int]]:
    """(sentence, citation index) for each line of the answer body."""
    body = text.split("\n\n")[1]
    out = []
    for line in body.splitlines():
        match = re.fullmatch(r"(.*) \[(\d+)\]", line)
        assert match, line
        out.append((match.group(1), int(match.group(2))))
    return out


def test_sentence_splitter_handles_abbreviations_and_dialogue() -> None:
    text = (
        'Dr. Seward met Mrs. Harker at 5 p.m. today. "Is it so?" she asked! '
        "J. Smith agreed, e.g. with the rest.\n\nA new paragraph without an end"
    )
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Dr. Seward met Mrs. Harker at 5 p.m. today.",
        '"Is it so?" she asked!',
        "J. Smith agreed, e.g. with the rest.",
        "A new paragraph without an end",
    ]


def test_answer_quotes_passages_verbatim_with_citations() -> None:
    result = sample_result("Where did the Meridian sail from Port Calder?")
    answer = extractive_answer(result, max_sentences=3)
    assert answer.text.startswith(NO_LLM)
    assert not answer.llm
    passages = " ".join(" ".join(p.text.split()) for p in result.passages)
    sentences = body_sentences(answer.text)
    assert 1 <= len(sentences) <= 3
    for sentence, index in sentences:
        assert sentence in passages  # never invented
        citation = answer.citations[index - 1]
        assert citation.index == index
        assert " ".join(citation.quote.split()) == sentence
        assert VOYAGE[citation.start : citation.end] == citation.quote
    assert "sailed from Port Calder to the island of Osray" in answer.text


def test_sources_list_title_chunk_and_offsets() -> None:
    answer = extractive_answer(sample_result(), max_sentences=2)
    sources = answer.text.split("Sources:\n", 1)[1].splitlines()
    assert len(sources) == len(answer.citations)
    for line, c in zip(sources, answer.citations, strict=True):
        assert (
            line == f"[{c.index}] {c.document_title}, chunk {c.seq} (characters {c.start}–{c.end})"
        )


def test_overlapping_chunks_do_not_repeat_a_sentence() -> None:
    result = sample_result()
    best = result.passages[0]
    # an overlapping chunk that repeats the best passage's text
    dup = type(best)(**{**{f: getattr(best, f) for f in best.__slots__}, "chunk_id": "dup"})
    result.passages.insert(1, dup)
    answer = extractive_answer(result, max_sentences=5)
    quotes = [c.quote for c in answer.citations]
    assert len(quotes) == len(set(quotes))


def test_sentences_follow_document_order() -> None:
    answer = extractive_answer(sample_result(), max_sentences=5)
    starts = [c.start for c in answer.citations]
    assert starts == sorted(starts)


def test_no_passages_says_so_plainly() -> None:
    result = sample_result()
    result.passages = []
    answer = extractive_answer(result)
    assert answer.citations == []
    assert answer.text == NOTHING_FOUND and not answer.found


def test_an_irrelevant_result_is_not_quoted() -> None:
    result = sample_result()
    assert extractive_answer(result).found
    result.relevant = False
    answer = extractive_answer(result)
    assert answer.text == NOTHING_FOUND
    assert not answer.found and answer.citations == [] and not answer.llm


async def test_answer_from_a_real_store_cites_the_right_documents(
    store: Any, embedder: HashingEmbedder
) -> None:
    retriever = Retriever(store, embedder, PRESETS["hybrid"])
    result = await retriever.retrieve("Who is the sister of Tomas Reyes?", "default")
    answer = extractive_answer(result)
    assert answer.citations
    titles = {p.document_id: p.document_title for p in result.passages}
    for citation in answer.citations:
        assert titles[citation.document_id] == citation.document_title
        document_text = DOCS[citation.document_title]
        assert document_text[citation.start : citation.end] == citation.quote
    assert any(c.quote == "Ines Mora is the sister of Tomas Reyes." for c in answer.citations)


def test_unrelated_sentences_and_headings_are_left_out() -> None:
    result = sample_result("Where did the Meridian sail from Port Calder?")
    noise = result.passages[-1]
    noise.text = "CHAPTER TWO OF THE MERIDIAN\n\nThe weather was fine and nobody spoke at dinner."
    answer = extractive_answer(result, max_sentences=10)
    quotes = [c.quote for c in answer.citations]
    assert "The weather was fine and nobody spoke at dinner." not in quotes
    assert "CHAPTER TWO OF THE MERIDIAN" not in quotes
    assert len(quotes) < 10


def test_sentence_naming_the_question_entities_comes_first_in_ranking() -> None:
    result = sample_result("Who served as surgeon on the Meridian?")
    answer = extractive_answer(result, max_sentences=1)
    assert (
        answer.citations[0].quote == "Dr. Tomas Reyes served as the ship's surgeon on the Meridian."
    )


def shaped_result(question: str) -> Any:
    """The sample result with the question's answer shape known (as the pipeline sets it)."""
    return dataclasses.replace(sample_result(question), focus=Focus.of([], {}, question))


def test_a_who_question_is_answered_with_the_people_named_in_the_evidence() -> None:
    answer = extractive_answer(shaped_result("Who set the broken arm of the cook?"), 3)
    lead = answer.text.split("\n\n")[1]
    assert lead.startswith(NAMED_LEAD)
    assert "Tomas Reyes [" in lead and "Elena Varga [" in lead
    assert "Meridian" not in lead and "Port Calder" not in lead  # not people
    index = int(lead.split("Tomas Reyes [")[1].split("]")[0])
    assert "Reyes set the broken arm of the cook" in answer.citations[index - 1].quote


def test_people_are_named_only_from_sentences_about_what_is_asked() -> None:
    answer = extractive_answer(shaped_result("Who praised the crew of the Meridian?"), 3)
    assert NAMED_LEAD not in answer.text  # Varga is named, but not where the crew is praised
    assert "The Guild later praised the crew." in answer.text


def test_the_answer_says_so_when_no_quoted_sentence_holds_what_is_asked() -> None:
    answer = extractive_answer(shaped_result("How many sailors did the Meridian carry?"), 3)
    assert answer.text.split("\n\n")[1] == NOT_STATED
    stated = extractive_answer(shaped_result("How many days late did the Meridian arrive?"), 3)
    assert NOT_STATED not in stated.text and "three days late" in stated.text


def test_which_men_asks_for_people_and_where_for_places() -> None:
    assert wanted_types("Whom did Lucy accept?") == {"Person"}
    assert wanted_types("Where does Quincey Morris come from?") == {"Location"}
    assert wanted_types("Which ship ran ashore?") == frozenset()


def test_a_known_name_opening_the_sentence_is_what_a_who_question_asks_for() -> None:
    result = shaped_result("Who set the broken arm of the cook?")
    result.passages[0].text = "The arm of the cook was broken in the storm."
    result.passages[1].text = "Reyes set the arm of the cook."
    result.passages = result.passages[:2]
    answer = extractive_answer(result, max_sentences=1)
    assert [c.quote for c in answer.citations] == ["Reyes set the arm of the cook."]

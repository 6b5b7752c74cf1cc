"""Focused passages: the sentences of a chunk that answer the question, cited exactly."""

from __future__ import annotations

import dataclasses

import pytest

from loregraph.retrieve.focus import focus_passage, focused_passages
from loregraph.retrieve.relevance import question_terms
from loregraph.retrieve.result import Passage, QueryAnalysis
from loregraph.retrieve.terms import Focus, answer_shape

FILLER = " ".join(f"The weather on day {n} was grey and the road was long." for n in range(12))


def focus_for(question: str, keywords: list[str], counts: dict[str, int]) -> Focus:
    analysis = QueryAnalysis(question=question, keywords=keywords)
    return Focus.of(question_terms(analysis), counts, question)


def chunk(text: str, start: int = 1000) -> Passage:
    return Passage("c1", "d1", "Book", 3, start, start + len(text), text, 1.0)


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("Which men proposed to Lucy?", "name"),
        ("Who wrote the letter?", "name"),
        ("At which hotel did he stay?", "name"),
        ("What is the name of the ship?", "name"),
        ("How many years later is the note written?", "number"),
        ("When can the vampire cross running water?", "number"),
        ("What did the Count force Mina to do?", ""),
        ("Why did he travel?", ""),
    ],
)
def test_the_question_says_what_shape_its_answer_has(question: str, shape: str) -> None:
    assert answer_shape(question) == shape


def test_a_name_the_question_does_not_hold_is_the_answer_shape() -> None:
    focus = focus_for("Which men proposed to Lucy?", ["men", "proposed", "Lucy"], {})
    assert focus.holds_shape("Then Dr. Seward proposed to her.")
    assert not focus.holds_shape("Lucy was sad, and I proposed a walk.")
    assert not focus.holds_shape("“Come here,” he said, and I'll go.")


def test_the_focus_prefers_the_sentence_naming_someone_for_a_which_question() -> None:
    text = (
        f"{FILLER} She wrote that proposals came in one day, three of them. "
        f"{FILLER} The first was from Dr. Seward, the second from Quincey Morris. {FILLER}"
    )
    focus = focus_for("Which men proposed to her?", ["men", "proposed"], {"propos": 3})
    shown = focus_passage(chunk(text), focus, max_chars=200)
    assert "Seward" in shown.text
    assert text[shown.start - 1000 : shown.end - 1000].split() == shown.text.split()


def test_without_a_shape_the_focus_follows_the_question_words() -> None:
    text = (
        f"{FILLER} The Count was seen at Piccadilly. {FILLER} He carried earth in boxes. {FILLER}"
    )
    focus = focus_for("What did he carry in the boxes?", ["carry", "boxes"], {"box": 2})
    shown = focus_passage(chunk(text), focus, max_chars=120)
    assert "boxes" in shown.text and "Piccadilly" not in shown.text


def test_the_first_passages_are_kept_whole_when_the_budget_affords_them() -> None:
    text = f"{FILLER} The Count was at Piccadilly. {FILLER} He carried earth in boxes. {FILLER}"
    focus = focus_for("What did he carry in the boxes?", ["carry", "boxes"], {"box": 2})
    ranked = [chunk(text), dataclasses.replace(chunk(text, start=9000), chunk_id="c2")]
    roomy = list(focused_passages(ranked, focus, whole_first=1, whole_tokens=10_000))
    assert roomy[0].text == text and roomy[0].start == 1000
    assert len(roomy[1].text) < len(text) and "boxes" in roomy[1].text
    tight = list(focused_passages(ranked, focus, whole_first=1, whole_tokens=50))
    assert len(tight[0].text) < len(text)

"""Focused passages: the sentences of a chunk that answer the question, cited exactly."""

from __future__ import annotations

import dataclasses

import pytest

from loregraph.retrieve.question.focus import focus_passage, focused_passages
from loregraph.retrieve.question.relevance import question_terms
from loregraph.retrieve.results.result import Passage, QueryAnalysis
from loregraph.retrieve.results.terms import Focus, answer_shape

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
    # the question's own name, whatever its apostrophe or emphasis, is no answer
    asked = focus_for("Who drove the stake into Lucy's heart?", ["stake", "heart"], {})
    assert asked.shape_matches("Then Arthur struck, into _Lucy’s_ heart; Lucy’s face changed.") == [
        "Arthur"
    ]


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


MANUAL = (
    "# The Path of a Query\n\n"
    + "The server is a program that many clients talk to over the network at once. " * 6
    + "\n\nHere we give a short overview of the stages a query has to pass.\n\n"
    + "1. A connection is established. The client program sends its query over it.\n"
    + "2. The parser stage checks the syntax. It builds a tree from the query text.\n"
    + "3. The rewrite system applies rules. Views are expanded into their base tables.\n"
    + "4. The planner chooses a plan. Every path is weighed and the cheapest one wins.\n"
    + "5. The executor runs the plan. Rows are fetched, joined, sorted and returned.\n\n"
    + "In the following sections each stage is covered in more detail.\n"
)


def test_a_sentence_announcing_a_list_is_shown_with_its_items_read_on_past_the_chunk() -> None:
    cut = MANUAL.index("4. The planner") + 12  # the chunk ends inside the fourth item
    passage = dataclasses.replace(chunk(MANUAL[:cut], start=0), following=MANUAL[cut:])
    focus = focus_for("Which stages does a query pass?", ["stages", "query", "pass"], {})
    shown = focus_passage(passage, focus, max_chars=400)
    assert shown.text.startswith("Here we give a short overview of the stages")
    for head in ("2. The parser stage checks the syntax.", "5. The executor runs the plan."):
        assert head in shown.text
    assert "It builds a tree" not in shown.text  # the heads, not the items' whole text
    assert shown.end == MANUAL.index("returned.") + len("returned.")
    alone = focus_passage(dataclasses.replace(passage, following=""), focus, max_chars=400)
    assert "3. The rewrite system" in alone.text and "5. The executor" not in alone.text


def test_a_passage_shown_whole_is_followed_by_the_rest_of_its_list() -> None:
    cut = MANUAL.index("4. The planner") + 12
    passage = dataclasses.replace(chunk(MANUAL[:cut], start=0), following=MANUAL[cut:])
    focus = focus_for("Which stages does a query pass?", ["stages", "query", "pass"], {})
    (shown,) = focused_passages([passage], focus, whole_first=1, whole_tokens=10_000)
    assert shown.text.startswith(MANUAL[:cut].rstrip())
    assert shown.text.endswith("… 4. The planner chooses a plan. 5. The executor runs the plan.")


def test_an_item_that_best_matches_is_focused_like_any_sentence() -> None:
    focus = focus_for("What does the rewrite system apply?", ["rewrite", "system", "apply"], {})
    shown = focus_passage(chunk(MANUAL, start=0), focus, max_chars=300)
    assert "Views are expanded" in shown.text  # the item's own text, not its siblings' heads
    assert MANUAL[shown.start : shown.end].split() == shown.text.split()


def test_an_outline_leaves_the_bodies_of_its_items_to_the_passages_after_it() -> None:
    cut = MANUAL.index("4. The planner") + 12
    first = dataclasses.replace(chunk(MANUAL[:cut], start=0), following=MANUAL[cut:])
    rest = MANUAL[MANUAL.index("3. The rewrite") :]
    second = Passage("c2", "d1", "Book", 4, len(MANUAL) - len(rest), len(MANUAL), rest, 0.5)
    focus = focus_for("Which stages does a query pass?", ["stages", "query", "pass"], {})
    shown = list(focused_passages([first, second], focus))
    assert len(shown) == 2  # the second passage's bodies are not in the first's outline


def test_a_list_right_under_its_lead_line_is_outlined() -> None:
    text = MANUAL.replace("to pass.\n\n1.", "to pass:\n1.")
    focus = focus_for("Which stages does a query pass?", ["stages", "query", "pass"], {})
    shown = focus_passage(chunk(text, start=0), focus, max_chars=400)
    assert shown.text.startswith("Here we give a short overview of the stages a query has")
    assert "5. The executor runs the plan." in shown.text and "It builds" not in shown.text

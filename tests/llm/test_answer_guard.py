"""The guards on a streamed answer: what may be shown of a reply as it arrives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from loregraph.answer.guard import clean_reply, is_source_line, valid_citations

TOKENS = [
    "The",
    "Count",
    "sails",
    "to",
    "England",
    "[1]",
    "[2]",
    "[9]",
    "[1, 9]",
    ".",
    ",",
    "\n",
    "-",
    "[",
    "]",
    "chunk",
    "3",
    "Sources:",
    "He",
    "a",
]


def test_invented_sources_and_citations_of_no_passage_are_removed() -> None:
    reply = (
        "Dracula sails on the Demeter [2][7].\n"
        "[56] dracula, chunk 20 (characters 45012–46011)\n"
        "**Sources:**\n"
        "- [1] Dracula, chunk 0 (characters 0–48)\n"
        "He lands at Whitby [3, 8]."
    )
    cleaned = clean_reply(reply, 3, final=True)
    assert cleaned.text == "Dracula sails on the Demeter [2].\nHe lands at Whitby [3]."
    assert cleaned.invented_sources == 3 and cleaned.invalid_citations == [7, 8]
    assert valid_citations(cleaned.text, 3) == [2, 3]
    assert is_source_line("[56] dracula, chunk 20") and not is_source_line("[1] He sails.")


def test_a_repeated_sentence_is_dropped_and_a_loop_stops_the_answer() -> None:
    once = clean_reply(
        "He sails to England by sea [1]. He sails to England by sea [1].", 1, final=True
    )
    assert once.text == "He sails to England by sea [1]." and once.repeats == 1
    assert not once.stop
    looping = clean_reply("He sails to England by sea [1].\n" * 10, 1, final=False)
    assert looping.stop and looping.text == "He sails to England by sea [1]."
    words = clean_reply("The ship went on and on and on and on and on and", 1, final=False)
    assert words.looped and words.text == "The ship went on and"


def test_a_line_that_may_become_a_source_line_is_held_back() -> None:
    assert clean_reply("He sails [1].\n[5", 3, final=False).text == "He sails [1]."
    assert clean_reply("He sails [1].\n[5] dracula, chu", 3, final=False).text == ("He sails [1].")
    assert clean_reply("He sails [1] to Eng", 3, final=False).text == "He sails [1] to Eng"
    assert clean_reply("He sails [", 3, final=False).text == "He sails"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_what_is_shown_only_grows_as_the_reply_arrives(tokens: list[str]) -> None:
    """The stream never has to take back text it showed (a cut word loop aside)."""
    reply = " ".join(tokens)
    final = clean_reply(reply, 3, final=True)
    if final.looped:
        return
    for end in range(1, len(reply) + 1):
        partial = clean_reply(reply[:end], 3, final=False)
        if partial.stop:
            break
        assert final.text.startswith(partial.text)

"""Lists in a document's text: the sentence that announces one, its items' heads, its end."""

from __future__ import annotations

from loregraph.text.lists import announces, ends_in_list, list_after, read_list

STAGES = """\
Here we give a short overview of the stages a query has to pass.

1. A connection to the server is established. The client then sends its query.
2. The parser checks the query for correct syntax and builds a tree.
   A second paragraph of the item, indented under it, says more about parsing.
3. The planner creates a plan. It weighs every path.
4. The executor runs the plan and returns the rows.

In the following sections each stage is covered in more detail.
"""

OPTIONS = """\
`-f file`
:   Send output to the specified file.

`-F format`
:   Selects the format of the output. `format` can be one of the following:

    `p` `plain`
    :   Output a plain-text SQL script file (the default).

    `c` `custom`
    :   Output a custom-format archive. It is compressed.

`-j njobs`
:   Run the dump in parallel.
"""


def test_the_heads_of_a_numbered_list_are_its_first_sentences() -> None:
    announced = STAGES.index("Here")
    start = list_after(STAGES, STAGES.index(".", announced) + 1)
    assert start == STAGES.index("1. A connection")
    run = read_list(STAGES, start)
    assert [item.head for item in run.items] == [
        "1. A connection to the server is established.",
        "2. The parser checks the query for correct syntax and builds a tree.",
        "3. The planner creates a plan.",
        "4. The executor runs the plan and returns the rows.",
    ]
    assert not run.open
    assert STAGES[run.end - 5 : run.end] == "rows."  # the paragraph after it is not read


def test_a_definition_list_nested_in_an_option_is_read_with_its_terms() -> None:
    lead = OPTIONS.index("`format` can be")
    start = list_after(OPTIONS, OPTIONS.index("following:") + len("following:"))
    assert start == OPTIONS.index("    `p` `plain`")
    run = read_list(OPTIONS, start)
    assert [item.head for item in run.items] == [
        "`p` `plain` : Output a plain-text SQL script file (the default).",
        "`c` `custom` : Output a custom-format archive.",
    ]
    assert not run.open  # "`-j njobs`", indented less, ends the nested list
    assert announces(OPTIONS, lead, start)  # an option whose values are listed


def test_an_item_does_not_announce_its_siblings() -> None:
    third = STAGES.index("3. The planner")
    assert list_after(STAGES, STAGES.index("\n", third)) == STAGES.index("4. The executor")
    assert not announces(STAGES, third, STAGES.index("4. The executor"))
    inner = STAGES.index("A second paragraph")  # a paragraph inside item 2
    assert not announces(STAGES, inner, STAGES.index("3. The planner"))
    option = OPTIONS.index("Send output")
    assert not announces(OPTIONS, option, OPTIONS.index("`-F format`"))


def test_a_sentence_far_from_any_list_announces_none() -> None:
    text = "A sentence. " + "Then prose goes on without a list for a while. " * 5 + "\n- an item"
    assert list_after(text, len("A sentence.")) is None
    assert list_after("No list follows this sentence.", 10) is None


def test_a_list_cut_by_the_end_of_the_text_is_open() -> None:
    cut = STAGES[: STAGES.index("returns the rows")]
    run = read_list(cut, cut.index("1. A connection"))
    assert run.open and run.items[-1].head == "4. The executor runs the plan and"
    assert ends_in_list(cut)
    assert ends_in_list(OPTIONS[: OPTIONS.index("It is compressed")])
    assert ends_in_list(STAGES[: STAGES.index("4. The") + 2])  # cut right after "4."
    assert not ends_in_list(STAGES.rstrip())  # a paragraph follows the list
    assert not ends_in_list("Plain prose, cut in the mid")
    assert not ends_in_list("Intro.\n\n* * *")  # a thematic break is no item


def test_a_list_that_ends_the_text_keeps_its_last_item() -> None:
    text = "The stages are:\n\n1. Parse the query.\n2. Plan it.\n3. Execute it."
    run = read_list(text, text.index("1."))
    assert [item.head for item in run.items] == [
        "1. Parse the query.",
        "2. Plan it.",
        "3. Execute it.",
    ]


def test_an_item_wrapped_over_indented_lines_keeps_its_first_sentence() -> None:
    text = "1. The parser checks the query for\n   correct syntax. More.\n2. Next"
    run = read_list(text, 0)
    assert [item.head for item in run.items] == [
        "1. The parser checks the query for correct syntax.",
        "2. Next",
    ]

"""Tolerant parsing of model replies: every malformation a model produces, and no JSON."""

from __future__ import annotations

import pytest

from loregraph.llm.parse import JSONParseError, parse_json

GOOD = {"entities": [{"name": "Ada Lovelace", "type": "Person"}]}


@pytest.mark.parametrize(
    ("reply", "repair"),
    [
        ('```json\n{"entities": [{"name": "Ada Lovelace", "type": "Person"}]}\n```', "code fence"),
        ('{"entities": [{"name": "Ada Lovelace", "type": "Person",},],}', "trailing comma"),
        ("{'entities': [{'name': 'Ada Lovelace', 'type': 'Person'}]}", "single quotes"),
        (
            'Sure! Here is the JSON:\n{"entities": [{"name": "Ada Lovelace", "type": "Person"}]}'
            "\nHope this helps.",
            "prose around JSON",
        ),
        (
            'The {best} answer: {"entities": [{"name": "Ada Lovelace", "type": "Person"}]} ok',
            "prose around JSON",
        ),
    ],
)
def test_malformed_replies_are_repaired_and_named(reply: str, repair: str) -> None:
    parsed = parse_json(reply)
    assert parsed.value == GOOD
    assert repair in parsed.repairs
    assert parsed.repaired


def test_clean_json_needs_no_repair() -> None:
    parsed = parse_json('  {"entities": []}\n')
    assert parsed.value == {"entities": []}
    assert not parsed.repaired


def test_truncated_reply_is_closed_and_flagged() -> None:
    parsed = parse_json('{"entities": [{"name": "A", "type": "Person"}, {"name": "B", "ty')
    assert parsed.truncated
    assert parsed.value["entities"][0] == {"name": "A", "type": "Person"}


def test_python_literals_and_apostrophes_survive() -> None:
    parsed = parse_json("{'ok': True, 'note': None, 'text': \"Mina's diary\"}")
    assert parsed.value == {"ok": True, "note": None, "text": "Mina's diary"}


@pytest.mark.parametrize("reply", ["", "   \n", "I'm sorry, I cannot help with that."])
def test_replies_without_json_raise_with_a_message_for_the_model(reply: str) -> None:
    with pytest.raises(JSONParseError, match=r"JSON|empty"):
        parse_json(reply)

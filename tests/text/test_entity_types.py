"""Type normalisation: any extractor's raw type to one of the graph types."""

from __future__ import annotations

import pytest

from loregraph.text.entity_types import TYPES, normalize_type

CASES = [
    # the words the normalisation table maps
    ("person", "Person"),
    ("Character", "Person"),
    ("animal", "Person"),
    ("creature", "Person"),
    ("location", "Location"),
    ("place", "Location"),
    ("setting", "Config"),  # a program's setting, in agent memory
    ("product", "Product"),
    ("artifact", "Product"),
    ("object", "Product"),
    ("something unheard of", "Concept"),
    # spaCy labels
    ("PERSON", "Person"),
    ("ORG", "Organization"),
    ("GPE", "Location"),
    ("LOC", "Location"),
    ("FAC", "Location"),
    ("NORP", "Concept"),
    ("PRODUCT", "Product"),
    ("WORK_OF_ART", "Product"),
    ("EVENT", "Event"),
    ("LAW", "Concept"),
    ("LANGUAGE", "Concept"),
    ("DATE", "Time"),
    ("TIME", "Time"),
    ("CARDINAL", "Concept"),
    # LLM synonyms and the Re-DocRED labels
    ("Company", "Organization"),
    ("organisation", "Organization"),
    ("institution", "Organization"),
    ("team", "Organization"),
    ("city", "Location"),
    ("Country", "Location"),
    ("building", "Location"),
    ("role", "Role"),
    ("job title", "Role"),
    ("occupation", "Role"),
    ("battle", "Event"),
    ("war", "Event"),
    ("meeting", "Event"),
    ("film", "Product"),
    ("PER", "Person"),
    ("MISC", "Concept"),
    ("NUM", "Concept"),
    # already normalised types map to themselves
    *[(t, t) for t in TYPES],
]


@pytest.mark.parametrize(("raw", "expected"), CASES)
def test_normalize_type_maps_raw_types(raw: str, expected: str) -> None:
    assert normalize_type(raw) == expected


@pytest.mark.parametrize(
    "raw", ["work of art", "Work-Of-Art", "  work_of_art  ", "WORKOFART", "Work Of Art"]
)
def test_case_spaces_hyphens_and_underscores_are_ignored(raw: str) -> None:
    assert normalize_type(raw) == "Product"


@pytest.mark.parametrize(("raw", "expected"), [("Cities", "Location"), ("ships", "Product")])
def test_plurals_are_understood(raw: str, expected: str) -> None:
    assert normalize_type(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "_"])
def test_empty_type_is_concept(raw: str) -> None:
    assert normalize_type(raw) == "Concept"


def test_normalising_twice_changes_nothing() -> None:
    for raw, _ in CASES:
        once = normalize_type(raw)
        assert normalize_type(once) == once

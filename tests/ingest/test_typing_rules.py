"""Entity types from the sentence around a name: ships, works, organisations, code."""

from __future__ import annotations

import pytest

from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.extract.typing_rules import code_shaped, in_code, one_side_of_backticks
from loregraph.ingest.types import SourceDocument
from loregraph.text.entity_types import (
    CODE,
    CONCEPT,
    CONFIG,
    FUNCTION,
    LIBRARY,
    LOCATION,
    ORGANIZATION,
    PERSON,
    PRODUCT,
    normalize_type,
)

pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor()


def types_of(extractor: OfflineExtractor, text: str) -> dict[str, str]:
    document = SourceDocument(title="", text=text, source=text[:40])
    (result,) = extractor.extract_many([(document, list(chunk_text(text)))])
    return {e.name: e.type for e in result.entities}


SHIP_PASSAGE = (
    "The schooner Demeter left Varna in July with fifty boxes of earth. For weeks the "
    "Demeter sailed west through the Bosphorus. One by one the crew of the Demeter "
    "vanished. At last the Demeter ran aground below the cliffs at Whitby. Captain Henry "
    "Smith was found lashed to the wheel."
)


def test_a_ship_passage(extractor: OfflineExtractor) -> None:
    types = types_of(extractor, SHIP_PASSAGE)
    assert types["Demeter"] == PRODUCT
    assert types["Whitby"] == LOCATION and types["Varna"] == LOCATION
    assert types["Captain Henry Smith"] == PERSON


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        # a common noun before the name, and names conjoined to it
        ("The schooner Emma came into the harbour.", "Emma", PRODUCT),
        ("Later the steamers Victoria and Albert made trips along the coast.", "Albert", PRODUCT),
        # apposition
        ("The Morning Star, a Dutch steamer, reached Rotterdam.", "Morning Star", PRODUCT),
        # a naming verb: the named thing is a brig
        ("A Russian brig called the Katarina arrived at Odessa.", "Katarina", PRODUCT),
        # only vehicles are boarded
        (
            "We went on board the Czarina Catherine at Galatz with Jonathan Harker.",
            "Czarina Catherine",
            PRODUCT,
        ),
        # "the <organisation noun> of <name>"
        ("I wrote to the London firm of Hapgood about the boxes.", "Hapgood", ORGANIZATION),
    ],
)
def test_a_noun_next_to_the_name_gives_its_type(
    extractor: OfflineExtractor, text: str, name: str, kind: str
) -> None:
    assert types_of(extractor, text)[name] == kind


def test_the_before_a_person_tagged_name_makes_it_no_person(
    extractor: OfflineExtractor,
) -> None:
    text = "The Demeter was lost. Nobody saw the Demeter again. Jonathan Harker wept."
    types = types_of(extractor, text)
    assert types["Demeter"] != PERSON
    assert types["Jonathan Harker"] == PERSON


def test_one_odd_mention_does_not_retype_a_person(extractor: OfflineExtractor) -> None:
    text = (
        "Dracula came to London. Dracula bought a house. Dracula met Lucy Westenra. "
        "Dracula is the villain of the novel Dracula. Dracula left for Varna."
    )
    assert types_of(extractor, text)["Dracula"] == PERSON


def test_a_titled_person_after_the_stays_a_person(extractor: OfflineExtractor) -> None:
    text = "The Emperor Napoleon crossed the Alps. Josephine Bonaparte stayed in Paris."
    assert types_of(extractor, text)["Emperor Napoleon"] == PERSON


def test_the_day_a_person_did_something_gives_no_time(extractor: OfflineExtractor) -> None:
    text = "On the day Lucy Westenra died, Arthur Holmwood wept. Lucy Westenra was buried."
    assert types_of(extractor, text)["Lucy Westenra"] == PERSON


def test_code_in_technical_text(extractor: OfflineExtractor) -> None:
    text = (
        "Call `console.log(myURL.href)` to print the address. Raise `maxBuffer` when Node "
        "prints a lot. A `Blob` holds raw bytes.\n\n```\nSELECT Smith FROM Users;\n```"
    )
    types = types_of(extractor, text)
    assert types["console.log(myURL.href"] == CODE  # the name stops at the backtick
    assert types["maxBuffer"] == FUNCTION  # camel case: a function or method
    assert types["Blob"] == CODE  # only the backticks tell


@pytest.mark.parametrize(
    "name",
    ["max_connections", "pg_dump", "maxBuffer", "myURL", "console.log", "f(x", "cost=4.36"],
)
def test_code_shapes(name: str) -> None:
    assert code_shaped(name)


@pytest.mark.parametrize(
    "name",
    ["McDonald", "MacArthur", "J.R.R. Tolkien", "U.S.", "Van Helsing", "O'Brien", "iPhone"],
)
def test_name_shapes(name: str) -> None:
    assert not code_shaped(name)


def test_joined_words_are_code_only_in_technical_text() -> None:
    assert not code_shaped("PlayStation")
    assert code_shaped("BlockNumber", technical=True)


def test_in_code() -> None:
    text = "Set `work_mem` high.\n\n```\nSELECT a FROM b;\n```\nThen SELECT again `x`."
    assert in_code(text, text.index("work_mem"), text.index("work_mem") + 8)
    assert in_code(text, text.index("FROM"), text.index("FROM") + 4)
    last = text.rindex("SELECT")
    assert not in_code(text, last, last + 6)
    assert not in_code(text, text.index("Set"), text.index("Set") + 3)


def test_one_side_of_backticks() -> None:
    text = "Call `console.log(x)` now"
    start, end = one_side_of_backticks(text, 0, text.index(")"))
    assert text[start:end] == "console.log(x"
    assert one_side_of_backticks(text, 0, 4) == (0, 4)


@pytest.mark.parametrize(
    ("noun", "kind"),
    [
        ("schooner", PRODUCT),
        ("steamers", PRODUCT),
        ("newspaper", PRODUCT),
        ("firm", ORGANIZATION),
        ("function", FUNCTION),
        ("framework", LIBRARY),
        ("environment variable", CONFIG),
        ("friend", CONCEPT),
    ],
)
def test_nouns_that_name_a_kind(noun: str, kind: str) -> None:
    assert normalize_type(noun) == kind

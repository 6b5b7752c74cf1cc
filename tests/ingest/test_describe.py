"""Entity descriptions say what the entity is: copula, apposition, role noun, else the most
central mention; never a heading."""

from __future__ import annotations

import pytest

from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.describe import DescriptionCues, Pick, choose
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.types import SourceDocument
from loregraph.settings import ExtractionSettings

pytest.importorskip("spacy")

FILLER = (
    "The weather stayed grey for the whole week, and the roads were muddy. "
    "Nobody in the village expected any change before the market day.\n\n"
)


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(ExtractionSettings())


def describe(extractor: OfflineExtractor, text: str, title: str = "Notes") -> dict[str, str]:
    document = SourceDocument(title=title, text=text, source=title)
    (result,) = extractor.extract_many([(document, list(chunk_text(text)))])
    return {c.name: c.description for c in result.entities}


def cues_of(extractor: OfflineExtractor, sentence: str) -> list[str]:
    from loregraph.ingest.extract.spacy_nlp import load_nlp

    cues = DescriptionCues()
    cues.add(load_nlp(extractor.settings.spacy_model)(sentence), 0)
    return cues.kinds


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("Jonathan Harker, a young solicitor, travelled to Transylvania.", "apposition"),
        ("Dr. Seward, the superintendent of the asylum, wrote to Arthur.", "apposition"),
        ("Whitby is a seaside town in Yorkshire.", "copula"),
        ("The solicitor Jonathan Harker left Munich by train.", "apposition"),
        ("The schooner Demeter came into the harbour at night.", "role"),
        ("The estate is called Carfax, after the four sides of the house.", "copula"),
        ("A small town called Bistritz lies near the pass.", "copula"),
        ("The old asylum, known as Purfleet House, stood empty.", "copula"),
    ],
)
def test_the_parse_gives_the_cue(extractor: OfflineExtractor, sentence: str, kind: str) -> None:
    assert kind in cues_of(extractor, sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Whitby is not a town for strangers.",  # negated
        "This London was no place for him.",  # "no" complement
        "The other was Mr. Morris' strong resolute tone of quiet command.",  # no comma
        "He is a man of noble nature; poor dear Lucy was right about him.",  # no article
    ],
)
def test_no_defining_cue_where_the_sentence_defines_nothing(
    extractor: OfflineExtractor, sentence: str
) -> None:
    kinds = cues_of(extractor, sentence)
    assert "apposition" not in kinds and "role" not in kinds
    assert "copula" not in kinds or "man" in sentence  # "He is a man": the pronoun's


def test_headings_and_capitals_never_describe(extractor: OfflineExtractor) -> None:
    cues = DescriptionCues()
    from loregraph.ingest.extract.spacy_nlp import load_nlp

    nlp = load_nlp(extractor.settings.spacy_model)
    text = "CHAPTER XII DR. SEWARD'S DIARY\n\nDr. Seward walked to the asylum gate."
    cues.add(nlp(text), 0)
    assert cues.starts == [text.index("Dr. Seward walked")]
    assert cues.ends == [len(text)]


def test_apposition_beats_an_earlier_plain_mention_in_a_long_text(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "CHAPTER I\n\nJONATHAN HARKER'S JOURNAL\n\n"
        "Mina wrote that Jonathan Harker had left for the east.\n\n"
        + FILLER * 25
        + "Jonathan Harker, a young solicitor from Exeter, had been sent to arrange a sale.\n\n"
        + FILLER * 5
    )
    found = describe(extractor, text)
    assert found["Jonathan Harker"] == (
        "Jonathan Harker, a young solicitor from Exeter, had been sent to arrange a sale."
    )


def test_copula_describes_a_place_and_the_heading_is_never_used(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "WHITBY\n\n"
        + FILLER * 25
        + "We reached Whitby after dark. Whitby is a fishing port on the Yorkshire coast.\n\n"
        + FILLER * 5
    )
    assert describe(extractor, text)["Whitby"] == (
        "Whitby is a fishing port on the Yorkshire coast."
    )


def test_without_a_cue_the_central_mention_wins(extractor: OfflineExtractor) -> None:
    text = (
        FILLER * 10
        + "It rained on the house of Mr. Quincey Morris.\n\n"
        + FILLER * 10
        + "Quincey Morris rode to Varna with Arthur Holmwood and Van Helsing.\n\n"
        + "Arthur Holmwood met Van Helsing. Arthur Holmwood wrote to Van Helsing.\n\n"
        + FILLER * 10
    )
    found = describe(extractor, text)
    assert found["Quincey Morris"].startswith("Quincey Morris rode to Varna")


def test_short_records_keep_their_first_sentences(extractor: OfflineExtractor) -> None:
    text = (
        "Dark River is a 2017 British drama film directed by Clio Barnard. "
        "Barnard changed the location of the film to Yorkshire. "
        "Hugh, King of Italy, removed Lambert. Hugh was Lambert's half-brother by their mother."
    )
    found = describe(extractor, text, title="Dark River")
    assert (
        found["Dark River"] == "Dark River is a 2017 British drama film directed by Clio Barnard."
    )
    assert found["Clio Barnard"].startswith("Dark River is a 2017")  # no cue: first mention
    assert found["Hugh"] == "Hugh was Lambert's half-brother by their mother."  # copula


def test_choose_leaves_a_long_text_entity_without_describing_sentences_undescribed() -> None:
    class Span:
        def __init__(self, start: int, end: int, sentence: int) -> None:
            self.start, self.end, self.sentence = start, end, sentence

    text = "DR. SEWARD'S DIARY"
    cues = DescriptionCues()  # no sentence may describe
    spans = [Span(0, 10, 0)]
    picks = choose(
        spans, ["Dr. Seward"], text, [(0, len(text))], cues, {"Dr. Seward": 1}, long=True
    )
    assert picks == {}
    short = choose(
        spans, ["Dr. Seward"], text, [(0, len(text))], cues, {"Dr. Seward": 1}, long=False
    )
    assert short["Dr. Seward"] == Pick(0, len(text), (0, 10))

"""Which typed relations the offline extractor keeps: supported ones, with real verbs."""

from __future__ import annotations

from typing import Any

import pytest

from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.extract.relations import fits_types
from loregraph.ingest.relate import build_relations
from loregraph.ingest.types import (
    CandidateRelation,
    ExtractionResult,
    RelationEvidence,
    SourceDocument,
)
from loregraph.models import ABOUT, CO_OCCURS, Entity
from loregraph.text.entity_types import CONCEPT, LOCATION, ORGANIZATION, PERSON

pytest.importorskip("spacy")

Triple = tuple[str, str, str]


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor()


def extract(extractor: OfflineExtractor, text: str, title: str = "") -> ExtractionResult:
    document = SourceDocument(title=title, text=text, source=text[:40])
    (result,) = extractor.extract_many([(document, list(chunk_text(text)))])
    return result


def typed(result: ExtractionResult) -> dict[Triple, CandidateRelation]:
    return {
        (r.source, r.type, r.target): r
        for r in result.relations
        if r.type not in (CO_OCCURS, ABOUT)
    }


def test_verbs_are_lemmatised_to_known_words(extractor: OfflineExtractor) -> None:
    text = (
        "Mina Harker woke early and asked Jonathan Harker to bring Abraham Van Helsing. "
        "God bless Abraham Van Helsing. Quincey Morris frobnicated Arthur Holmwood."
    )
    found = typed(extract(extractor, text))
    assert ("Jonathan Harker", "BRINGS", "Abraham Van Helsing") in found  # not "BRES"
    assert ("God", "BLESSES", "Abraham Van Helsing") in found  # not "BLESES"
    assert not [t for t in found if t[0] == "Quincey Morris"]  # not a known verb


def test_lemmatizer_gives_known_words_or_nothing() -> None:
    from loregraph.ingest.extract.spacy_nlp import lemmatizer_of, load_nlp

    nlp = load_nlp("en_core_web_sm")
    lemma = lemmatizer_of(nlp)
    doc = nlp("He wanted to bring them. God bless him. They blessed it and frobnicated it.")
    verbs = {t.text: lemma(t, "VERB") for t in doc if t.tag_.startswith("VB")}
    assert verbs == {
        "wanted": "want",
        "bring": "bring",
        "bless": "bless",
        "blessed": "bless",
        "frobnicated": "",
    }


def test_one_sentence_naming_both_ends_is_enough(extractor: OfflineExtractor) -> None:
    found = typed(extract(extractor, "Quincey Morris met Arthur Holmwood in London."))
    rel = found[("Quincey Morris", "MEETS", "Arthur Holmwood")]
    assert rel.confidence == 0.8
    assert rel.fact == "Quincey Morris met Arthur Holmwood in London."
    assert [ev.sentence for ev in rel.evidence] == [rel.fact]


def test_a_guessed_pronoun_once_gives_nothing(extractor: OfflineExtractor) -> None:
    text = (
        "Quincey Morris went to Whitby. He met Arthur Holmwood at the station. The weather "
        "was fine. Later John Seward wrote a letter. He met Arthur Holmwood too."
    )
    result = extract(extractor, text)
    assert not [t for t in typed(result) if t[1] == "MEETS"]
    assert result.stats["typed_unsupported"] >= 1


def test_a_guessed_pronoun_twice_is_kept_with_both_sentences(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Quincey Morris went to Whitby. He met Arthur Holmwood at the station. Quincey "
        "Morris was tired. He met Arthur Holmwood again in the evening."
    )
    rel = typed(extract(extractor, text))[("Quincey Morris", "MEETS", "Arthur Holmwood")]
    assert rel.confidence == 0.6
    assert [ev.sentence for ev in rel.evidence] == [
        "He met Arthur Holmwood at the station.",
        "He met Arthur Holmwood again in the evening.",
    ]


def test_the_title_of_a_short_document_is_its_pronouns(extractor: OfflineExtractor) -> None:
    text = "Henrik Angell was a Norwegian officer. He was born in Bergen."
    found = typed(extract(extractor, text, title="Henrik Angell"))
    assert ("Henrik Angell", "IS_BORN_IN", "Bergen") in found


def test_a_second_name_is_not_a_relation(extractor: OfflineExtractor) -> None:
    text = (
        "The Philippine Commission, also known as the Taft Commission, was appointed by "
        "President William McKinley. The Winnebago War is also called the Winnebago Uprising."
    )
    found = typed(extract(extractor, text))
    assert set(found) == {("President William McKinley", "APPOINTS", "Philippine Commission")}


def test_what_is_said_is_not_an_object(extractor: OfflineExtractor) -> None:
    text = 'John Seward said "Finis" and closed the book. John Seward said to Arthur Holmwood.'
    found = typed(extract(extractor, text))
    assert set(found) == {("John Seward", "SAYS_TO", "Arthur Holmwood")}


def test_a_participle_modifying_a_name_is_passive(extractor: OfflineExtractor) -> None:
    text = "Toy Story, directed by John Lasseter, premiered in Los Angeles."
    found = typed(extract(extractor, text))
    assert ("John Lasseter", "DIRECTS", "Toy Story") in found


def test_a_foreign_word_is_not_a_preposition(extractor: OfflineExtractor) -> None:
    found = typed(extract(extractor, "Henrik Angell was born at Luster in Sogn og Fjordane."))
    assert ("Henrik Angell", "IS_BORN_AT", "Luster") in found
    assert not [t for t in found if t[1].endswith("_OG")]


def test_two_subjects_of_one_verb_keep_the_nearest(extractor: OfflineExtractor) -> None:
    text = "JOHN SMITH’S JOURNAL\n\n(_Mem._, I must ask Count Dracula all about them.)"
    assert not [t for t in typed(extract(extractor, text)) if t[0] == "Mem"]


@pytest.mark.parametrize(
    ("kind", "source", "target", "fits"),
    [
        ("IN", LOCATION, LOCATION, True),  # Bistritz in Transylvania
        ("IN", ORGANIZATION, CONCEPT, False),  # ... in Spanish
        ("IN", ORGANIZATION, ORGANIZATION, False),
        ("OF", PERSON, LOCATION, True),  # Morris, of Texas
        ("OF", PERSON, ORGANIZATION, True),  # Dr. Vincent, of the North Hospital
        ("OF", PERSON, PERSON, False),
        ("FROM", CONCEPT, LOCATION, True),  # an American from Texas
        ("FROM", LOCATION, LOCATION, False),  # arrived at Whitby from Varna
        ("IS_SUNG_IN", PRODUCT := "Product", CONCEPT, False),
        ("IS_BORN_IN", PERSON, LOCATION, True),
        ("MEETS", PERSON, PERSON, True),
    ],
)
def test_prepositions_need_fitting_types(kind: str, source: str, target: str, fits: bool) -> None:
    assert fits_types(kind, source, target) is fits


def _entity(name: str, kind: str = PERSON) -> Entity:
    return Entity(id=Entity.make_id("s", name), name=name, type=kind)


def _candidate(source: str, kind: str, target: str) -> CandidateRelation:
    evidence = [RelationEvidence(chunk_seq=0, sentence=f"{source} {kind} {target}.")]
    return CandidateRelation(source, target, kind, evidence[0].sentence, 0.8, evidence)


@pytest.mark.parametrize(
    ("a", "b", "kept"),
    [
        ("Jonathan Harker", "Harker", False),
        ("Mr. Morris", "Quincey Morris", False),
        ("Mina Harker", "Jonathan Harker", True),
        ("Lord Godalming", "Lady Godalming", True),
    ],
)
def test_relate_drops_relations_between_two_names_of_one_person(a: str, b: str, kept: bool) -> None:
    entities: dict[str, Any] = {a: _entity(a), b: _entity(b)}
    relations, dropped = build_relations([_candidate(a, "FEARS_FOR", b)], {}, entities, ["c0"], "s")
    assert (len(relations), dropped) == ((1, 0) if kept else (0, 1))
    if kept:
        assert relations[0].evidence[0].sentence == f"{a} FEARS_FOR {b}."


def test_relate_keeps_a_place_named_after_a_person() -> None:
    entities = {
        "Johns Hopkins": _entity("Johns Hopkins"),
        "Johns Hopkins University": _entity("Johns Hopkins University", ORGANIZATION),
    }
    candidate = _candidate("Johns Hopkins", "FOUNDS", "Johns Hopkins University")
    relations, _ = build_relations([candidate], {}, entities, ["c0"], "s")
    assert len(relations) == 1


def test_a_diary_heading_joined_to_a_sentence_is_no_end(extractor: OfflineExtractor) -> None:
    text = (
        "Telegram, Rufus Smith, London, to Lord Godalming, Varna._\n\n“_Czarina Catherine_ "
        "reported entering Galatz at one o’clock to-day.”\n\n_Dr. Seward’s Diary._\n\n"
        "_1 November._--All day long we have travelled. Dr. Seward met Arthur Holmwood in "
        "Galatz."
    )
    found = typed(extract(extractor, text))
    assert {t for t in found if t[0] == "Dr. Seward"} == {
        ("Dr. Seward", "MEETS", "Arthur Holmwood"),
        ("Dr. Seward", "MEETS_IN", "Galatz"),
    }
    assert not [t for t in found if t[2] == "Dr. Seward"]


def test_relate_keeps_about_from_a_subject_to_a_short_form_of_its_name() -> None:
    full, short = "Princess Maria of Greece and Denmark", "Princess Maria"
    entities = {full: _entity(full), short: _entity(short)}
    candidates = [_candidate(full, ABOUT, short), _candidate(full, "MEETS", short)]
    relations, dropped = build_relations(candidates, {}, entities, ["c0"], "s")
    assert [r.type for r in relations] == [ABOUT] and dropped == 1

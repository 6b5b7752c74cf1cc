"""The offline (spaCy) extractor: entities, title entity, salience, relations, chunk mapping."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from loregraph.errors import DependencyError
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.assemble import ChunkLocator, excerpt
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.extract.dependency import relation_type, third_person
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.extract.select import select_entities
from loregraph.ingest.extract.spacy_nlp import prepare_text, split_pieces
from loregraph.ingest.types import CandidateEntity, ExtractionResult, SourceDocument, TextChunk
from loregraph.models import ABOUT, CO_OCCURS, name_key
from loregraph.settings import ChunkSettings, ExtractionSettings

pytest.importorskip("spacy")

Book = tuple[SourceDocument, list[TextChunk], ExtractionResult]

SHORT = {
    "Lothair II": "Lothair II was a king of Lotharingia. He was the son of Emperor Lothair I "
    "and Ermengarde of Tours. Lothair II married Teutberga in 855.",
    "Journey": "Jonathan Harker travelled to Transylvania in May. Lucy was bitten by Dracula. "
    "Van Helsing met Seward in London.",
    "Nowhere": "Mina wrote to Lucy from Whitby.",
}


def item(
    title: str, text: str, settings: ChunkSettings | None = None
) -> tuple[SourceDocument, list[TextChunk]]:
    return SourceDocument(title=title, text=text, source=title), list(chunk_text(text, settings))


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(ExtractionSettings())


@pytest.fixture(scope="module")
def book(
    excerpt_path: Path, extractor: OfflineExtractor
) -> tuple[SourceDocument, list[TextChunk], ExtractionResult]:
    document, chunks = item("Dracula", excerpt_path.read_text(encoding="utf-8"))
    (result,) = extractor.extract_many([(document, chunks)])
    return document, chunks, result


@pytest.fixture(scope="module")
def short(extractor: OfflineExtractor) -> dict[str, ExtractionResult]:
    results = extractor.extract_many([item(t, x) for t, x in SHORT.items()])
    return dict(zip(SHORT, results, strict=True))


def entity(result: ExtractionResult, name: str) -> CandidateEntity:
    found = [e for e in result.entities if e.name == name]
    assert found, f"{name!r} not among {[e.name for e in result.entities]}"
    return found[0]


def typed(result: ExtractionResult) -> set[tuple[str, str, str]]:
    return {
        (r.source, r.type, r.target) for r in result.relations if r.type not in (CO_OCCURS, ABOUT)
    }


def test_it_is_an_extractor(extractor: OfflineExtractor) -> None:
    assert isinstance(extractor, Extractor)


# --------------------------------------------------------------------------- the excerpt
def test_the_count_and_his_names_are_the_title_entity(book: Book) -> None:
    _, _, result = book
    dracula = entity(result, "Dracula")
    surfaces = {o.surface for o in dracula.occurrences}
    assert {"Count Dracula", "the Count"} <= surfaces
    assert dracula.is_title and dracula.salience == 5.0 and dracula.type == "Person"
    assert [e for e in result.entities if e.is_title] == [dracula]
    assert result.stats["title_references_resolved"] >= 10


def test_van_helsing_is_one_entity_under_his_variant_names(book: Book) -> None:
    _, _, result = book
    owners = {o.surface: e.name for e in result.entities for o in e.occurrences}
    assert owners["Professor Van Helsing"] == owners["Van Helsing"] == "Van Helsing"
    assert entity(result, "Van Helsing").type == "Person"


def test_mentions_add_up_and_every_surface_is_in_its_chunk(book: Book) -> None:
    _, chunks, result = book
    flat = {c.seq: " ".join(prepare_text(c.text).split()).casefold() for c in chunks}
    for cand in result.entities:
        assert sum(o.count for o in cand.occurrences) == cand.mentions
        for occ in cand.occurrences:
            assert " ".join(occ.surface.split()).casefold() in flat[occ.chunk_seq], occ


def test_overlapping_chunks_never_double_count(
    excerpt_path: Path, extractor: OfflineExtractor
) -> None:
    text = excerpt_path.read_text(encoding="utf-8")[:12_000]
    apart = item("Dracula", text, ChunkSettings(size=1000, overlap=0))
    overlapping = item("Dracula", text, ChunkSettings(size=1000, overlap=400))
    first, second = extractor.extract_many([apart, overlapping])
    assert len(overlapping[1]) > len(apart[1])
    counts = {e.name: e.mentions for e in first.entities}
    assert counts == {e.name: e.mentions for e in second.entities}
    assert sum(counts.values()) > 20


def test_evidence_points_into_its_chunk(book: Book) -> None:
    _, chunks, result = book
    by_seq = {c.seq: c for c in chunks}
    for rel in result.relations:
        assert rel.evidence
        for ev in rel.evidence:
            chunk = by_seq[ev.chunk_seq]
            assert 0 <= ev.start < ev.end <= len(chunk.text)
            assert 0 < len(ev.sentence) <= 301


def test_facts_and_descriptions_are_verbatim(book: Book) -> None:
    document, _, result = book
    flat = " ".join(document.text.split())
    for rel in result.relations:
        assert rel.fact in flat
        assert all(ev.sentence in flat for ev in rel.evidence)
    for cand in result.entities:
        assert cand.description in flat


def test_relations_through_a_guessed_pronoun_need_a_second_sentence(book: Book) -> None:
    _, _, result = book
    assert result.stats["typed_unsupported"] > 0
    for rel in result.relations:
        if rel.type not in (CO_OCCURS, ABOUT) and rel.confidence < 0.8:
            assert len({ev.sentence for ev in rel.evidence}) >= 2, rel


def test_first_person_is_nobody_the_text_names(extractor: OfflineExtractor) -> None:
    """ "I" makes no relation: no heading shape guesses a writer for it, and "I" inside
    quotes is someone else again."""
    text = (
        "JOHN SMITH’S JOURNAL\n\nI travelled to Paris in May. “I am Pierre Dubois,” said the "
        "old man.\n\nLater I met Pierre Dubois in the market. In June I met Pierre Dubois "
        "again.\n\nLetter from Mary Jones to Tom Brown.\n\nI met Alice Cooper in Rome."
    )
    (result,) = extractor.extract_many([item("Notes", text)])
    found = typed(result)
    assert not [
        t
        for t in found
        if t[2] in ("Pierre Dubois", "Paris", "Alice Cooper")
        and t[0] in ("JOHN SMITH", "Mary Jones")
    ]
    assert not [t for t in found if t[1] == "IS"]


def test_relation_kinds_and_confidences(book: Book) -> None:
    _, _, result = book
    kinds = {r.type for r in result.relations}
    assert CO_OCCURS in kinds
    assert ABOUT not in kinds  # the excerpt is a long document
    for rel in result.relations:
        assert rel.source != rel.target
        if rel.type == CO_OCCURS:
            assert rel.confidence == 0.3 and rel.source < rel.target
        else:
            assert rel.confidence in (0.6, 0.8)
            assert rel.type == rel.type.upper()


def test_one_off_noise_stays_below_core_salience(book: Book) -> None:
    document, _, result = book
    opening = " ".join(document.text.split("\n\n", 1)[0].split())  # the first sentence
    one_offs = 0
    for cand in result.entities:
        assert 1.0 <= cand.salience <= 5.0
        if cand.mentions == 1 and not cand.is_title and cand.name not in opening:
            assert cand.salience < ExtractionSettings().min_entity_salience, cand
            one_offs += 1
    assert one_offs > 10
    core = select_entities(result.entities, ExtractionSettings()).core
    assert "Dracula" in {c.name for c in core}


def test_descriptions_are_first_mentions(book: Book) -> None:
    _, _, result = book
    for cand in result.entities:
        assert len(cand.description) <= 201
    assert "Van Helsing" in entity(result, "Van Helsing").description


# --------------------------------------------------------------------------- short texts
def test_copular_fact_and_title_entity(short: dict[str, ExtractionResult]) -> None:
    result = short["Lothair II"]
    assert ("Lothair II", "IS_KING_OF", "Lotharingia") in typed(result)
    title = entity(result, "Lothair II")
    assert title.is_title and title.salience == 5.0 and title.mentions == 2
    assert title.description == "Lothair II was a king of Lotharingia."
    about = {(r.source, r.target) for r in result.relations if r.type == ABOUT}
    assert ("Lothair II", "Lotharingia") in about
    assert all(r.confidence == 0.5 for r in result.relations if r.type == ABOUT)


def test_verb_relations_with_prepositions_and_passives(short: dict[str, ExtractionResult]) -> None:
    found = typed(short["Journey"])
    assert ("Jonathan Harker", "TRAVELS_TO", "Transylvania") in found
    assert ("Dracula", "BITES", "Lucy") in found  # passive turned active
    assert ("Van Helsing", "MEETS", "Seward") in found


def test_what_is_set_aside_is_no_target(extractor: OfflineExtractor) -> None:
    """ "instead of Y" / "rather than Y": Y is what the sentence sets aside, not a target of
    the verb (no DEPENDS_OF or MOVES_THAN relation)."""
    texts = {
        "Deps": "The API server now depends on Express instead of Hono.",
        "Move": "Mina Harker moved to Exeter rather than London.",
    }
    deps, move = extractor.extract_many([item(t, x) for t, x in texts.items()])
    assert ("API server", "DEPENDS_ON", "Express") in typed(deps)
    assert not {r for r in typed(deps) if r[2] == "Hono"}
    assert not {r for r in typed(move) if r[2] == "London"}


def test_where_someone_goes_is_a_place_and_what_software_moves_to_is_not(
    extractor: OfflineExtractor,
) -> None:
    """ "moved to X", "is visiting from X": X is a place whatever the tagger took it for;
    "moved the API server to X" moves a thing, and a name the sentence shows to be
    software keeps that type."""
    texts = {
        "Move": "Jonas Weber moved to Emberville.",
        "Visit": "Her sister Beatriz is visiting from Porto over Easter.",
        "Deploy": "We moved the API server to Hono.",
    }
    move, visit, deploy = extractor.extract_many([item(t, x) for t, x in texts.items()])
    assert entity(move, "Emberville").type == "Location"
    assert entity(visit, "Porto").type == "Location"
    assert entity(deploy, "Hono").type != "Location"


def test_a_title_never_mentioned_still_gets_one_occurrence(
    short: dict[str, ExtractionResult],
) -> None:
    title = entity(short["Nowhere"], "Nowhere")
    assert title.is_title and title.mentions == 1
    assert [(o.chunk_seq, o.count) for o in title.occurrences] == [(0, 1)]


def test_short_passage_entities_survive_selection(short: dict[str, ExtractionResult]) -> None:
    for result in short.values():
        selection = select_entities(result.entities, ExtractionSettings())
        assert {c.name for c in selection.nodes} == {c.name for c in result.entities}


def test_co_occurrence_can_be_switched_off() -> None:
    extractor = OfflineExtractor(ExtractionSettings(co_occurrence=False))
    (result,) = extractor.extract_many([item("Nowhere", SHORT["Nowhere"])])
    assert result.relations and all(r.type != CO_OCCURS for r in result.relations)


async def test_extract_and_extract_many_agree(
    extractor: OfflineExtractor, short: dict[str, ExtractionResult]
) -> None:
    single = await extractor.extract(*item("Journey", SHORT["Journey"]))
    batch = short["Journey"]
    assert [(e.name, e.mentions, e.type) for e in single.entities] == [
        (e.name, e.mentions, e.type) for e in batch.entities
    ]
    assert typed(single) == typed(batch)


def test_dates_are_kept_only_when_asked(extractor: OfflineExtractor) -> None:
    text = "Lothair II died on 8 August 869 in Piacenza."
    (without,) = extractor.extract_many([item("Lothair II", text)])
    (with_dates,) = OfflineExtractor(include_dates=True).extract_many([item("Lothair II", text)])
    assert not [e for e in without.entities if e.type == "Time"]
    assert "8 August 869" in {e.name for e in with_dates.entities if e.type == "Time"}


def test_empty_document_gives_an_empty_result(extractor: OfflineExtractor) -> None:
    (result,) = extractor.extract_many([(SourceDocument("Empty", "", "empty"), [])])
    assert result.entities == [] and result.relations == []


def test_missing_model_names_the_install_command() -> None:
    broken = OfflineExtractor(ExtractionSettings(spacy_model="xx_no_such_model_here"))
    with pytest.raises(DependencyError, match=r"loregraph\[nlp\]"):
        broken.extract_many([item("X", "Some text about Paris.")])


# --------------------------------------------------------------------------- helpers
@pytest.mark.parametrize(
    ("lemma", "form"),
    [
        ("travel", "TRAVELS"),
        ("be", "IS"),
        ("have", "HAS"),
        ("go", "GOES"),
        ("marry", "MARRIES"),
        ("watch", "WATCHES"),
        ("play", "PLAYS"),
        ("bite", "BITES"),
    ],
)
def test_third_person(lemma: str, form: str) -> None:
    assert third_person(lemma) == form


def test_relation_type() -> None:
    assert relation_type("IS", "king", "of") == "IS_KING_OF"
    assert relation_type("SETS", "", "out", "for") == "SETS_OUT_FOR"
    assert relation_type("IS", "lay-abbot", "of") == "IS_LAY_ABBOT_OF"


def test_prepare_text_keeps_every_offset() -> None:
    text = "_3 May. Bistritz._--Left\nMunich at 8:35.\n\nNew *paragraph* my_var."
    prepared = prepare_text(text)
    assert len(prepared) == len(text)
    assert "Left Munich" in prepared and "\n\n" in prepared
    assert "my_var" in prepared and "_" not in prepared.replace("my_var", "")


def test_split_pieces_covers_the_text_and_cuts_at_paragraphs() -> None:
    text = "\n\n".join(f"Paragraph {i} " + "word " * 300 for i in range(20))
    pieces = split_pieces(text, 5000)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
    assert all(text[end - 2 : end] == "\n\n" for _, end in pieces[:-1])
    assert all(end - start <= 5000 for start, end in pieces)


def test_chunk_locator_prefers_the_most_central_chunk() -> None:
    chunks = [TextChunk(0, 0, 1000, ""), TextChunk(1, 800, 1800, ""), TextChunk(2, 1600, 2600, "")]
    locator = ChunkLocator(chunks)
    assert locator.locate(10, 20).seq == 0
    assert locator.locate(810, 820).seq == 0  # 190 from chunk 0's end, 10 from chunk 1's start
    assert locator.locate(990, 1000).seq == 1
    assert locator.locate(950, 1050).seq == 1  # only chunk 1 contains it whole
    assert locator.locate(2590, 2700).seq == 2  # past the end: the chunk that overlaps


def test_excerpt_trims_around_the_focus() -> None:
    text = "word " * 200 + "Dracula " + "word " * 200
    start = text.index("Dracula")
    cut = excerpt(text, 0, len(text), (start, start + 7), 100)
    assert "Dracula" in cut and len(cut) <= 101
    assert excerpt("  A  short\nsentence. ", 0, 20, (0, 0), 100) == "A short sentence."


def test_names_in_results_are_keys_of_their_surfaces(short: dict[str, ExtractionResult]) -> None:
    for result in short.values():
        for cand in result.entities:
            assert name_key(cand.name)

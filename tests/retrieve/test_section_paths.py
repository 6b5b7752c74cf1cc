"""Sections in retrieval: a passage's heading path, shown and serialised where it is cited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from retrieve_corpus import NoEntities, retrieve_from_chunks, sample_result

from loregraph.answer.extractive import extractive_answer
from loregraph.answer.types import Citation
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.types import SourceDocument
from loregraph.models import Document
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.retrieve.results.sections import SectionIndex, add_sections, located, section_index
from loregraph.settings import PRESETS, Settings
from loregraph.store.sqlite import SqliteStore

SECTIONS = [
    [0, 2, "CHAPTER I"],
    [11, 7, "JONATHAN HARKER’S JOURNAL"],
    [500, 7, "Letter, Mina to Lucy"],
    [900, 2, "CHAPTER II"],
    [1000, 3, "Section 2.1"],
    [1100, 7, "DR. SEWARD’S DIARY"],
]


def test_the_path_is_the_nearest_heading_of_each_level_above() -> None:
    index = SectionIndex(SECTIONS)
    assert index.path(5) == "CHAPTER I"
    assert index.path(12) == "CHAPTER I › JONATHAN HARKER’S JOURNAL"
    assert index.path(899) == "CHAPTER I › Letter, Mina to Lucy"
    assert index.path(950) == "CHAPTER II"  # a new chapter closes the entries of the last
    assert index.path(1050) == "CHAPTER II › Section 2.1"
    assert index.path(5000) == "CHAPTER II › Section 2.1 › DR. SEWARD’S DIARY"


def test_a_passage_opening_with_headings_is_in_the_last_of_them() -> None:
    index = SectionIndex(SECTIONS)
    assert index.path(0) == "CHAPTER I › JONATHAN HARKER’S JOURNAL"  # 11 characters on
    assert index.path(900) == "CHAPTER II"  # the next heading is 100 characters on
    assert index.path(1) == "CHAPTER I"  # a passage starting inside the heading line


def test_before_the_first_heading_there_is_no_path() -> None:
    assert SectionIndex([[100, 1, "Intro"]]).path(99) == ""
    assert SectionIndex([]).path(0) == ""


def test_a_heading_that_repeats_the_title_is_left_out() -> None:
    raw = [[0, 1, "5.8. Row Security Policies"], [300, 2, "Policy Expressions"]]
    index = SectionIndex(raw, title="5.8. Row Security Policies")
    assert index.path(10) == ""
    assert index.path(0) == ""
    assert index.path(400) == "Policy Expressions"


@pytest.mark.parametrize(
    "raw",
    [None, "intro, body", {"a": 1}, [[0, 1]], [["0", 1, "x"]], [[0, True, "x"]], [[0, 1, " "]]],
)
def test_metadata_of_another_shape_gives_no_path(raw: object) -> None:
    assert SectionIndex(raw).path(10) == ""


def test_add_sections_sets_each_passage_from_its_document() -> None:
    result = sample_result()
    doc_id = result.passages[0].document_id
    book = Document(id=doc_id, title="Book", content_hash="h", metadata={"sections": SECTIONS})
    add_sections(result.passages, {doc_id: book})
    for passage in result.passages:
        assert passage.section == section_index(book).path(passage.start)
    assert result.passages[0].section.startswith("CHAPTER I")


def test_located_joins_title_and_path() -> None:
    assert located("Dracula", "CHAPTER IV") == "Dracula › CHAPTER IV"
    assert located("Dracula", "") == "Dracula"


def _with_section(section: str = "CHAPTER I › Storm") -> RetrievalResult:
    result = sample_result()
    for passage in result.passages:
        passage.section = section
    return result


def test_the_markdown_header_names_the_section() -> None:
    text = assemble(_with_section(), "markdown", budget=4000).text
    assert "\n[1] The Voyage of the Meridian › CHAPTER I › Storm (characters " in text
    plain = assemble(sample_result(), "markdown", budget=4000).text
    assert "\n[1] The Voyage of the Meridian (characters " in plain


def test_xml_and_json_carry_the_section() -> None:
    xml = assemble(_with_section(), "xml", budget=4000).text
    assert 'document="The Voyage of the Meridian" section="CHAPTER I › Storm" chunk="1"' in xml
    assert "section=" not in assemble(sample_result(), "xml", budget=4000).text
    data = json.loads(assemble(_with_section(), "json", budget=4000).text)
    assert data["passages"][0]["section"] == "CHAPTER I › Storm"


def test_citations_and_the_offline_sources_list_name_the_section() -> None:
    answer = extractive_answer(_with_section(), max_sentences=2)
    assert answer.citations
    sources = answer.text.split("Sources:\n", 1)[1].splitlines()
    for line, citation in zip(sources, answer.citations, strict=True):
        assert citation.section == "CHAPTER I › Storm"
        assert citation.to_dict()["section"] == "CHAPTER I › Storm"
        assert line.startswith(f"[{citation.index}] The Voyage of the Meridian › CHAPTER I › ")
    plain = extractive_answer(sample_result(), max_sentences=1).citations[0]
    assert plain.section == "" and " › " not in plain.label()


def test_a_citation_label_has_title_section_chunk_and_characters() -> None:
    citation = Citation(1, "d", "Dracula", "c", 3, 10, 20, "quote", "CHAPTER IV")
    assert citation.label() == "Dracula › CHAPTER IV, chunk 3 (characters 10–20)"


# --- from a real store ------------------------------------------------------------------


PROSE = "The weather at sea was calm and the crew mended the sails in the sun. "


def _book() -> str:
    parts = []
    for number, entry, fact in (
        ("I", "THE CAPTAIN’S LOG", "The schooner Meridian left Varna with fifty boxes of earth."),
        ("II", "THE MATE’S DIARY", "A storm drove the Meridian onto the sands at Whitby."),
    ):
        parts.append(f"CHAPTER {number}\n\n{entry}\n\n{PROSE * 8}\n\n{fact}\n\n{PROSE * 8}")
    return "\n\n".join(parts)


async def test_passages_from_a_store_carry_their_section(tmp_path: Path) -> None:
    book = SourceDocument("The Voyage", _book(), "/books/voyage.txt")
    note = SourceDocument("Note", "The sands at Whitby are wide and flat.", "/n.txt")
    question = "Where did the storm drive the Meridian?"
    result = await retrieve_from_chunks(tmp_path / "kg.db", [book, note], question)
    by_title = {p.document_title: p for p in result.passages}
    storm = next(p for p in result.passages if "storm drove" in p.text)
    assert storm.section == "CHAPTER II › THE MATE’S DIARY"
    assert by_title["Note"].section == ""  # a document without headings
    context = assemble(result, "markdown", budget=2000).text
    assert "The Voyage › CHAPTER II › THE MATE’S DIARY (characters " in context
    answer = extractive_answer(result)
    cited = [c for c in answer.citations if "storm drove" in c.quote]
    assert cited and cited[0].section == "CHAPTER II › THE MATE’S DIARY"
    assert "The Voyage › CHAPTER II › THE MATE’S DIARY, chunk " in answer.text


async def test_a_document_stored_without_sections_still_retrieves(tmp_path: Path) -> None:
    embedder = HashingEmbedder(dim=256)
    async with SqliteStore(tmp_path / "kg.db") as store:
        pipeline = IngestPipeline(store, NoEntities(), embedder, Settings())
        assert (await pipeline.ingest([SourceDocument("Old", _book(), "/old.txt")])).ok
        (doc,) = await store.list_documents("default")
        bundle = await store.read_bundle(doc.id)
        assert bundle is not None
        del bundle.document.metadata["sections"]  # as written before sections were kept
        await store.write_document(bundle)
        (doc,) = await store.list_documents("default")
        assert "sections" not in doc.metadata
        result = await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(
            "Where did the storm drive the Meridian?", "default"
        )
        assert result.passages and all(p.section == "" for p in result.passages)
        assert " › " not in assemble(result, "markdown", budget=2000).text

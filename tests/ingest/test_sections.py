"""Sections: headings found by their shape in novels, manuals and reports, and what is not one."""

from __future__ import annotations

from pathlib import Path

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.chunk.sections import (
    MAX_SECTIONS,
    Section,
    capped,
    find_sections,
    with_sections,
)
from loregraph.ingest.pipeline import IngestPipeline, document_id
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.models import DocKind
from loregraph.settings import Settings
from loregraph.store.sqlite import SqliteStore

BODY = "It was a long day, and the road went on through the hills until night came down."


def _titles(text: str) -> list[tuple[int, str]]:
    return [(s.level, s.title) for s in find_sections(text)]


def _para(*lines: str) -> str:
    """Paragraphs separated by blank lines, each followed by a line of prose."""
    return "\n\n".join(f"{line}\n\n{BODY}" for line in lines)


def test_a_novel_has_chapters_above_its_entries() -> None:
    text = (
        "CHAPTER I\n\nJONATHAN HARKER’S JOURNAL\n\n(_Kept in shorthand._)\n\n"
        f"_3 May. Bistritz._--Left Munich at 8:35 P. M. {BODY}\n\n"
        "CHAPTER II\n\nJONATHAN HARKER’S JOURNAL--_continued_\n\n"
        f"{BODY}\n\n"
        "_Letter from Miss Mina Murray to Miss Lucy Westenra._\n\n"
        f"“My dearest Lucy,--{BODY}”\n\n"
        "_Letter, Samuel F. Billington & Son, Solicitors, Whitby, to Messrs.\n"
        "Carter, Paterson & Co., London._\n\n"
        f"{BODY}\n\n"
        "DR. SEWARD’S DIARY\n\n"
        f"{BODY}\n"
    )
    assert _titles(text) == [
        (2, "CHAPTER I"),
        (7, "JONATHAN HARKER’S JOURNAL"),
        (2, "CHAPTER II"),
        (7, "JONATHAN HARKER’S JOURNAL--continued"),
        (7, "Letter from Miss Mina Murray to Miss Lucy Westenra"),
        (
            7,
            "Letter, Samuel F. Billington & Son, Solicitors, Whitby, to Messrs. Carter, "
            "Paterson & Co., London",
        ),
        (7, "DR. SEWARD’S DIARY"),
    ]


def test_a_section_starts_at_its_heading_in_the_text() -> None:
    text = f"{BODY}\n\n   CHAPTER IV\n\n{BODY}\n"
    (section,) = find_sections(text)
    assert section.start == text.index("CHAPTER IV")
    assert text[section.start :].startswith("CHAPTER IV")


def test_division_lines_and_their_levels() -> None:
    text = _para(
        "PART II",
        "BOOK ONE",
        "Chapter 4. The Storm",
        "CHAPTER THE LAST",
        "Appendix A",
        "Section 3: Results",
        "PREFACE",
    )
    assert _titles(text) == [
        (1, "PART II"),
        (1, "BOOK ONE"),
        (2, "Chapter 4. The Storm"),
        (2, "CHAPTER THE LAST"),
        (2, "Appendix A"),
        (3, "Section 3: Results"),
        (2, "PREFACE"),
    ]


def test_a_chapter_line_with_its_title_on_the_next_line() -> None:
    assert _titles(_para("CHAPTER I.\nTHE STORM AT SEA")) == [(2, "CHAPTER I. THE STORM AT SEA")]


def test_markdown_atx_and_setext_headings_nest_by_level() -> None:
    text = (
        "# 5.4. Constraints\n\nSome text.\n\n## 5.4.1. Check Constraints ##\n\nMore text.\n"
        "### `CHECK` clauses\n\nText.\n\nUsage Notes\n-----------\n\nText.\n\n"
        "Overview\n========\n\nText.\n"
    )
    assert _titles(text) == [
        (1, "5.4. Constraints"),
        (2, "5.4.1. Check Constraints"),
        (3, "CHECK clauses"),
        (2, "Usage Notes"),
        (1, "Overview"),
    ]


def test_numbered_headings_in_a_plain_report() -> None:
    text = _para("1. Introduction", "2.1 Scope", "5.4. Constraints", "IV. The Storm")
    assert _titles(text) == [
        (2, "1. Introduction"),
        (3, "2.1 Scope"),
        (3, "5.4. Constraints"),
        (2, "IV. The Storm"),
    ]


def test_code_blocks_and_yaml_hold_no_headings() -> None:
    text = (
        "---\ntitle: Notes\n---\n\n# Real\n\n```bash\n# not a heading\nCHAPTER I\n```\n\n"
        "~~~\n## nor this\n~~~\n\nText after.\n"
    )
    assert _titles(text) == [(1, "Real")]


def test_dialogue_and_one_word_paragraphs_are_not_headings() -> None:
    text = _para(
        "“No!”",
        "“HELP ME, PLEASE”",
        "“SISTER AGATHA.",
        "WHAT?",
        "STOP",
        "Yes.",
        "_Whitby_.",
        "“Yes,” he said.",
        "_Written 18 July, things so strange happening, that I shall keep accurate note._",
        "*she ran to the door and looked out.*",
        "WE RAN. THE DOOR WAS SHUT.",
    )
    assert _titles(text) == []


def test_list_items_tables_and_prose_are_not_headings() -> None:
    text = _para(
        "1. Install the package",
        "3.14 is close to pi",
        "12 May",
        "Chapter 4 covers the methods we used.",
        "Part I of the report describes the site.",
        "| ID | NAME |",
        "- IMPORTANT NOTE HERE",
        "> QUOTED TEXT LINE",
        "SELECT NAME FROM USERS;",
        "ALTER AGGREGATE, ALTER FUNCTION, DROP ROUTINE",
    )
    assert _titles(text) == []


def test_numbered_lines_in_markdown_are_list_items() -> None:
    text = "# Install\n\n1. Configuration\n\n   Run the configure script.\n\n2. Build\n\nText.\n"
    assert _titles(text) == [(1, "Install")]


def test_a_run_of_heading_shaped_lines_is_a_list() -> None:
    text = f"{BODY}\n\nCHAPTER I\n\nCHAPTER II\n\nCHAPTER III\n\n{BODY}\n\nCHAPTER IV\n\n{BODY}\n"
    assert _titles(text) == [(2, "CHAPTER IV")]


def test_a_heading_with_nothing_after_it_is_dropped() -> None:
    text = f"{BODY}\n\n## See Also\n\nChapter 35\n"
    assert _titles(text) == [(2, "See Also")]


def test_a_signature_is_not_a_heading_and_adjacent_entries_join() -> None:
    text = (
        f"{BODY}\n\nVAN HELSING.\n\n_Jonathan Harker’s Journal._\n\n{BODY}\n\n"
        f"LOG OF THE “DEMETER.”\n\n_Varna to Whitby._\n\n{BODY}\n\n"
        f"A HAMPSTEAD MYSTERY.\n\n{BODY}\n\nJONATHAN HARKER.\n\nTHE END\n"
    )
    assert _titles(text) == [
        (7, "Jonathan Harker’s Journal"),
        (7, "LOG OF THE “DEMETER.” — Varna to Whitby"),
        (7, "A HAMPSTEAD MYSTERY"),
    ]


def test_long_titles_are_cut() -> None:
    words = " ".join(["Word"] * 11)
    (section,) = find_sections(f"# {words} {'x' * 120}\n\n{BODY}\n")
    assert len(section.title) <= 101 and section.title.endswith("…")


def test_the_cap_keeps_the_larger_divisions_then_the_earlier() -> None:
    sections = [Section(i * 10, 7 if i % 2 else 2, f"s{i}") for i in range(10)]
    kept = capped(sections, limit=7)
    assert [s.start for s in kept] == sorted(s.start for s in kept)
    assert {s.title for s in kept if s.level == 2} == {f"s{i}" for i in range(0, 10, 2)}
    assert [s.title for s in kept if s.level == 7] == ["s1", "s3"]
    assert MAX_SECTIONS >= 500


def test_with_sections_keeps_them_in_metadata_as_compact_lists() -> None:
    text = f"CHAPTER I\n\n{BODY}\n\nCHAPTER II\n\n{BODY}\n"
    doc = SourceDocument("Book", text, "/books/b.txt", metadata={"path": "/books/b.txt"})
    marked, starts = with_sections(doc)
    assert marked.metadata == {
        "path": "/books/b.txt",
        "sections": [[0, 2, "CHAPTER I"], [text.index("CHAPTER II"), 2, "CHAPTER II"]],
    }
    assert starts == [0, text.index("CHAPTER II")]
    assert doc.metadata == {"path": "/books/b.txt"}  # the input is not changed


def test_with_sections_leaves_memories_plain_texts_and_record_fields_alone() -> None:
    text = f"CHAPTER I\n\n{BODY}\n"
    memory = SourceDocument("m", text, "m1", kind=DocKind.MEMORY)
    plain = SourceDocument("p", BODY, "p1")
    record = SourceDocument("r", text, "r1", metadata={"sections": "intro, body"})
    for doc in (memory, plain, record):
        assert with_sections(doc) == (doc, [])


# --- through the pipeline and the store ---------------------------------------------------


class _NoEntities:
    name = "none"

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        return ExtractionResult()


async def test_the_pipeline_keeps_sections_of_the_stored_text_and_starts_chunks_there(
    tmp_path: Path,
) -> None:
    header = (
        "The Project Gutenberg eBook of The Keeper\n\nTitle: The Keeper\n\n"
        "*** START OF THE PROJECT GUTENBERG EBOOK THE KEEPER ***\n\n"
    )
    footer = "\n\n*** END OF THE PROJECT GUTENBERG EBOOK THE KEEPER ***\n\nLicence text.\n"
    prose = f"{BODY}\n\n" * 12  # about 1,000 characters per part
    body = "".join(
        f"CHAPTER {n}\n\nTHE KEEPER’S JOURNAL\n\n{prose}_Letter, Ada to Tom._\n\n{prose}"
        for n in ("I", "II", "III")
    )
    source = SourceDocument("The Keeper", header + body + footer, "/b/keeper.txt")
    async with SqliteStore(tmp_path / "g.db") as store:
        pipeline = IngestPipeline(store, _NoEntities(), HashingEmbedder(), Settings())
        assert (await pipeline.ingest([source])).ok
        bundle = await store.read_bundle(document_id("default", "/b/keeper.txt"))
        assert bundle is not None
        stored = body.strip()
        sections = bundle.document.metadata["sections"]
        assert [title for _, _, title in sections][:3] == [
            "CHAPTER I",
            "THE KEEPER’S JOURNAL",
            "Letter, Ada to Tom",
        ]
        assert len(sections) == 9
        for start, level, title in sections:  # offsets in the stored text, boilerplate out
            assert isinstance(start, int) and isinstance(level, int)
            assert stored[start:].lstrip("_").startswith(title.split(",")[0])
        chunk_starts = {c.start for c in bundle.chunks}
        later = [s for s, level, _ in sections if level == 2 or "Letter" in stored[s : s + 7]]
        assert len(later) == 6
        assert set(later) <= chunk_starts  # a chapter or a letter after prose starts a chunk
        assert all(c.text == stored[c.start : c.end] for c in bundle.chunks)

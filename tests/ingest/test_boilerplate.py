"""Boilerplate of common sources is set aside before chunking and kept as metadata."""

from __future__ import annotations

from pathlib import Path

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.chunk.boilerplate import find_boilerplate, set_aside
from loregraph.ingest.pipeline import IngestPipeline, document_id
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.models import DocKind, content_hash
from loregraph.settings import Settings
from loregraph.store.sqlite import SqliteStore

PROSE = (
    "The lighthouse keeper rowed across the bay every morning to fetch bread and news. "
    "Her brother, a fisherman from the harbour town, kept the boat in repair.\n\n"
)
BODY = PROSE * 40

HEADER = (
    "The Project Gutenberg eBook of The Keeper, by Ada Lane\n\n"
    "This eBook is for the use of anyone anywhere at no cost and with almost no "
    "restrictions whatsoever.\n\n"
    "Title: The Keeper\n\nAuthor: Ada Lane\n\n"
    "Release Date: May, 2001 [eBook #2718]\n\nLanguage: English\n\n"
    "*** START OF THE PROJECT GUTENBERG EBOOK THE KEEPER ***\n\n\n"
)
FOOTER = (
    "\n\nEnd of the Project Gutenberg EBook of The Keeper, by Ada Lane\n\n"
    "*** END OF THE PROJECT GUTENBERG EBOOK THE KEEPER ***\n\n"
    "Updated editions will replace the previous one. Creating the works from print "
    "editions not protected by U.S. copyright law means that no one owns a United States "
    "copyright in these works.\n\nSTART: FULL LICENSE\n\n" + "Section 1. General Terms. " * 50
)
TITLE_PAGE = (
    "                THE KEEPER\n\n                  _by_\n\n               Ada Lane\n\n"
    "   Copyright, 1899, by Ada Lane\n\n          [_All rights reserved._]\n\n\n"
)
CONTENTS = (
    "CONTENTS\n\n"
    "CHAPTER I. The Bay\n"
    "CHAPTER II. The Storm\n"
    "CHAPTER III. The Brother's Boat\n"
    "CHAPTER IV. Morning\n\n\n\n"
)
BOOK_BODY = "CHAPTER I\n\nTHE BAY\n\n" + BODY


def _doc(text: str, kind: DocKind = DocKind.DOCUMENT) -> SourceDocument:
    return SourceDocument(title="t", text=text, source="s", kind=kind, metadata={"path": "p"})


def test_gutenberg_header_title_page_contents_and_licence_are_set_aside() -> None:
    text = HEADER + TITLE_PAGE + CONTENTS + BOOK_BODY + FOOTER
    doc = set_aside(_doc(text))
    assert doc.text.startswith("CHAPTER I\n\nTHE BAY\n\nThe lighthouse keeper")
    assert doc.text.endswith("kept the boat in repair.")
    for gone in ("PROJECT GUTENBERG", "CONTENTS", "Copyright", "FULL LICENSE", "End of the"):
        assert gone not in doc.text
    meta = doc.metadata
    assert meta["path"] == "p"
    assert meta["gutenberg"] == {
        "title": "The Keeper",
        "author": "Ada Lane",
        "language": "English",
        "ebook": "2718",
    }
    kinds = [p["kind"] for p in meta["boilerplate"]]
    assert kinds == ["gutenberg_header", "title_page", "contents", "gutenberg_footer"]
    assert "CHAPTER III. The Brother's Boat" in meta["front_matter"]
    assert meta["front_matter"].startswith("THE KEEPER")
    assert "Title: The Keeper" in meta["licence"] and "FULL LICENSE" in meta["licence"]
    contents = next(p for p in meta["boilerplate"] if p["kind"] == "contents")
    assert contents["summary"] == "table of contents (4 entries)"
    assert text[contents["start"] : contents["end"]].startswith("CONTENTS")
    # the stored text is the kept ranges of the text as read, joined by a blank line
    assert doc.text == "\n\n".join(text[s:e] for s, e in meta["text_spans"])


def test_marker_number_is_the_ebook_and_the_first_chapter_heading_is_kept() -> None:
    text = "*** START OF THE PROJECT GUTENBERG EBOOK 345 ***\n\n" + BOOK_BODY
    found = find_boilerplate(text)
    assert found is not None
    assert found.gutenberg == {"ebook": "345"}
    assert found.text.startswith("CHAPTER I\n\nTHE BAY")


def test_title_page_without_contents_is_set_aside_in_a_gutenberg_body() -> None:
    text = "*** START OF THE PROJECT GUTENBERG EBOOK 9 ***\n\n" + TITLE_PAGE + BOOK_BODY
    found = find_boilerplate(text)
    assert found is not None
    assert [p.kind for p in found.parts] == ["gutenberg_header", "title_page"]
    assert found.text.startswith("CHAPTER I")


def test_markdown_table_of_contents_with_links_is_set_aside() -> None:
    text = (
        "# Harbour Guide\n\n## Table of Contents\n\n"
        "- [Getting started](#getting-started)\n"
        "- [Moorings](#moorings)\n"
        "  - [Fees](#fees)\n"
        "- [Weather](#weather)\n\n"
        "## Getting started\n\n" + BODY
    )
    doc = set_aside(_doc(text))
    assert doc.text.startswith("# Harbour Guide\n\n## Getting started\n\nThe lighthouse")
    assert "[Moorings]" in doc.metadata["front_matter"]
    assert [p["kind"] for p in doc.metadata["boilerplate"]] == ["contents"]


def test_contents_with_page_numbers_and_a_prose_preface_kept() -> None:
    text = (
        "A short preface explains why this guide was written.\n\n"
        "Contents\n\n"
        "Introduction ........ 1\n"
        "tides and currents . . . . . 12\n"
        "knots and splices . . 27\n\n\n" + BODY
    )
    doc = set_aside(_doc(text))
    assert doc.text.startswith("A short preface explains why this guide was written.\n\nThe")
    assert "splices" not in doc.text


def test_licence_blocks_at_either_edge_are_set_aside() -> None:
    head = (
        "# Tide tables\n\n"
        "Copyright (c) 2021 Harbour Office. Licensed under the Apache License, Version 2.0.\n\n"
        'Distributed on an "AS IS" basis; see the License for permissions.\n\n'
    )
    tail = (
        "\n\n## License\n\nMIT License\n\nCopyright (c) 2020 Ada Lane\n\n"
        "Permission is hereby granted, free of charge, to any person obtaining a copy.\n\n"
        'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.\n'
    )
    doc = set_aside(_doc(head + BODY + tail))
    assert doc.text.startswith("# Tide tables\n\nThe lighthouse keeper")
    assert doc.text.endswith("kept the boat in repair.")
    assert [p["kind"] for p in doc.metadata["boilerplate"]] == ["licence", "licence"]
    assert "Permission is hereby granted" in doc.metadata["licence"]


def test_back_matter_after_the_end_of_a_book_is_set_aside() -> None:
    ads = "\n\n                THE END\n\n*   *   *\n\nMORE TITLES\n\nTHE SAFETY PIN\n\nGREEN INK\n"
    found = find_boilerplate(BOOK_BODY * 4 + ads)
    assert found is not None
    assert [p.kind for p in found.parts] == ["back_matter"]
    assert found.text.endswith("THE END") and "GREEN INK" not in found.text


# --- no false positives -------------------------------------------------------------------


def test_ordinary_texts_are_untouched() -> None:
    texts = [
        "Contents of the box were sorted by the harbour master before noon.\n\n" + PROSE,
        "Contents\n\n- Intro\n- Usage\n\n" + BODY,  # a two-line list
        "Contents\n\nThe box held ropes.\nIt held a lamp.\nIt held a flare.\n\n" + BODY,
        "All Rights Reserved is a 2003 film directed by Ada Lane. It was released in 2004.",
        "Copyright law was reformed in 1911, and the reform is licensed under debate.\n\n" + PROSE,
        PROSE,
        "THE END\n\nA story that starts with its ending and is short.",
    ]
    for text in texts:
        assert find_boilerplate(text) is None, text[:40]
        assert set_aside(_doc(text)).text == text


def test_a_text_that_is_mostly_a_list_stays_whole() -> None:
    text = "Contents\n\n" + "".join(f"Chapter {i}. Part {i}\n" for i in range(1, 30)) + "\nEnd."
    assert find_boilerplate(text) is None


def test_memories_and_marker_only_texts_are_untouched() -> None:
    text = "*** START OF THE PROJECT GUTENBERG EBOOK 1 ***\n\n" + PROSE
    assert set_aside(_doc(text, DocKind.MEMORY)).text == text
    marker = "PROJECT GUTENBERG EBOOK 1 ***"
    empty = f"*** START OF THE {marker}\n\n*** END OF THE {marker}"
    assert find_boilerplate(empty) is None


# --- through the pipeline -----------------------------------------------------------------


class _NoEntities:
    name = "none"

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        self.seen = document.text
        return ExtractionResult()


async def test_pipeline_stores_the_kept_text_and_the_metadata(tmp_path: Path) -> None:
    text = HEADER + TITLE_PAGE + CONTENTS + BOOK_BODY + FOOTER
    extractor = _NoEntities()
    async with SqliteStore(tmp_path / "g.db") as store:
        pipeline = IngestPipeline(store, extractor, HashingEmbedder(), Settings())
        report = await pipeline.ingest([_doc(text)])
        assert report.ok and report.ingested == 1
        stored = set_aside(_doc(text)).text
        assert extractor.seen == stored
        bundle = await store.read_bundle(document_id("default", "s"))
        assert bundle is not None
        document, chunks = bundle.document, bundle.chunks
        assert document.char_count == len(stored)
        assert document.content_hash == content_hash(stored)
        assert document.metadata["gutenberg"]["ebook"] == "2718"
        assert document.metadata["boilerplate"][0]["kind"] == "gutenberg_header"
        assert all(c.text == stored[c.start : c.end] for c in chunks)
        assert not any("Gutenberg" in c.text or "CONTENTS" in c.text for c in chunks)
        # the same file again is unchanged: skipped, not replaced
        again = await pipeline.ingest([_doc(text)])
        assert again.skipped == 1


def test_windows_line_ends_are_read_alike() -> None:
    text = HEADER + TITLE_PAGE + CONTENTS + BOOK_BODY * 4 + "\n\nTHE END\n\nGREEN INK\n" + FOOTER
    found = find_boilerplate(text.replace("\n", "\r\n"))
    assert found is not None
    assert [p.kind for p in found.parts] == [
        "gutenberg_header",
        "title_page",
        "contents",
        "back_matter",
        "gutenberg_footer",
    ]
    assert found.gutenberg["author"] == "Ada Lane"

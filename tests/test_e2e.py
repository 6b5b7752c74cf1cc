"""End to end on the bundled Dracula excerpt with the default offline engine
(spaCy extraction, MiniLM embeddings, SQLite store)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import loregraph
from loregraph.models import CO_OCCURS


@pytest.fixture(scope="module")
def graph(
    tmp_path_factory: pytest.TempPathFactory, excerpt_path: Path
) -> Iterator[tuple[loregraph.Graph, loregraph.IngestReport]]:
    db = tmp_path_factory.mktemp("e2e") / "dracula.db"
    g = loregraph.open(db)
    report = g.ingest(excerpt_path)
    yield g, report
    g.close()


def test_ingest_builds_a_graph(graph: tuple[loregraph.Graph, loregraph.IngestReport]) -> None:
    g, report = graph
    assert report.ok and report.ingested == 1
    stats = g.stats()
    assert stats.documents == 1
    assert stats.chunks >= 50
    assert stats.entities >= 20
    # the excerpt's typed relations all come through the diarist's "I", each stated once:
    # unsupported, so not kept (tests/ingest/test_relation_support.py); co-occurrence stays
    assert stats.relations >= 15
    assert CO_OCCURS in stats.relation_types


def test_variant_names_are_one_entity(
    graph: tuple[loregraph.Graph, loregraph.IngestReport],
) -> None:
    g, _ = graph
    dracula = g.explore.find_entity("Dracula")
    assert g.explore.find_entity("Count Dracula").id == dracula.id
    harker = g.explore.find_entity("Jonathan Harker")
    assert g.explore.find_entity("Harker").id == harker.id
    assert harker.type == "Person"


def test_entity_view_has_relations_with_evidence(
    graph: tuple[loregraph.Graph, loregraph.IngestReport], excerpt_path: Path
) -> None:
    g, _ = graph
    text = " ".join(excerpt_path.read_text(encoding="utf-8").split())
    view = g.explore.entity("Jonathan Harker")
    assert view.relations, "expected relations for Harker"
    for rel in view.relations:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", rel.type)
        assert rel.evidence
        sentence = " ".join(rel.evidence[0].sentence.split())
        assert sentence and sentence in text


def test_entity_view_has_typed_relations_with_evidence(tmp_path: Path) -> None:
    text = (
        "Quincey Morris met Arthur Holmwood in London. Arthur Holmwood married Lucy "
        "Westenra in Hampstead. Later Quincey Morris wrote to Arthur Holmwood from Texas."
    )
    doc = tmp_path / "letters.txt"
    doc.write_text(text, encoding="utf-8")
    with loregraph.open(tmp_path / "t.db") as g:
        g.ingest(doc)
        view = g.explore.entity("Arthur Holmwood")
        typed = {(r.type, r.evidence[0].sentence) for r in view.relations if r.type != CO_OCCURS}
    assert ("MEETS", "Quincey Morris met Arthur Holmwood in London.") in typed
    assert ("MARRIES", "Arthur Holmwood married Lucy Westenra in Hampstead.") in typed


def test_reingesting_unchanged_does_no_work(
    graph: tuple[loregraph.Graph, loregraph.IngestReport], excerpt_path: Path
) -> None:
    g, _ = graph
    before = g.stats()
    again = g.ingest(excerpt_path)
    assert again.skipped == 1 and again.ingested == 0 and again.chunks == 0
    assert g.stats() == before


def test_ask_answers_with_verbatim_citations(
    graph: tuple[loregraph.Graph, loregraph.IngestReport], excerpt_path: Path
) -> None:
    g, _ = graph
    source = excerpt_path.read_text(encoding="utf-8")
    answer = g.ask("Where did Jonathan Harker stay in Bistritz?")
    assert answer.llm is False
    assert "no llm" in answer.text.lower()
    assert answer.citations
    for citation in answer.citations:
        assert citation.document_title
        quoted = source[citation.start : citation.end]
        assert " ".join(citation.quote.split()) in " ".join(quoted.split())


def test_context_formats(graph: tuple[loregraph.Graph, loregraph.IngestReport]) -> None:
    g, _ = graph
    question = "What does the Count say to Harker at the castle?"
    markdown = g.context(question)
    assert markdown.startswith("## Knowledge Graph Context")
    assert "### Relevant Entities" in markdown
    assert "<definitions>" in g.context(question, format="xml")
    assert g.context(question, format="mermaid").lstrip().startswith("graph")


def test_retrieve_ranks_documents(
    graph: tuple[loregraph.Graph, loregraph.IngestReport],
) -> None:
    g, _ = graph
    result = g.retrieve("Jonathan Harker travels to the castle")
    assert result.documents and result.documents[0].score > 0
    assert result.passages


def test_delete_leaves_an_empty_store(tmp_path: Path, excerpt_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_text(excerpt_path.read_text(encoding="utf-8")[:12000], encoding="utf-8")
    with loregraph.open(tmp_path / "x.db") as g:
        g.ingest(small)
        assert g.stats().entities > 0
        g.delete(str(small))
        stats = g.stats()
        assert (stats.documents, stats.chunks, stats.entities, stats.relations, stats.mentions) == (
            0,
            0,
            0,
            0,
            0,
        )


def test_records_are_documents_and_search_ranks_them(tmp_path: Path, records_file: Path) -> None:
    with loregraph.open(tmp_path / "r.db") as g:
        report = g.ingest(records_file)
        assert report.ingested == 5
        hits = g.search("Who was the mother of Lothair II?", kind="documents", limit=5)
        titles = [h.title for h in hits]
        assert "Lothair II" in titles[:3]
        assert "Ermengarde of Tours" in titles[:5]


def test_scopes_do_not_leak(tmp_path: Path, records_file: Path) -> None:
    with loregraph.open(tmp_path / "s.db") as g:
        g.aio.settings = g.aio.settings.replace(scope="tenant-a")
        g.ingest(records_file)
        with pytest.raises(loregraph.EmptyStoreError):
            g.ask("Who is Nicki Minaj?", scope="tenant-b")
        assert g.stats(scope="tenant-b").entities == 0
        assert g.stats(scope="tenant-a").entities > 0


def test_changed_document_is_replaced(tmp_path: Path) -> None:
    doc = tmp_path / "note.md"
    doc.write_text(
        "# Note\n\nAlice Smith works for Acme Corporation in Berlin.\n", encoding="utf-8"
    )
    with loregraph.open(tmp_path / "c.db") as g:
        g.ingest(doc)
        doc.write_text(
            "# Note\n\nAlice Smith moved to Paris and joined Globex.\n", encoding="utf-8"
        )
        report = g.ingest(doc)
        assert report.replaced == 1
        assert g.stats().documents == 1
        names = {e.name for e in g.explore.entities(limit=None)}
        assert "Globex" in names or "Paris" in names
        assert "Acme Corporation" not in names

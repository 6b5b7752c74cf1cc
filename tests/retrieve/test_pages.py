"""Entity pages and bridges: multi-hop questions over short titled documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import loregraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import Chunk, Document, Entity
from loregraph.retrieve.graph.pages import (
    bridge_ranking,
    named_entities,
    page_documents,
    relation_words,
    split_sentences,
    title_keys,
    words_match,
)
from loregraph.retrieve.results.result import QueryAnalysis

# An invented encyclopedia: films, the people who made them, and a long novel whose title
# is also a character's name (a long document is never that character's page).
RECORDS = [
    {
        "title": "The Glass Orchard",
        "text": "The Glass Orchard is a 1962 drama film directed by Petra Lindqvist. "
        "It stars Oskar Brandt and Mira Holm. The music was composed by Aurel Vance.",
    },
    {
        "title": "Petra Lindqvist",
        "text": "Petra Lindqvist (1921-1990) was a Swedish film director and screenwriter. "
        "She was born in Malmo.",
    },
    {
        "title": "Oskar Brandt",
        "text": "Oskar Brandt (1930-2001) was a Danish actor known for stage roles.",
    },
    {
        "title": "Aurel Vance",
        "text": "Aurel Vance was a Romanian composer of film scores and chamber music.",
    },
    {
        "title": "Mira Holm",
        "text": "Mira Holm is a Norwegian actress and singer.",
    },
    {
        "title": "Harbour Lights (1958 film)",
        "text": "Harbour Lights is a 1958 crime film directed by Tomas Ekberg, starring Mira Holm.",
    },
    {
        "title": "Tomas Ekberg",
        "text": "Tomas Ekberg (1915-1979) was a Finnish film director.",
    },
]


def _entity(entity_id: str, name: str, aliases: list[str] | None = None) -> Entity:
    return Entity(id=entity_id, name=name, type="PERSON", aliases=aliases or [])


def test_sentences_do_not_end_at_initials() -> None:
    text = "The film was directed by Albert S. Rogell. Dr. Smith wrote it. It ran 90 min."
    assert split_sentences(text) == [
        "The film was directed by Albert S. Rogell.",
        "Dr. Smith wrote it.",
        "It ran 90 min.",
    ]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("director", "directed", True),
        ("performer", "performed", True),
        ("born", "born", True),
        ("mother", "mothers", True),
        ("film", "fame", False),
        ("director", "dinner", False),
    ],
)
def test_words_match_by_shared_stem(a: str, b: str, same: bool) -> None:
    assert words_match(a, b) is same


def test_title_keys_include_the_name_without_its_qualifier() -> None:
    assert title_keys("Harbour Lights (1958 film)") == [
        "harbour lights 1958 film",
        "harbour lights",
    ]
    assert title_keys("Mira Holm") == ["mira holm"]


def test_only_short_documents_titled_by_an_entity_are_pages() -> None:
    docs = [
        Document(id="d1", title="Mira Holm", content_hash="h1"),
        Document(id="d2", title="Harbour Lights (1958 film)", content_hash="h2"),
        Document(id="d3", title="Dracula", content_hash="h3"),
    ]
    chunk_ids = ["c1", "c2", *[f"n{i}" for i in range(10)]]
    chunk_docs = ["d1", "d2", *["d3"] * 10]
    found = {
        "mira holm": _entity("e1", "Mira Holm"),
        "harbour lights": _entity("e2", "Harbour Lights"),
        "dracula": _entity("e3", "Dracula"),
    }
    pages = page_documents(docs, chunk_ids, chunk_docs, found)
    assert pages == {"e1": ["c1"], "e2": ["c2"]}


def test_named_entities_skip_lower_case_phrases() -> None:
    analysis = QueryAnalysis(
        question="What is the place of birth of the director of The Glass Orchard?",
        matched={"place of birth": "e-generic", "The Glass Orchard": "e-film"},
        keywords=["place", "birth", "director", "Glass", "Orchard"],
    )
    assert named_entities(analysis) == ["e-film"]
    assert relation_words(analysis) == ["place", "birth", "director"]


def test_bridge_prefers_the_entity_whose_sentence_matches_the_question() -> None:
    anchor = Chunk(
        id="c-film",
        document_id="d-film",
        seq=0,
        start=0,
        end=len(RECORDS[0]["text"]),
        text=RECORDS[0]["text"],
    )
    people = [
        _entity("e-oskar", "Oskar Brandt"),
        _entity("e-mira", "Mira Holm"),
        _entity("e-aurel", "Aurel Vance"),
        _entity("e-petra", "Petra Lindqvist"),
    ]
    pages = {
        "e-oskar": ["c-oskar"],
        "e-mira": ["c-mira"],
        "e-aurel": ["c-aurel"],
        "e-petra": ["c-petra"],
    }
    mentioned = {"c-film": people}
    by_director = bridge_ranking([anchor], mentioned, pages, ["nationality", "director"], set())
    by_composer = bridge_ranking([anchor], mentioned, pages, ["country", "composer"], set())
    assert by_director[0] == "c-petra"
    assert by_composer[0] == "c-aurel"
    # without a matching word, entities keep the order in which the page mentions them
    assert bridge_ranking([anchor], mentioned, pages, [], set())[0] == "c-petra"
    assert "c-petra" not in bridge_ranking([anchor], mentioned, pages, [], {"e-petra"})


@pytest.fixture(scope="module")
def encyclopedia(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pages")
    corpus = root / "records.json"
    corpus.write_text(json.dumps(RECORDS), encoding="utf-8")
    db = root / "pages.db"
    with loregraph.open(db, embedder=HashingEmbedder(dim=256)) as graph:
        report = graph.ingest(str(corpus))
        assert not report.failed
    return db


@pytest.mark.parametrize("preset", ["hybrid", "local", "ppr", "global"])
def test_second_hop_page_follows_the_named_page(encyclopedia: Path, preset: str) -> None:
    with loregraph.open(encyclopedia, embedder=HashingEmbedder(dim=256)) as graph:
        result = graph.retrieve(
            "What nationality is the director of film The Glass Orchard?", preset=preset
        )
    titles = [d.title for d in result.documents]
    assert titles[:2] == ["The Glass Orchard", "Petra Lindqvist"]
    assert "pages" in result.debug["passages"]["ran"]
    assert "bridges" in result.debug["passages"]["ran"]


def test_comparison_questions_rank_both_named_pages_first(encyclopedia: Path) -> None:
    with loregraph.open(encyclopedia, embedder=HashingEmbedder(dim=256)) as graph:
        result = graph.retrieve("Which film came out first, Harbour Lights or The Glass Orchard?")
    assert {d.title for d in result.documents[:2]} == {
        "Harbour Lights (1958 film)",
        "The Glass Orchard",
    }


def test_passages_preset_uses_no_pages(encyclopedia: Path) -> None:
    with loregraph.open(encyclopedia, embedder=HashingEmbedder(dim=256)) as graph:
        result = graph.retrieve(
            "What nationality is the director of film The Glass Orchard?", preset="passages"
        )
    assert "pages" not in result.debug["passages"]["ran"]

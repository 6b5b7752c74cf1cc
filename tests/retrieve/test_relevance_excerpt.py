"""The relevance decision with the default engine (spaCy extraction, MiniLM embeddings) on
the bundled Dracula excerpt: questions about it are answered, others are not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import loregraph
from loregraph.answer.extractive import NOTHING_FOUND

ABOUT_THE_EXCERPT = (
    "Where did Jonathan Harker stop for the night in Klausenburgh?",
    "What did Jonathan have for supper at the hotel?",
    "What did the landlady give Jonathan before he left Bistritz?",
)
NOT_IN_IT = (
    "zzzzqqq xyzzy",
    "Who directed the film Polish-Russian War?",
    "Which country is the father of Al-Mu'tasim from?",
    "What is the boiling point of liquid nitrogen?",
)


@pytest.fixture(scope="module")
def graph(
    tmp_path_factory: pytest.TempPathFactory, excerpt_path: Path
) -> Iterator[loregraph.Graph]:
    g = loregraph.open(tmp_path_factory.mktemp("relevance") / "dracula.db")
    assert g.ingest(excerpt_path).ok
    yield g
    g.close()


@pytest.mark.parametrize("question", ABOUT_THE_EXCERPT)
def test_questions_about_the_text_are_answered(graph: loregraph.Graph, question: str) -> None:
    result = graph.retrieve(question)
    assert result.relevant, result.debug["relevance"]
    answer = graph.ask(question)
    assert answer.found and answer.citations
    assert graph.search(question)


@pytest.mark.parametrize("question", NOT_IN_IT)
def test_other_questions_find_nothing(graph: loregraph.Graph, question: str) -> None:
    result = graph.retrieve(question)
    assert result.passages  # the rankings alone would have offered something
    assert not result.relevant, result.debug["relevance"]
    found = graph.search(question)
    assert not found.relevant and not any(hit.relevant for hit in found)
    answer = graph.ask(question)
    assert answer.text == NOTHING_FOUND and not answer.found

"""The persona benchmark's data (complete and consistent) and its bookkeeping, run end to
end on a small store."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from bench.personas import (
    CORPUS_FILE,
    QUESTIONS_FILE,
    ask_all,
    asker,
    build,
    load,
    render_personas,
    sentences,
    stories_in,
    summarise,
)

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.sqlite import SqliteStore

INTENTS = {"relational", "temporal", "spatial", "entity_focused", "general", "cross_legacy"}
PERSONAS = {"biographer", "friend", "colleague", "family"}


def test_the_corpus_and_the_questions_hold_together() -> None:
    corpus, questions = load(CORPUS_FILE), load(QUESTIONS_FILE)
    documents = {d["id"]: d for d in corpus["documents"]}
    assert 25 <= len(documents) <= 40 and len(documents) == len(corpus["documents"])
    assert set(corpus["scopes"]) == {d["scope"] for d in documents.values()}
    assert {d["visibility"] for d in documents.values()} == {"public", "private", "personal"}
    assert all(d["owner"] for d in documents.values())
    for link in corpus["links"]:
        assert {link["scope"], link["linked"]} <= set(corpus["scopes"])
        assert link["share"] in ("all", "selective")
        assert all(documents[d]["scope"] == link["linked"] for d in link["documents"])
    per_intent = Counter(q["intent"] for q in questions["questions"])
    assert set(per_intent) == INTENTS and min(per_intent.values()) >= 6
    ids = [q["id"] for q in questions["questions"]]
    assert len(ids) == len(set(ids))
    for question in questions["questions"]:
        assert set(question["personas"]) <= PERSONAS and question["personas"]
        assert question["scope"] in corpus["scopes"]
        for story in question["expected"] + question.get("absent", []):
            assert story in documents, (question["id"], story)
    # every story can be recognised by a sentence no other story has
    said = {d: set(sentences(doc["text"])) for d, doc in documents.items()}
    for story, own in said.items():
        others = set().union(*(s for d, s in said.items() if d != story))
        assert own - others, story


def test_stories_are_recognised_by_their_sentences() -> None:
    corpus = {"a": sentences("Uncle Jim built a lake house in 1965. He never married.")}
    assert corpus["a"] == ["uncle jim built a lake house in 1965."]
    assert stories_in("[1] Lake (0-40)\nUncle Jim built a lake\nhouse in 1965.", corpus) == {"a"}
    assert stories_in("He never married.", corpus) == set()


def test_summaries_and_the_table() -> None:
    rows = [
        {"id": "q1", "intent": "spatial", "persona": "friend", "expected": 2, "found": 1,
         "complete": False, "leaked": []},
        {"id": "q2", "intent": "general", "persona": "friend", "expected": 1, "found": 1,
         "complete": True, "leaked": ["m12"]},
    ]  # fmt: skip
    figures = summarise(rows)
    assert figures["all"] == {"asked": 2, "complete": 50.0, "stories": 66.7}
    assert figures["intents"]["spatial"]["complete"] == 0.0
    assert figures["leaks"] == ["q2/friend: m12"]
    text = render_personas({"figures": {"graph": figures, "no_graph": figures}})
    assert "| spatial | 1 | 0.0 | 0.0 | 50.0 | 50.0 |" in text and "absent: 2" in text


def test_the_corpus_is_ingested_and_asked(tmp_path: Path) -> None:
    corpus, questions = load(CORPUS_FILE), load(QUESTIONS_FILE)["questions"]
    db = tmp_path / "personas.db"
    embedder = HashingEmbedder(dim=64)

    async def go() -> list[dict[str, object]]:
        await build(db, corpus, embedder=embedder)
        graph = AsyncGraph(SqliteStore(db), embedder=embedder)
        try:
            counts = {s: (await graph.stats(scope=s)).documents for s in corpus["scopes"]}
            assert counts == Counter(d["scope"] for d in corpus["documents"])
            said = {d["id"]: sentences(d["text"]) for d in corpus["documents"]}
            return await ask_all(questions[:6], said, asker(graph))
        finally:
            await graph.close()

    rows = asyncio.run(go())
    assert rows and sum(r["found"] for r in rows) > 0

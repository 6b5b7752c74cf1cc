"""Graph relevance and combined scores, on a graph built by hand.

Ann (the subject) is married to Ben and works with Cal; Ben is a friend of Dee (two hops
from Ann); Ann lives at Pine Lake. Each fact has its own passage."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loregraph import AsyncGraph, Settings
from loregraph.access import ScopeLink
from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import Vector
from loregraph.retrieve.graph.graphindex import GraphCache
from loregraph.retrieve.personas.lens import combined_score, recent_span
from loregraph.retrieve.personas.library import Persona, PersonaLibrary, TemporalRange
from loregraph.retrieve.personas.traversal import Traversal, graph_relevance, hop_factor, traverse
from loregraph.retrieve.results.intents import IntentRoute
from loregraph.retrieve.results.result import RetrievalResult
from loregraph.store.sqlite import SqliteStore
from store.builders import Book

SCOPE = "avery"
LINKED = "cole"
EMBED = HashingEmbedder(dim=32)


def _vector(text: str) -> Vector:
    return EMBED.embed([text])[0]


def _book(doc_id: str, scope: str = SCOPE) -> Book:
    return Book(doc_id, scope=scope, title=doc_id)


async def build(store: SqliteStore) -> dict[str, str]:
    """Write the graph; the chunk id of each passage by name."""
    book = _book("avery")
    texts = {
        "wedding": "Ann Avery married Ben Avery at the chapel.",
        "work": "Cal Cole worked with Ann Avery at the mill in 1972.",
        "friends": "Ben Avery and Dee Dunn were friends since school.",
        "dee": "Dee Dunn kept bees behind her cottage.",
        "lake": "Ann Avery lived at Pine Lake every summer of 1985.",
        "ann": "Ann Avery wrote letters every Sunday.",
    }
    chunks = {name: book.chunk(text, _vector(text)) for name, text in texts.items()}
    ann = book.entity(
        "Ann Avery", "Person", mentions=[(chunks[n], 3) for n in ("wedding", "work", "lake", "ann")]
    )
    ben = book.entity(
        "Ben Avery", "Person", mentions=[(chunks["wedding"], 1), (chunks["friends"], 1)]
    )
    cal = book.entity("Cal Cole", "Person", mentions=[(chunks["work"], 1)])
    dee = book.entity("Dee Dunn", "Person", mentions=[(chunks["friends"], 1), (chunks["dee"], 2)])
    lake = book.entity("Pine Lake", "Location", mentions=[(chunks["lake"], 1)])
    book.relate(ann, "MARRIED_TO", ben, chunk=chunks["wedding"])
    book.relate(
        cal,
        "WORKS_WITH",
        ann,
        chunk=chunks["work"],
        valid_at=datetime(1970, 1, 1, tzinfo=UTC),
        invalid_at=datetime(1975, 1, 1, tzinfo=UTC),
    )
    book.relate(ben, "FRIENDS_WITH", dee, chunk=chunks["friends"])
    book.relate(ann, "LIVES_IN", lake, chunk=chunks["lake"])
    await store.write_document(book.bundle())
    other = _book("cole", LINKED)
    text = "Cal Cole remembers Ann Avery laughing at the mill."
    other.chunk(text, _vector(text))
    await store.write_document(other.bundle())
    await store.add_scope_link(ScopeLink(SCOPE, LINKED, "all"))  # the family reads cole's
    ids = {name: chunk.id for name, chunk in chunks.items()}
    ids["linked"] = other.chunks[0].id
    return ids


Built = tuple[SqliteStore, dict[str, str]]


@pytest.fixture()
async def built(tmp_path: Path) -> AsyncIterator[tuple[SqliteStore, dict[str, str]]]:
    store = SqliteStore(tmp_path / "built.db")
    await store.open()
    ids = await build(store)
    yield store, ids
    await store.close()


def persona(name: str, **changes: object) -> Persona:
    return replace(PersonaLibrary().get(name), **changes)


def test_the_formulas() -> None:
    assert (hop_factor(0), hop_factor(1), hop_factor(2)) == (1.0, 1.0, 0.6)
    assert graph_relevance(1, 0.8, False) == pytest.approx(0.8)
    assert graph_relevance(1, 0.8, True) == pytest.approx(1.0)
    assert graph_relevance(2, 0.5, True) == pytest.approx(0.5)
    assert combined_score(0.4, 0.9) == pytest.approx(1.05)
    assert combined_score(0.7, 0.2) == pytest.approx(0.85)
    assert combined_score(None, 0.6) == 0.6 and combined_score(0.3, None) == 0.3


async def _traverse(store: SqliteStore, route: IntentRoute, who: Persona) -> Traversal:
    index, _ = await GraphCache().get(store, SCOPE)
    subject = (await store.list_entities(SCOPE, entity_type="Person", limit=1))[0]
    return await traverse(store, SCOPE, index, route, who, subject)


async def test_relational_scores_by_hop_weight_and_question_entity(built: Built) -> None:
    store, ids = built
    ann = (await store.find_entities_by_key(SCOPE, ["ann avery"]))["ann avery"]
    route = IntentRoute("relational", {"people": ["Ann Avery"]}, {"Ann Avery": ann.id})
    family = await _traverse(store, route, persona("family"))
    scores = {name: family.hits[c].score for name, c in ids.items() if c in family.hits}
    assert scores["wedding"] == pytest.approx(1.0 * 1.0 + 0.2)  # Ben: 1 hop, family
    assert scores["work"] == pytest.approx(1.0 * 0.2 + 0.2)  # Cal: 1 hop, colleague
    assert scores["dee"] == pytest.approx(0.6 * 0.4 + 0.2)  # Dee: 2 hops, weakest: friend
    assert scores["friends"] == pytest.approx(1.2)  # mentions Ben too: the better hit
    assert "lake" not in scores  # a place is no relationship
    assert "ann" not in scores  # the start entity's own passages are not relational finds
    colleague = await _traverse(store, route, persona("colleague"))
    found = {name: colleague.hits[c].score for name, c in ids.items() if c in colleague.hits}
    assert found["work"] == pytest.approx(1.2) and found["wedding"] == pytest.approx(0.4)
    assert "dee" not in found  # one hop only
    how = colleague.hits[ids["work"]].how
    assert how == "relational traversal (colleague: WORKS_WITH, 1 hop)"


async def test_general_walks_one_hop_from_the_subject_without_bonus(built: Built) -> None:
    store, ids = built
    walked = await _traverse(store, IntentRoute("general"), persona("family"))
    scores = {name: walked.hits[c].score for name, c in ids.items() if c in walked.hits}
    assert scores["wedding"] == pytest.approx(1.0)
    assert scores["lake"] == pytest.approx(0.4)  # a place: the family persona's other weight
    assert "dee" not in scores


async def test_max_graph_results_bounds_each_hop(built: Built) -> None:
    store, _ids = built
    walked = await _traverse(store, IntentRoute("general"), persona("family", max_graph_results=1))
    assert [r.entity.name for r in walked.reached.values() if r.hop == 1] == ["Ben Avery"]


async def test_spatial_and_entity_focused_read_the_place_itself(built: Built) -> None:
    store, ids = built
    lake = (await store.find_entities_by_key(SCOPE, ["pine lake"]))["pine lake"]
    route = IntentRoute("spatial", {"places": ["Pine Lake"]}, {"Pine Lake": lake.id})
    walked = await _traverse(store, route, persona("family"))
    assert walked.hits[ids["lake"]].score == pytest.approx(1.2)  # the place's own story
    assert walked.hits[ids["lake"]].how == "spatial traversal (Pine Lake)"


async def _asked(
    path: Path, who: Persona | str, question: str, linked: list[str]
) -> RetrievalResult:
    graph = AsyncGraph(SqliteStore(path), embedder=EMBED, settings=Settings(scope=SCOPE))
    try:
        return await graph.retrieve(question, persona=who, linked_scopes=linked)
    finally:
        await graph.close()


async def test_combined_scores_and_linked_scopes(built: Built, tmp_path: Path) -> None:
    _store, ids = built
    path = tmp_path / "built.db"
    result = await _asked(path, "family", "Who was Ann Avery married to?", [LINKED])
    report = result.persona
    assert report is not None and report.route.intent == "relational"
    by_id = {p.chunk_id: p for p in [*result.passages, *result.reserve]}
    both = [
        s
        for s in report.sources.values()
        if s.embedding_score is not None and s.graph_score is not None
    ]
    assert both
    for chunk_id, passage in by_id.items():
        source = report.sources[chunk_id]
        expected = combined_score(source.embedding_score, source.graph_score)
        assert passage.score == pytest.approx(expected)
    scores = [p.score for p in [*result.passages, *result.reserve]]
    assert scores == sorted(scores, reverse=True)
    assert ids["linked"] not in report.sources  # only a cross_legacy question reads links
    others = "What do others remember about Ann Avery?"
    shared = await _asked(path, "family", others, [LINKED])
    assert shared.persona is not None and shared.persona.route.intent == "cross_legacy"
    linked = shared.persona.sources[ids["linked"]]
    assert linked.category == "graph" and linked.shared_via == LINKED
    assert linked.graph_score is not None and linked.graph_score > 0.2  # names Ann: + 0.2
    assert "shared via: cole" in linked.marker()
    assert shared.persona.linked_scopes == [LINKED]
    closed = await _asked(path, "colleague", others, [LINKED])
    assert closed.persona is not None and ids["linked"] not in closed.persona.sources
    assert closed.persona.linked_scopes == []
    await _store.remove_scope_link(SCOPE, LINKED)
    unlinked = await _asked(path, "family", others, [LINKED])  # named, but no link shares it
    assert unlinked.persona is not None and ids["linked"] not in unlinked.persona.sources


async def test_the_time_range_keeps_graph_passages_of_its_years(
    built: Built, tmp_path: Path
) -> None:
    _store, ids = built
    eighties = persona("biographer", temporal_range=TemporalRange("years", 1980, 1990))
    result = await _asked(tmp_path / "built.db", eighties, "Tell me about Ann Avery's people", [])
    assert result.persona is not None
    sources = result.persona.sources
    work = sources.get(ids["work"])  # names 1972
    assert work is None or work.graph_score is None
    assert sources[ids["wedding"]].graph_score is not None  # undated: kept
    everything = await _asked(
        tmp_path / "built.db", "biographer", "Tell me about Ann Avery's people", []
    )
    assert everything.persona is not None
    assert everything.persona.sources[ids["work"]].graph_score is not None


async def test_with_the_graph_layer_off_no_graph_is_walked(built: Built, tmp_path: Path) -> None:
    _store, ids = built
    settings = Settings(scope=SCOPE, graph_augmentation=False)
    graph = AsyncGraph(SqliteStore(tmp_path / "built.db"), embedder=EMBED, settings=settings)
    try:
        result = await graph.retrieve(
            "What do others remember about Ann Avery?", persona="family", linked_scopes=[LINKED]
        )
    finally:
        await graph.close()
    assert result.persona is not None and result.persona.relationship_map == []
    own = [s for s in result.persona.sources.values() if not s.shared_via]
    assert own and all(s.graph_score is None for s in own)
    assert result.persona.sources[ids["linked"]].shared_via == LINKED  # still read by meaning
    assert result.debug["persona"]["graph"] is False


async def test_recent_keeps_the_last_ten_years_of_the_dated_passages(
    built: Built, tmp_path: Path
) -> None:
    _store, ids = built
    result = await _asked(tmp_path / "built.db", "friend", "Tell me about Ann Avery", [])
    assert result.persona is not None and result.persona.route.intent == "general"
    sources = result.persona.sources
    assert sources[ids["lake"]].graph_score is not None  # 1985: the newest year
    assert ids["work"] not in sources or sources[ids["work"]].graph_score is None  # 1972
    assert result.debug["persona"]["span"] == "recent"
    assert recent_span([(1972, 1972), None, (1980, 1989)]) == (1979, 1989)
    assert recent_span([None]) is None


async def test_career_keeps_the_years_of_the_subjects_work(built: Built, tmp_path: Path) -> None:
    _store, ids = built
    result = await _asked(tmp_path / "built.db", "colleague", "Tell me about Ann Avery", [])
    assert result.persona is not None
    assert result.debug["persona"]["span"] == [1970, 1975]
    sources = result.persona.sources
    assert sources[ids["work"]].graph_score is not None  # 1972
    assert ids["lake"] not in sources or sources[ids["lake"]].graph_score is None  # 1985


async def test_relation_words_choose_the_first_hop(built: Built) -> None:
    store, ids = built
    ann = (await store.find_entities_by_key(SCOPE, ["ann avery"]))["ann avery"]
    route = IntentRoute(
        "relational", {"people": ["Ann Avery"]}, {"Ann Avery": ann.id}, relation_words=["works"]
    )
    walked = await _traverse(store, route, persona("biographer"))
    assert {r.entity.name for r in walked.reached.values() if r.hop == 1} == {"Cal Cole"}
    assert ids["work"] in walked.hits and ids["wedding"] not in walked.hits
    route.relation_words = ["cousin"]  # no relation of Ann's says it: every one is followed
    walked = await _traverse(store, route, persona("biographer"))
    assert {"Ben Avery", "Cal Cole"} <= {r.entity.name for r in walked.reached.values()}


async def test_two_people_named_read_what_joins_them(built: Built) -> None:
    store, ids = built
    found = await store.find_entities_by_key(SCOPE, ["ann avery", "ben avery"])
    people = {"Ann Avery": found["ann avery"].id, "Ben Avery": found["ben avery"].id}
    route = IntentRoute("relational", {"people": list(people)}, people)
    walked = await _traverse(store, route, persona("family"))
    assert set(walked.hits) == {ids["wedding"]}  # not Ben's friends, not Ann's work
    assert walked.hits[ids["wedding"]].score == pytest.approx(1.2)

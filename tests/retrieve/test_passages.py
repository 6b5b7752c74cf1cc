"""Passage rankings by entity mentions and by relation evidence, and document ranking."""

from __future__ import annotations

from loregraph.models import Chunk, Evidence, Relation
from loregraph.retrieve.results.result import Passage, RankedRelation
from loregraph.retrieve.search.passages import (
    evidence_ranking,
    fuse_passages,
    mention_ranking,
    mention_selectivity,
    rank_documents,
    stitched_text,
)


def test_chunk_naming_several_entities_ranks_first() -> None:
    rows = [("a", "c1", 1), ("b", "c1", 1), ("a", "c2", 3), ("b", "c3", 1)]
    assert mention_ranking(rows, {"a": 1.0, "b": 1.0})[0] == "c1"


def test_entity_mentioned_everywhere_counts_less() -> None:
    everywhere = [("hub", f"c{i}", 1) for i in range(20)]
    rows = [*everywhere, ("rare", "r1", 1)]
    ranking = mention_ranking(rows, {"hub": 1.0, "rare": 1.0})
    assert ranking[0] == "r1"


def test_unscored_entities_are_ignored() -> None:
    assert mention_ranking([("x", "c1", 5)], {"y": 1.0}) == []


def test_evidence_of_a_specific_relation_outranks_a_diffuse_one() -> None:
    specific = Relation("r1", "a", "b", "MARRIED_TO", evidence=[Evidence("c1", "a married b")])
    diffuse = Relation(
        "r2", "a", "c", "CO_OCCURS_WITH", evidence=[Evidence(f"d{i}") for i in range(30)]
    )
    ranking = evidence_ranking(
        [RankedRelation(specific, "A", "B", 1.0), RankedRelation(diffuse, "A", "C", 1.0)]
    )
    assert ranking[0] == "c1"
    assert set(ranking) == {"c1", *(f"d{i}" for i in range(30))}


def passage(chunk: str, doc: str) -> Passage:
    return Passage(chunk, doc, doc.upper(), 0, 0, 1, "x", 1.0)


def test_documents_ranked_by_their_passages() -> None:
    docs = rank_documents([passage("c1", "d1"), passage("c2", "d2"), passage("c3", "d2")], k=60)
    assert [d.document_id for d in docs] == ["d2", "d1"]
    assert docs[0].best_chunk_id == "c2" and docs[0].title == "D2"


def test_mentions_of_rare_entities_are_fully_selective() -> None:
    rows = [("a", "c1", 1), ("a", "c2", 1), ("b", "c3", 2)]
    assert mention_selectivity(rows, {"a": 1.0, "b": 1.0}) == 1.0


def test_mentions_of_an_entity_named_everywhere_are_barely_selective() -> None:
    everywhere = [("hero", f"c{i}", 1) for i in range(400)]
    selectivity = mention_selectivity(everywhere, {"hero": 1.0})
    assert 0.2 < selectivity < 0.4
    rare = [*everywhere, ("ship", "s1", 1)]
    assert mention_selectivity(rare, {"hero": 1.0, "ship": 1.0}) > selectivity


def test_the_question_words_outvote_unselective_mentions() -> None:
    # the mention and fact rankings agree on c9, the question's words put c1 first
    lexical = ["c1", *(f"w{i}" for i in range(8)), "c9"]
    rankings = {"mentions": ["c9", "c2"], "facts": ["c9"], "bm25": lexical}
    assert fuse_passages(rankings, k=20, limit=3)[0].id == "c9"
    assert fuse_passages(rankings, k=20, limit=3, selectivity=0.25)[0].id == "c1"


def test_the_text_after_a_chunk_is_stitched_from_the_next_chunks_at_exact_offsets() -> None:
    doc = "1. One item.\n2. Two item.\n\n3. Three item.\n4. Four item."
    overlapping = [Chunk("b", "d", 1, 10, 30, doc[10:30]), Chunk("c", "d", 2, 28, 55, doc[28:])]
    assert stitched_text(13, overlapping) == doc[13:]
    apart = [Chunk("c", "d", 2, 27, 55, doc[27:])]  # cut at the blank line, no overlap
    assert stitched_text(25, apart) == doc[25:]

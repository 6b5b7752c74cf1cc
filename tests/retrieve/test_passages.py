"""Passage rankings by entity mentions and by relation evidence, and document ranking."""

from __future__ import annotations

from loregraph.models import Evidence, Relation
from loregraph.retrieve.passages import evidence_ranking, mention_ranking, rank_documents
from loregraph.retrieve.result import Passage, RankedRelation


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

"""Merge + rank of a breadth-first subgraph (seed 003's scoring) and relation ranking."""

from __future__ import annotations

import pytest

from loregraph.models import CO_OCCURS, Entity, Relation, Subgraph
from loregraph.retrieve.graph.expand import (
    BOTH_BONUS,
    ENTITY_MATCH_BONUS,
    hop_factor,
    rank_relations,
    rank_subgraph,
)
from loregraph.retrieve.results.result import StartEntity


def ent(name: str) -> Entity:
    return Entity(id=name, name=name, type="Person")


def rel(src: str, typ: str, dst: str, weight: float = 1.0) -> Relation:
    return Relation(id=f"{src}-{typ}-{dst}", source_id=src, target_id=dst, type=typ, weight=weight)


def subgraph() -> Subgraph:
    names = ["seed", "near", "near_weak", "far"]
    return Subgraph(
        entities={n: ent(n) for n in names},
        relations=[
            rel("seed", "KNOWS", "near", 5.0),
            rel("seed", "KNOWS", "near_weak", 1.0),
            rel("near", "KNOWS", "far", 5.0),
        ],
        hops={"seed": 0, "near": 1, "near_weak": 1, "far": 2},
    )


def test_hop_factors_follow_seed_003() -> None:
    assert hop_factor(1) == 1.0
    assert hop_factor(2) == 0.6
    assert hop_factor(3) < hop_factor(2)


def test_seeds_lead_then_by_hop_and_relation_weight() -> None:
    ranked = rank_subgraph(
        subgraph(),
        [StartEntity(ent("seed"), 1.0)],
        matched_ids=set(),
        vector_ids=set(),
        max_entities=10,
    )
    order = [r.entity.id for r in ranked]
    assert order[0] == "seed" and ranked[0].is_start and ranked[0].hop == 0
    assert order.index("near") < order.index("near_weak")
    assert order.index("near") < order.index("far")
    scores = {r.entity.id: r.score for r in ranked}
    assert scores["far"] == pytest.approx(0.6 * scores["near"])


def test_query_match_and_vector_bonuses() -> None:
    base = {
        r.entity.id: r.score
        for r in rank_subgraph(
            subgraph(),
            [StartEntity(ent("seed"), 1.0)],
            matched_ids=set(),
            vector_ids=set(),
            max_entities=9,
        )
    }
    boosted = {
        r.entity.id: r
        for r in rank_subgraph(
            subgraph(),
            [StartEntity(ent("seed"), 1.0)],
            matched_ids={"near_weak"},
            vector_ids={"near_weak"},
            max_entities=9,
        )
    }
    gain = boosted["near_weak"].score - base["near_weak"]
    assert gain == pytest.approx(ENTITY_MATCH_BONUS + BOTH_BONUS)
    assert "vector" in boosted["near_weak"].found_by


def test_max_entities_caps_the_result() -> None:
    ranked = rank_subgraph(
        subgraph(),
        [StartEntity(ent("seed"), 1.0)],
        matched_ids=set(),
        vector_ids=set(),
        max_entities=2,
    )
    assert len(ranked) == 2


def test_relations_typed_first_and_redundant_co_occurrence_dropped() -> None:
    relations = [
        rel("a", CO_OCCURS, "b", 9.0),
        rel("a", "MARRIED_TO", "b", 1.0),
        rel("b", CO_OCCURS, "c", 4.0),
        rel("a", "KNOWS", "c", 1.0),
        rel("a", "KNOWS", "outside", 1.0),
    ]
    scores = {"a": 2.0, "b": 1.0, "c": 0.5}
    ranked = rank_relations(relations, scores, {"a": "A", "b": "B", "c": "C"}, max_relations=10)
    kinds = [(r.relation.source_id, r.relation.type, r.relation.target_id) for r in ranked]
    assert ("a", CO_OCCURS, "b") not in kinds  # the typed MARRIED_TO says more
    assert kinds[-1] == ("b", CO_OCCURS, "c")  # co-occurrence listed last
    assert all(r.relation.target_id != "outside" for r in ranked)
    assert ranked[0].source_name == "A"

"""Reciprocal rank fusion."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loregraph.retrieve.search.fuse import reciprocal_rank_fusion


def test_rrf_scores_follow_the_formula() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["a", "b", "c"], "vector": ["c", "a"]}, k=60)
    scores = {f.id: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert [f.id for f in fused] == ["a", "c", "b"]


def test_rrf_records_ranks_and_finders() -> None:
    fused = {f.id: f for f in reciprocal_rank_fusion({"x": ["a", "b"], "y": ["b"]}, k=1)}
    assert fused["b"].ranks == {"x": 2, "y": 1}
    assert fused["b"].found_by == ["x", "y"]
    assert fused["a"].found_by == ["x"]


def test_item_found_by_two_rankings_beats_one_found_by_one() -> None:
    fused = reciprocal_rank_fusion({"x": ["solo", "both"], "y": ["other", "both"]}, k=60)
    assert fused[0].id == "both"


def test_repeated_id_counts_once_at_its_best_rank() -> None:
    fused = reciprocal_rank_fusion({"x": ["a", "a", "b"]}, k=0)
    scores = {f.id: f.score for f in fused}
    assert scores == {"a": pytest.approx(1.0), "b": pytest.approx(0.5)}


def test_weights_scale_a_ranking() -> None:
    fused = reciprocal_rank_fusion({"exact": ["e"], "bm25": ["b"]}, k=60, weights={"exact": 4})
    assert [f.id for f in fused] == ["e", "b"]
    assert fused[0].score == pytest.approx(4 / 61)


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"x": ["a"]}, k=-1)


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), max_size=4))
def test_rrf_is_sorted_and_covers_every_id(rankings: list[list[str]]) -> None:
    named = {f"r{i}": r for i, r in enumerate(rankings)}
    fused = reciprocal_rank_fusion(named, k=60)
    assert {f.id for f in fused} == {item for r in rankings for item in r}
    assert all(a.score >= b.score for a, b in itertools.pairwise(fused))

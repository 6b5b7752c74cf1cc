"""The benchmark metrics: recall@k, P/R/F1, entity and pair matching, text joining."""

from __future__ import annotations

import pytest
from bench.common import latency_summary, percentile
from bench.metrics import (
    PRF,
    detokenize,
    match_entities,
    match_pairs,
    mean,
    name_keys,
    recall_at_k,
    recall_table,
)


def test_recall_at_k_counts_gold_found_in_the_top_k() -> None:
    ranked = ["A", "X", "B", "Y", "C"]
    assert recall_at_k(ranked, ["A", "B"], 2) == 0.5
    assert recall_at_k(ranked, ["A", "B"], 5) == 1.0
    assert recall_at_k(ranked, ["Z"], 5) == 0.0


def test_recall_at_k_ignores_duplicate_ranks_and_short_rankings() -> None:
    # a repeated title must not take two of the k places
    assert recall_at_k(["A", "A", "B"], ["A", "B"], 2) == 1.0
    assert recall_at_k(["A"], ["A", "B", "C", "D"], 5) == 0.25
    assert recall_at_k([], ["A"], 2) == 0.0


def test_recall_at_k_rejects_empty_gold_and_bad_k() -> None:
    with pytest.raises(ValueError):
        recall_at_k(["A"], [], 2)
    with pytest.raises(ValueError):
        recall_at_k(["A"], ["A"], 0)


def test_recall_table_averages_overall_and_per_group() -> None:
    rankings = [["A", "B"], ["C", "X"], ["X", "Y"]]
    golds = [["A", "B"], ["C", "D"], ["E"]]
    groups = ["comparison", "compositional", "compositional"]
    table = recall_table(rankings, golds, groups, ks=(2,))
    assert table["all"] == {"n": 3, "R@2": pytest.approx(50.0)}
    assert table["comparison"]["R@2"] == 100.0
    assert table["compositional"] == {"n": 2, "R@2": 25.0}


def test_recall_table_requires_aligned_inputs() -> None:
    with pytest.raises(ValueError):
        recall_table([["A"]], [["A"], ["B"]], ["x"])


def test_mean_of_nothing_is_zero() -> None:
    assert mean([]) == 0.0
    assert mean([1.0, 2.0]) == 1.5


def test_prf_from_counts() -> None:
    prf = PRF(pred_hits=3, pred_total=4, gold_hits=3, gold_total=6)
    assert prf.precision == 0.75
    assert prf.recall == 0.5
    assert prf.f1 == pytest.approx(0.6)
    assert PRF().f1 == 0.0
    total = PRF()
    total.add(prf)
    total.add(PRF(1, 1, 1, 2))
    assert (total.pred_hits, total.pred_total, total.gold_hits, total.gold_total) == (4, 5, 4, 8)
    assert total.as_dict()["precision"] == 80.0


def test_name_keys_normalise_case_accents_punctuation_and_articles() -> None:
    keys = name_keys(["The Demeter", "DEMETER", "Mediaș", 'Wilfried " Willi " Schneider', ""])
    assert keys == {"demeter", "medias", "wilfried willi schneider"}


def test_entities_match_on_any_shared_normalised_name() -> None:
    gold = [
        name_keys(["Lothair II", "Lothair"]),
        name_keys(["Ermengarde of Tours"]),
        name_keys(["855"]),
    ]
    predicted = [
        name_keys(["lothair", "King Lothair"]),  # matches gold 0 through an alias
        name_keys(["Ermengarde of Tours"]),
        name_keys(["Lotharingia"]),  # no gold entity
    ]
    links, prf = match_entities(predicted, gold)
    assert links == [{0}, {1}, set()]
    assert (prf.pred_hits, prf.pred_total, prf.gold_hits, prf.gold_total) == (2, 3, 2, 3)


def test_two_predictions_of_one_gold_entity_count_once_for_recall() -> None:
    gold = [name_keys(["Mina Harker", "Mina"])]
    predicted = [name_keys(["Mina"]), name_keys(["Mina Harker"])]
    _links, prf = match_entities(predicted, gold)
    assert prf.precision == 1.0
    assert prf.gold_hits == 1 and prf.recall == 1.0


def test_pairs_match_regardless_of_direction_and_label() -> None:
    links = [{0}, {1}, {2}, set()]
    gold_pairs = [(0, 1), (1, 0), (2, 0)]  # (0,1) twice in both directions: one gold pair
    prf = match_pairs([(1, 0), (0, 2), (1, 2), (0, 3), (0, 0)], links, gold_pairs)
    assert prf.gold_total == 2
    assert prf.pred_total == 4  # the self-pair is ignored
    assert prf.pred_hits == 2 and prf.gold_hits == 2
    assert prf.precision == 0.5 and prf.recall == 1.0


def test_detokenize_removes_spaces_before_punctuation() -> None:
    tokens = [
        "Schneider",
        "(",
        "born",
        "1963",
        "in",
        "Mediaș",
        ",",
        "Romania",
        ")",
        "is",
        "n't",
        "Bob",
        "'s",
        "friend",
        ".",
    ]
    assert detokenize(tokens) == "Schneider (born 1963 in Mediaș, Romania) isn't Bob's friend."


def test_percentiles_interpolate_between_ranks() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == pytest.approx(4.8)
    assert percentile([7.0], 95) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)
    summary = latency_summary([0.001, 0.002, 0.003])
    assert summary["n"] == 3 and summary["p50_ms"] == pytest.approx(2.0)
    assert latency_summary([]) == {"n": 0}

"""Personalised PageRank on small hand-made graphs."""

from __future__ import annotations

import numpy as np
import pytest

from loregraph.models import GraphArrays
from loregraph.retrieve.graph.ppr import (
    build_ppr_graph,
    pagerank,
    personalised_pagerank,
    restart_weights,
)


def arrays(
    entities: list[str],
    edges: list[tuple[int, int, float]],
    chunks: list[str],
    mentions: list[tuple[int, int, float]],
) -> GraphArrays:
    return GraphArrays(
        entity_ids=entities,
        edge_src=np.array([e[0] for e in edges], dtype=np.int64),
        edge_dst=np.array([e[1] for e in edges], dtype=np.int64),
        edge_weight=np.array([e[2] for e in edges], dtype=np.float32),
        chunk_ids=chunks,
        chunk_document=["doc"] * len(chunks),
        mention_entity=np.array([m[0] for m in mentions], dtype=np.int64),
        mention_chunk=np.array([m[1] for m in mentions], dtype=np.int64),
        mention_count=np.array([m[2] for m in mentions], dtype=np.float32),
    )


# A - B - C - D chain; H is mentioned in every chunk.
CHAIN = arrays(
    ["A", "B", "C", "D", "H"],
    [(0, 1, 3.0), (1, 2, 1.0), (2, 3, 1.0)],
    ["k0", "k1", "k2", "k3"],
    [(0, 0, 1), (1, 1, 1), (3, 2, 1), (4, 0, 1), (4, 1, 1), (4, 2, 1), (4, 3, 5)],
)


def test_seed_neighbour_ranks_above_far_nodes() -> None:
    scores = personalised_pagerank(build_ppr_graph(CHAIN), {"A": 1.0}, damping=0.5)
    ent = scores.entities
    assert ent["A"] > ent["B"] > ent["C"] > ent["D"]


def test_passages_rank_by_closeness_to_the_seed() -> None:
    scores = personalised_pagerank(build_ppr_graph(CHAIN), {"A": 1.0}, damping=0.5)
    chunks = scores.chunks
    assert chunks["k0"] > chunks["k1"] > chunks.get("k2", 0.0)


def test_entity_mentioned_everywhere_spreads_nothing() -> None:
    scores = personalised_pagerank(build_ppr_graph(CHAIN), {"A": 1.0}, damping=0.5)
    # k3 is reachable only through H, whose mention edges carry no weight.
    assert scores.chunks.get("k3", 0.0) == 0.0
    assert scores.entities.get("H", 0.0) == 0.0


def test_rare_entity_outweighs_common_one() -> None:
    graph = build_ppr_graph(
        arrays(
            ["rare", "common"],
            [],
            ["c0", "c1", "c2", "c3"],
            [(0, 0, 1), (1, 1, 1), (1, 2, 1), (1, 3, 1), (1, 0, 1)],
        )
    )
    scores = personalised_pagerank(graph, {"rare": 1.0, "common": 1.0}, damping=0.5)
    assert scores.chunks["c0"] > max(scores.chunks.get(c, 0.0) for c in ("c1", "c2", "c3"))


def test_power_iteration_converges_to_a_distribution() -> None:
    graph = build_ppr_graph(CHAIN)
    restart = np.zeros(graph.size)
    restart[0] = 1.0
    scores, iterations = pagerank(graph, restart, 0.5)
    assert scores.sum() == pytest.approx(1.0)
    assert 1 <= iterations <= 50
    assert (scores >= 0).all()


def test_zero_damping_returns_the_restart_vector() -> None:
    graph = build_ppr_graph(CHAIN)
    restart = np.zeros(graph.size)
    restart[1] = 2.0
    scores, _ = pagerank(graph, restart, 0.0)
    assert scores[1] == pytest.approx(1.0)


def test_damping_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        pagerank(build_ppr_graph(CHAIN), np.ones(9), 1.0)


def test_no_restart_mass_gives_no_scores() -> None:
    scores = personalised_pagerank(build_ppr_graph(CHAIN), {"missing": 1.0})
    assert scores.entities == {} and scores.chunks == {}


def test_restart_weights_split_between_seeds_and_chunks() -> None:
    entities, chunks = restart_weights({"A": 2.0, "B": 2.0}, ["k0", "k1"], chunk_share=0.2)
    assert sum(entities.values()) == pytest.approx(0.8)
    assert sum(chunks.values()) == pytest.approx(0.2)
    assert chunks["k0"] > chunks["k1"]
    only_chunks, chunk_mass = restart_weights({}, ["k0"])
    assert only_chunks == {} and chunk_mass == {"k0": pytest.approx(1.0)}

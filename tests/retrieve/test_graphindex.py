"""The in-memory graph index: breadth-first expansion and mention look-ups."""

from __future__ import annotations

import numpy as np

from loregraph.models import GraphArrays
from loregraph.retrieve.graph.graphindex import GraphIndex


def index() -> GraphIndex:
    # hub -- a (w 5), hub -- b (w 1), hub -- c (w 3), a -- far (w 1); x isolated
    entities = ["hub", "a", "b", "c", "far", "x"]
    edges = [(0, 1, 5.0), (2, 0, 1.0), (0, 3, 3.0), (1, 4, 1.0)]
    mentions = [(0, 0, 2), (1, 0, 1), (1, 1, 4), (4, 2, 1)]
    return GraphIndex.build(
        GraphArrays(
            entity_ids=entities,
            edge_src=np.array([e[0] for e in edges]),
            edge_dst=np.array([e[1] for e in edges]),
            edge_weight=np.array([e[2] for e in edges], dtype=np.float32),
            chunk_ids=["k0", "k1", "k2"],
            chunk_document=["d", "d", "d"],
            mention_entity=np.array([m[0] for m in mentions]),
            mention_chunk=np.array([m[1] for m in mentions]),
            mention_count=np.array([m[2] for m in mentions], dtype=np.float32),
        )
    )


def test_bfs_records_hops_both_directions() -> None:
    hops = index().bfs(["hub"], depth=2, per_node=10, max_entities=10)
    assert hops == {"hub": 0, "a": 1, "c": 1, "b": 1, "far": 2}


def test_bfs_follows_heaviest_edges_first() -> None:
    hops = index().bfs(["hub"], depth=1, per_node=2, max_entities=10)
    assert hops == {"hub": 0, "a": 1, "c": 1}


def test_bfs_stops_at_max_entities_and_depth() -> None:
    assert list(index().bfs(["hub"], depth=2, per_node=10, max_entities=2)) == ["hub", "a"]
    assert "far" not in index().bfs(["hub"], depth=1, per_node=10, max_entities=10)


def test_unknown_and_isolated_seeds_are_kept() -> None:
    hops = index().bfs(["missing", "x"], depth=2, per_node=10, max_entities=10)
    assert hops == {"missing": 0, "x": 0}


def test_mentions_of() -> None:
    rows = index().mentions_of(["a", "far", "missing"])
    assert sorted(rows) == [("a", "k0", 1), ("a", "k1", 4), ("far", "k2", 1)]


def test_ppr_matrix_is_built_once() -> None:
    idx = index()
    assert idx.ppr is idx.ppr

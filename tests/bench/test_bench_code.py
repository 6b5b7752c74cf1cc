"""The code-localisation benchmark: its frozen split, the trees it reads and how it scores."""

from __future__ import annotations

import json
import random

from bench.code import (
    SPLIT_FILE,
    first_files,
    load_commits,
    load_tree,
    recall_at,
    render_code,
    repositories,
    scores,
    windows,
)


def test_the_split_is_the_seeded_shuffle_of_every_commit() -> None:
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    assert set(data["repos"]) == set(repositories()) == {"axios", "click", "cobra", "requests"}
    for repo in repositories():
        commits = load_commits(repo)  # raises when the commits file changed
        order = [c["sha"] for c in commits]
        random.Random("code-" + repo).shuffle(order)
        half = len(order) // 2
        assert data["repos"][repo]["study"] == sorted(order[:half])
        assert data["repos"][repo]["held_out"] == sorted(order[half:])
        assert {c["half"] for c in commits} == {"study", "held_out"}


def test_the_gold_files_are_in_the_tree_read() -> None:
    files = load_tree("click")
    assert all(isinstance(text, str) and text.strip() for text in files.values())
    for commit in load_commits("click"):
        assert set(commit["files"]) <= set(files), commit["sha"]


def test_recall_and_the_dense_windows() -> None:
    assert recall_at(["a", "b", "c"], ["c", "d"], 2) == 0.0
    assert recall_at(["a", "b", "c"], ["c", "d"], 3) == 0.5
    commits = [{"files": ["x"], "half": "study"}, {"files": ["y", "z"], "half": "held_out"}]
    got = scores([["x", "y"], ["z", "q", "y"]], commits)
    assert got["study"] == {"R@1": 100.0, "R@5": 100.0, "n": 1}
    assert got["held_out"] == {"R@1": 50.0, "R@5": 100.0, "n": 1}
    assert got["all"]["R@1"] == 75.0
    texts, owners = windows({"a.py": "\n".join(map(str, range(85))), "b.py": "x"})
    assert owners == ["a.py", "a.py", "a.py", "b.py"] and texts[0].startswith("a.py\n0\n")
    assert first_files([3, 1, 0, 2], owners) == ["b.py", "a.py"]
    table = render_code({"figures": {"r": {"rankers": {"bm25": got}}}})
    assert "| r | bm25 | 100.0 / 100.0 | 50.0 / 100.0 |" in table

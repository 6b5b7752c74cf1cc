"""The code-localisation benchmark: its frozen split, the trees it reads and how it scores."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bench.calls import engine_edges, jedi_edges, measure, package_files
from bench.code import (
    SPLIT_FILE,
    defined_functions,
    first_files,
    function_spans,
    load_commits,
    load_tree,
    passage_functions,
    python_functions,
    recall_at,
    render_code,
    repositories,
    scores,
    windows,
)
from bench.repomap import RepoMap, file_tags


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
    assert "| r | bm25 | 100.0 / 100.0 | 50.0 / 100.0 | — | — |" in table
    commits[1]["functions"] = ["y::f", "y::A.g"]
    with_functions = scores([["x"], ["y"]], commits, [[], ["y::A.g", "q::h"]])
    assert with_functions["held_out"]["fn R@10"] == 50.0 and "fn R@10" not in got["study"]


PARSER = """
import os

class Parser:
    def parse_options(self, args):
        return helper(args)

    def _private(self):
        def inner():
            return 1
        return inner

def helper(args):
    return os.path.join(*args)
"""


def test_python_functions_are_qualified_like_the_gold() -> None:
    found = python_functions({"src/p.py": PARSER, "README.md": "x", "bad.py": "def ("})
    assert list(found) == [
        "src/p.py::Parser.parse_options",
        "src/p.py::Parser._private",
        "src/p.py::Parser._private.inner",
        "src/p.py::helper",
    ]
    assert found["src/p.py::helper"].startswith("src/p.py::helper\ndef helper(args):")
    ranked = defined_functions(
        [("src/p.py", "helper", 2.0), ("src/p.py", "inner", 1.0)], list(found)
    )
    assert ranked == ["src/p.py::helper", "src/p.py::Parser._private.inner"]


def test_the_repository_map_reads_tags_and_ranks_by_what_the_query_names() -> None:
    tags = file_tags("src/p.py", PARSER)
    assert tags is not None and set(tags.defines) >= {"Parser", "parse_options", "helper"}
    assert tags.refers["helper"] == 1
    go = file_tags("cmd/root.go", "package cmd\nfunc Execute() error { return run() }\n")
    assert go is not None and "Execute" in go.defines and go.refers["run"] == 1
    ts = file_tags("lib/a.ts", "export function retryRequest(n: number) { return backoff(n); }")
    assert ts is not None and "retryRequest" in ts.defines and ts.refers["backoff"] >= 1
    assert file_tags("notes.txt", "plain") is None
    files = {
        "src/p.py": PARSER,
        "src/cli.py": "from p import Parser, helper\nParser().parse_options([])\nhelper([])\n",
        "src/other.py": "def unrelated_thing():\n    return helper([])\n",
    }
    repo_map = RepoMap.build(files)
    order, definitions = repo_map.rank("parse_options fails on empty args")
    assert order[0] == "src/p.py" and set(order) == set(files)
    assert ("src/p.py", "parse_options") in [d[:2] for d in definitions[:2]]
    assert RepoMap.build({"a.txt": "x"}).rank("anything") == ([], [])


def test_the_functions_a_passage_shows() -> None:
    spans = function_spans({"src/p.py": PARSER, "bad.py": "def ("})
    keys = [key for key, _, _ in spans["src/p.py"]]
    assert keys == list(python_functions({"src/p.py": PARSER}))
    start = PARSER.index("    def _private")
    shown = passage_functions([("src/p.py", start, start + 10), ("src/p.py", 0, 5)], spans)
    assert shown == ["src/p.py::Parser._private"]
    everything = passage_functions([("src/p.py", 0, len(PARSER)), ("x.py", 0, 9)], spans)
    assert everything == keys


def test_call_edges_are_scored_against_jedi(tmp_path: Path) -> None:
    files = {
        "src/shop/__init__.py": "from .pricing import price_of\n",
        "src/shop/pricing.py": "def price_of(item):\n    return base(item)\n\ndef base(item):\n"
        "    return 1\n",
        "src/shop/cart.py": "from shop import price_of\n\nclass Cart:\n"
        "    def total(self, items):\n"
        "        return sum(price_of(i) for i in items) + self.fee()\n\n"
        "    def fee(self):\n        return len([])\n\n"
        "    def pay(self, gateway):\n        return gateway.charge()\n",
        "src/shop/gateway.py": "class Gateway:\n    def charge(self):\n        return 0\n",
        "tests/test_cart.py": "from shop.cart import Cart\n\ndef test():\n    Cart().total([])\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert set(package_files(files)) == {
        "src/shop/__init__.py",
        "src/shop/pricing.py",
        "src/shop/cart.py",
        "src/shop/gateway.py",
    }
    expected = {
        ("shop.pricing.price_of", "shop.pricing.base"),
        ("shop.cart.Cart.total", "shop.pricing.price_of"),  # through the package's re-export
        ("shop.cart.Cart.total", "shop.cart.Cart.fee"),
    }
    assert jedi_edges(tmp_path, package_files(files)) == expected
    # gateway.charge(): a parameter of unknown type, a candidate jedi cannot confirm
    candidate = ("shop.cart.Cart.pay", "shop.gateway.Gateway.charge")
    edges = engine_edges(package_files(files))
    assert edges == {**dict.fromkeys(expected, "resolved"), candidate: "first"}
    figures = measure(tmp_path, files)
    assert (figures["precision"], figures["recall"], figures["files"]) == (1.0, 1.0, 4)
    assert (figures["candidate_edges"], figures["first_candidate_precision"]) == (1, 0.0)
    table = render_code({"figures": {"shop": {"rankers": {}, "calls": figures}}})
    assert "| shop | 4 | 3 | 3 | 1.0 | 1.0 | 1 | 0.0 | 1.0 |" in table

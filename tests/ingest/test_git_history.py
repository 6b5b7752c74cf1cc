"""A folder's git history read with ``ingest --git``: commits as memories, authors as
people who AUTHORED what they changed and OWN the files they changed most; a second run
reads only the new commits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tests.cli_runs import as_json, run

from loregraph import InputError
from loregraph.ingest.code.history import changed_definitions
from loregraph.ingest.code.python import parse_python

CART = '''"""Shopping carts."""


class Cart:
    """A cart of items."""

    currency = "EUR"

    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(self.items)
'''
ANN = ("Ann Lee", "ann@example.com")
BOB = ("Bob Stone", "bob@example.com")


def test_changed_lines_name_the_innermost_definitions() -> None:
    symbols = parse_python("src/shop/cart.py", CART).symbols

    def hit(*ranges: tuple[int, int]) -> list[str]:
        return [s.qualified for s in changed_definitions(symbols, ranges)]

    assert hit((16, 1)) == ["shop.cart.Cart.total"]  # a method's body: not its class
    assert hit((7, 1)) == ["shop.cart.Cart"]  # a class attribute
    assert hit((11, 0)) == ["shop.cart.Cart"]  # lines removed between two methods
    assert hit((13, 1), (16, 1)) == ["shop.cart.Cart.add", "shop.cart.Cart.total"]
    assert hit((13, 2)) == ["shop.cart.Cart", "shop.cart.Cart.add"]  # and the blank after
    assert hit((1, 2)) == []  # the module's docstring: no definition
    everything = hit((1, CART.count("\n")))
    assert everything == [
        "shop.cart.Cart",
        "shop.cart.Cart.__init__",
        "shop.cart.Cart.add",
        "shop.cart.Cart.total",
    ]


def _git(repo: Path, *args: str, when: str = "", who: tuple[str, str] = ANN) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    name, email = who
    command = ["git", "-c", f"user.name={name}", "-c", f"user.email={email}", *args]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def _commit(repo: Path, when: str, who: tuple[str, str], message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message, when=when, who=who)
    return _git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of three commits: Ann starts the shop, Bob rounds the totals, Ann
    changes how items are added (and the README)."""
    root = tmp_path / "repo"
    (root / "src" / "shop").mkdir(parents=True)
    _git(root, "init", "-q")
    cart = root / "src" / "shop" / "cart.py"
    cart.write_text(CART)
    (root / "README.md").write_text("# Shop\n\nA small shop.\n")
    _commit(root, "2024-01-10T10:00:00+00:00", ANN, "Start the shop\n\nA cart that totals.")
    cart.write_text(CART.replace("sum(self.items)", "round(sum(self.items), 2)"))
    _commit(
        root, "2024-02-10T10:00:00+00:00", BOB, "Round cart totals to cents\n\nAs Cart.add will."
    )
    cart.write_text(cart.read_text().replace("append(item)", "append(float(item))"))
    (root / "README.md").write_text("# Shop\n\nA small shop that sells.\n")
    _commit(root, "2024-03-10T10:00:00+00:00", ANN, "Store prices as floats")
    return root


def test_commits_become_memories_and_authors_people(repo: Path, tmp_path: Path) -> None:
    db = tmp_path / "git.db"
    done = as_json(db, "ingest", str(repo), "--git")
    assert (done["ingested"], done["failed"]) == (6, [])  # 2 files, 3 commits, the owners
    commits = as_json(db, "memories", "--tag", "commit")
    assert [m["text"].split(" on ")[0] for m in commits] == [
        "Ann Lee changed README.md (new file) and src/shop/cart.py "
        "(new file; Cart, Cart.__init__, Cart.add, Cart.total)",
        "Bob Stone changed src/shop/cart.py (Cart.total)",
        "Ann Lee changed README.md and src/shop/cart.py (Cart.add)",
    ]
    assert commits[0]["text"].endswith("Start the shop\n\nA cart that totals.")
    assert commits[1]["at"].startswith("2024-02-10T10:00:00")
    assert all(m["source"].startswith("git:") and len(m["source"]) == 44 for m in commits)

    # a function's history: its commits in time order, joined to the code graph's entity
    timeline = as_json(db, "history", "shop.cart.Cart.total", "--type", "AUTHORED")
    assert [(f["source"], f["valid_at"][:10]) for f in timeline["facts"]] == [
        ("Ann Lee", "2024-01-10"),
        ("Bob Stone", "2024-02-10"),
    ]
    contains = as_json(db, "relations", "shop.cart.Cart.total", "--type", "CONTAINS")
    assert [r["other"] for r in contains["relations"]] == ["shop.cart.Cart"]
    of_file = as_json(db, "history", "src/shop/cart.py", "--type", "AUTHORED")
    assert [f["source"] for f in of_file["facts"]] == ["Ann Lee", "Bob Stone", "Ann Lee"]

    # Bob's message names Cart.add, which his commit did not change: mentioned, not AUTHORED
    named = as_json(db, "memories", "--tag", "commit", "--about", "shop.cart.Cart.add")
    assert "Bob Stone changed src/shop/cart.py (Cart.total)" in [
        m["text"].split(" on ")[0] for m in named
    ]
    authored = as_json(db, "relations", "Ann Lee", "--type", "AUTHORED")
    assert {r["other"] for r in authored["relations"]} == {
        "README.md",
        "src/shop/cart.py",
        "shop.cart.Cart",
        "shop.cart.Cart.__init__",
        "shop.cart.Cart.add",
        "shop.cart.Cart.total",
    }
    owns = as_json(db, "relations", "src/shop/cart.py", "--type", "OWNS")
    assert [(r["other"], r["evidence"]) for r in owns["relations"]] == [
        ("Ann Lee", ["src/shop/cart.py: Ann Lee (2 of 3 commits)"])
    ]


def test_as_of_before_a_commit_hides_it_and_search_finds_who_changed(
    repo: Path, tmp_path: Path
) -> None:
    db = tmp_path / "git.db"
    assert run(db, "ingest", str(repo), "--git").exit_code == 0
    before = as_json(db, "--as-of", "2024-02-01", "history", "shop.cart.Cart.total")
    assert [f["source"] for f in before["facts"] if f["type"] == "AUTHORED"] == ["Ann Lee"]
    hits = as_json(db, "search", "who last changed Cart.total")
    titles = [h["title"] for h in hits["hits"]]
    assert titles[0].startswith("Bob Stone changed src/shop/cart.py (Cart.total)"), titles
    earlier = as_json(db, "--as-of", "2024-02-01", "search", "who last changed Cart.total")
    assert not any(h["title"].startswith("Bob Stone") for h in earlier["hits"])
    answer = as_json(db, "ask", "who last changed Cart.total")
    assert "Bob Stone changed src/shop/cart.py (Cart.total)" in answer["answer"]


def test_a_second_run_reads_only_the_new_commit(repo: Path, tmp_path: Path) -> None:
    db = tmp_path / "git.db"
    assert run(db, "ingest", str(repo), "--git", "--git-limit", "2").exit_code == 0
    assert len(as_json(db, "memories", "--tag", "commit")) == 2  # the newest two
    cart = repo / "src" / "shop" / "cart.py"
    cart.write_text(cart.read_text().replace("sum(self.items), 2)", "sum(self.items), 2) or 0"))
    _commit(repo, "2024-04-10T10:00:00+00:00", BOB, "Empty carts total zero")
    again = as_json(db, "ingest", str(repo), "--git", "--git-limit", "2")
    replaced = {d["source"].rsplit("/", 1)[-1] for d in again["replaced_documents"]}
    assert (again["ingested"], replaced) == (1, {"cart.py", str(repo.name)})
    commits = as_json(db, "memories", "--tag", "commit")
    assert [m["text"].split(" changed")[0] for m in commits] == [
        "Bob Stone",
        "Ann Lee",
        "Bob Stone",
    ]
    owns = as_json(db, "relations", "src/shop/cart.py", "--type", "OWNS")
    assert [(r["other"], r["evidence"]) for r in owns["relations"]] == [
        ("Bob Stone", ["src/shop/cart.py: Bob Stone (1 of 2 commits)"])  # the latest wins a tie
    ]
    timeline = as_json(db, "history", "shop.cart.Cart.total", "--type", "AUTHORED")
    assert [f["valid_at"][:10] for f in timeline["facts"]] == ["2024-02-10", "2024-04-10"]
    assert all(f["current"] for f in timeline["facts"])  # a commit never ends another


def test_a_folder_outside_git_or_no_git_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.md").write_text("# Notes\n\nSome words here.\n")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    db = tmp_path / "none.db"
    refused = run(db, "ingest", str(plain), "--git")
    assert refused.exit_code == InputError.exit_code
    assert "not inside a git work tree" in refused.output
    assert not db.exists()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    missing = run(db, "ingest", str(plain), "--git")
    assert missing.exit_code == InputError.exit_code
    assert "needs the git program" in missing.output
    assert not db.exists()

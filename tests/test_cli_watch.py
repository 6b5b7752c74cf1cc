"""``loregraph watch``: a folder kept fresh while it is worked on — a renamed function's
callers follow it, a deleted file's graph goes."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from cli_runs import as_json, run
from loregraph.cli.watch import snapshot

PRICING = "def price_of(item):\n    return item\n"
CART = "from shop.pricing import price_of\n\n\ndef total(items):\n    return price_of(items)\n"


def _documents(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    except sqlite3.Error:
        return 0


def _edit_when_read(db: Path, package: Path) -> None:
    """Wait for the first reading of the folder, then rename a function (its caller in
    cart.py is read again) and add a file."""
    deadline = time.monotonic() + 120
    while _documents(db) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    (package / "pricing.py").write_text(PRICING.replace("price_of", "cost_of"))
    (package / "notes.md").write_text("# Notes\n\nPrices are in cents.\n")


def test_a_watched_folder_follows_its_edits(tmp_path: Path) -> None:
    package = tmp_path / "repo" / "shop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pricing.py").write_text(PRICING)
    (package / "cart.py").write_text(CART)
    (tmp_path / "repo" / ".git").mkdir()
    (tmp_path / "repo" / ".git" / "HEAD").write_text("ref: main\n")
    assert set(snapshot(tmp_path / "repo")) == {  # hidden folders are not looked at
        str(package / name) for name in ("__init__.py", "pricing.py", "cart.py")
    }
    db = tmp_path / "code.db"
    editor = threading.Thread(target=_edit_when_read, args=(db, package))
    editor.start()
    done = run(db, "watch", str(tmp_path / "repo"), "--interval", "0.3", "--rounds", "40")
    editor.join()
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith(f"watching {tmp_path / 'repo'} (2 documents)")
    again = "1 new, 2 changed, 0 removed (shop/cart.py, shop/pricing.py)"
    assert any(again in line for line in lines), lines
    names = {e["name"] for e in as_json(db, "entities")}
    assert "shop.pricing.cost_of" in names and "shop.pricing.price_of" not in names
    assert any(d["title"] == "Notes" for d in as_json(db, "documents"))

"""The explorer as its users meet it: ``loregraph serve --no-auth`` over a small store made
here (a document, dated memories, a second scope), and Debian's Chromium driven by
Playwright (never a downloaded browser). Screenshots go to tests/artifacts/explorer/."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "artifacts" / "explorer"
BOOK = ROOT / "src" / "loregraph" / "data" / "dracula.txt"
KEEP_EVERY_ENTITY = {"LOREGRAPH_MIN_ENTITY_SALIENCE": "0"}
"""Ingest settings that keep every candidate entity a node (a document's nodes are those
mentioned twice or salient enough): about 500 entities for the book instead of 170."""
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

NOTES = """Harbour Notes

Jonathan Harker travelled to Transylvania to meet Count Dracula. Count Dracula lived in a
castle in the Carpathian Mountains. Mina Harker was the wife of Jonathan Harker.

Mina Harker wrote letters to Lucy Westenra. Lucy Westenra lived in Whitby with her mother.
Arthur Holmwood proposed to Lucy Westenra, and Quincey Morris proposed to her as well.

Abraham Van Helsing was a professor in Amsterdam. John Seward asked Abraham Van Helsing to
examine Lucy Westenra. Renfield was a patient of John Seward at the asylum in Purfleet.
"""

MEMORIES = [
    {"text": "Mina Harker moved to Exeter with Jonathan Harker.", "at": "2025-03-01"},
    {"text": "Lucy Westenra visited Mina Harker in Exeter.", "at": "2025-09-10"},
]
FIRST_MEMORY = "2025-03-01"

OTHER_SCOPE = "navy"
OTHER_MEMORY = "Grace Hopper joined the United States Navy in Washington."
OTHER_MERGED = "Admiral Grace Hopper wrote the first compiler at Harvard."
"""A later memory of the other scope, whose "Admiral Grace Hopper" ingest merges into Grace
Hopper (the merge the entity panel lists)."""


@dataclass(frozen=True)
class Served:
    """A running ``loregraph serve`` and where it listens."""

    url: str
    db: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _cli(db: Path, *args: str, env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "loregraph.cli", "--db", str(db), "-q", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


@contextmanager
def _serving(db: Path, *options: str) -> Iterator[str]:
    """``loregraph serve`` over ``db`` on a free loopback port; yields its URL."""
    port = _free_port()
    command = [sys.executable, "-m", "loregraph.cli", "--db", str(db), "-q", "serve"]
    server = subprocess.Popen(
        [*command, *options, "--port", str(port)], env=_env(), stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="package")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store, ingested with the CLI (offline): a document, dated memories, another scope
    (with a merge)."""
    folder = tmp_path_factory.mktemp("explorer")
    db = folder / "explorer.db"
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    (folder / "memories.jsonl").write_text(
        "".join(json.dumps(m) + "\n" for m in MEMORIES), encoding="utf-8"
    )
    _cli(db, "ingest", str(folder / "notes.txt"), env=_env())
    _cli(db, "remember", str(folder / "memories.jsonl"), env=_env())
    _cli(db, "--scope", OTHER_SCOPE, "remember", OTHER_MEMORY, env=_env())
    _cli(db, "--scope", OTHER_SCOPE, "remember", OTHER_MERGED, env=_env())
    return db


@pytest.fixture(scope="package")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Dracula store: the whole book ingested offline with every candidate entity kept
    (about a minute on a quiet machine; once per session, and only for the tests that ask)."""
    db = tmp_path_factory.mktemp("book") / "dracula.db"
    _cli(db, "ingest", str(BOOK), env={**_env(), **KEEP_EVERY_ENTITY})
    return db


@pytest.fixture(scope="package")
def served_book(book: Path) -> Iterator[Served]:
    """The Dracula store behind ``loregraph serve --no-auth``."""
    with _serving(book, "--no-auth") as url:
        yield Served(url, book)


@pytest.fixture(scope="package")
def served(store: Path) -> Iterator[Served]:
    """The store behind ``loregraph serve --no-auth``."""
    with _serving(store, "--no-auth") as url:
        yield Served(url, store)


@pytest.fixture(scope="package")
def served_with_keys(store: Path) -> Iterator[tuple[Served, str]]:
    """The store behind ``loregraph serve`` with keys required, and a reader's key."""
    command = [sys.executable, "-m", "loregraph.cli", "--db", str(store), "-q"]
    made = subprocess.run(
        [*command, "keys", "create", "viewer"], env=_env(), capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    with _serving(store) as url:
        yield Served(url, store), made.stdout.strip()


@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    """Debian's Chromium, headless, through Playwright (skipped when either is missing:
    ``make test`` installs both)."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture()
def shots(request: pytest.FixtureRequest) -> Path:
    """The folder this test's screenshots go to (emptied first)."""
    folder = SHOTS / request.node.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder

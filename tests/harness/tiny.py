"""A tiny existing corpus in a store, for the fuzz targets that need one.

Ingested through :class:`~loregraph.graph.AsyncGraph` with the hashing embedder (fast,
deterministic) and the default offline extractor. The documents mix English narrative and
short records with Chinese and Arabic text, so word search, substring (trigram) search and
entity lookups all have something to find.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from loregraph.embed.base import Embedder
from loregraph.embed.hashing import HashingEmbedder
from loregraph.graph import AsyncGraph
from loregraph.store.base import Store
from loregraph.store.urls import store_for_url

T = TypeVar("T")

RECORDS = [
    {
        "id": "harker",
        "title": "Harker's journal",
        "text": "Jonathan Harker left Munich for Bistritz on 1 May. Count Dracula wrote to "
        "him from the Castle Dracula in Transylvania. Mina Murray waited in Exeter.",
    },
    {
        "id": "lucy",
        "title": "Lucy's letter",
        "text": "Lucy Westenra wrote to Mina Murray that three men proposed to her: Dr. John "
        "Seward, Quincey Morris and Arthur Holmwood.",
    },
    {
        "id": "lothair",
        "title": "Lothair II",
        "text": "Lothair II was a king of Lotharingia. He was the son of Emperor Lothair I and "
        "Ermengarde of Tours.",
    },
    {"id": "tokyo", "title": "東京", "text": "東京は日本の首都です。京都は古い都です。"},
    {"id": "cairo", "title": "القاهرة", "text": "القاهرة هي عاصمة مصر. المدينة كبيرة جدا."},
]


def write_tiny_corpus(path: Path) -> Path:
    """The tiny corpus as a JSON Lines file."""
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in RECORDS) + "\n", "utf-8")
    return path


def tiny_graph(location: str | Store, embedder: Embedder | None = None) -> AsyncGraph:
    """An engine on ``location`` with ``embedder`` (default: the hashing embedder)."""
    store = store_for_url(location) if isinstance(location, str) else location
    return AsyncGraph(store, embedder=embedder or HashingEmbedder())


class LoopRunner:
    """One event loop kept for a whole test module: hypothesis examples are synchronous, and
    a store opened on one loop must be used on that loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __call__(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` to completion on the module's loop."""
        return self.loop.run_until_complete(work)

    def close(self) -> None:
        """Close the loop."""
        self.loop.close()


async def build_tiny(location: str, corpus: Path, embedder: Embedder | None = None) -> AsyncGraph:
    """Ingest the tiny corpus into a new store at ``location``; returns the open engine."""
    graph = tiny_graph(location, embedder)
    await graph.open()
    report = await graph.ingest(str(write_tiny_corpus(corpus)))
    if report.ingested != len(RECORDS) or report.failed:
        raise AssertionError(f"the tiny corpus was not ingested: {report.summary()}")
    return graph


@contextmanager
def open_tiny(
    folder: Path, location: str | None = None, embedder: Embedder | None = None
) -> Iterator[tuple[LoopRunner, AsyncGraph]]:
    """The tiny store (an SQLite file in ``folder`` unless ``location`` names another) and
    the loop it lives on, closed afterwards."""
    run = LoopRunner()
    where = location or str(folder / "tiny.db")
    graph = run(build_tiny(where, folder / "tiny.jsonl", embedder))
    try:
        yield run, graph
    finally:
        run(graph.close())
        run.close()

"""The invented family corpus, ingested once per session, and engines over it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loregraph import AsyncGraph, Settings
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.sqlite import SqliteStore

from .family_corpus import ROSE, family_graph


@pytest.fixture(scope="session")
def family_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The family corpus in an SQLite file (both scopes)."""
    path = tmp_path_factory.mktemp("family") / "family.db"
    family_graph(path).close()
    return path


@pytest.fixture()
async def family(family_db: Path) -> AsyncIterator[AsyncGraph]:
    """An engine over the family corpus, in Rose Albright's scope."""
    graph = AsyncGraph(
        SqliteStore(family_db), embedder=HashingEmbedder(dim=64), settings=Settings(scope=ROSE)
    )
    await graph.open()
    try:
        yield graph
    finally:
        await graph.close()

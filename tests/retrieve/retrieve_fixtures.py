"""Fixtures shared by the retrieval and answer tests (imported by their conftest files)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from retrieve_corpus import build_store

from loregraph.embed.hashing import HashingEmbedder


@pytest.fixture()
def embedder() -> HashingEmbedder:
    """A deterministic, model-free embedder."""
    return HashingEmbedder(dim=256)


@pytest.fixture()
async def store(tmp_path: Path, embedder: HashingEmbedder) -> AsyncIterator[Any]:
    """A SQLite store with the two-document corpus in ``default`` and one in ``other``."""
    pytest.importorskip("loregraph.store.sqlite.store")
    kg = await build_store(tmp_path / "kg.db", embedder)
    try:
        yield kg
    finally:
        await kg.close()

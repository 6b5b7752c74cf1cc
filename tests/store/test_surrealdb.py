"""The SurrealDB store on its embedded engines: the shared contract on ``mem://``, plus what
is specific to it (a ``surrealkv`` directory kept between openings, locations, conflicts).

No SurrealDB server can be installed from the registries here, so ``ws://`` and ``http://``
are only parsed, never connected to."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("surrealdb")

from loregraph.errors import ConfigError, StoreError
from loregraph.store.surreal import SurrealStore
from loregraph.store.surreal.connection import SurrealTarget

from .builders import Book, unit
from .contract import StoreContract, StoreFactory


@pytest.fixture
async def store_factory() -> AsyncIterator[StoreFactory]:
    stores: list[SurrealStore] = []

    async def make() -> SurrealStore:
        store = SurrealStore("mem://")
        await store.open()
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


class TestSurrealContract(StoreContract):
    """Every contract test against SurrealDB's in-memory engine."""

    visibility_default_cases = 1_000

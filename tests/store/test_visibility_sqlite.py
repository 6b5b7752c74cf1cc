"""The visibility property test on SQLite (the full 10,000 cases in ``make test``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loregraph.store.sqlite import SqliteStore

from .contract_visibility import VisibilityContract
from .scenarios import StoreFactory


@pytest.fixture
async def store_factory(tmp_path: Path) -> AsyncIterator[StoreFactory]:
    stores: list[SqliteStore] = []

    async def make() -> SqliteStore:
        store = SqliteStore(tmp_path / f"store-{len(stores)}.db")
        await store.open()
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


class TestSqliteVisibility(VisibilityContract):
    pass

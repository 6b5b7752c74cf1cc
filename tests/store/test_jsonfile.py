"""The JSON memory file store: the shared contract, run so that every write goes through the
file (each write is followed by writing the file and reading it back into a fresh store),
plus what is specific to one JSON file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from loregraph.models import DeleteReport, DocumentBundle
from loregraph.store.jsonfile import JsonFileStore

from .contract import StoreContract, StoreFactory


class ThroughTheFile(JsonFileStore):
    """A memory file store that writes its file and reads it back after every write, so
    that the contract checks what survives the file, not only the store in memory."""

    async def round_trip(self) -> None:
        await self.close()
        await self.open()

    async def write_document(self, bundle: DocumentBundle) -> None:
        await super().write_document(bundle)
        await self.round_trip()

    async def delete_document(self, document_id: str) -> DeleteReport:
        report = await super().delete_document(document_id)
        await self.round_trip()
        return report

    async def invalidate_relation(self, relation_id: str, invalid_at: datetime) -> None:
        await super().invalidate_relation(relation_id, invalid_at)
        await self.round_trip()


@pytest.fixture
async def store_factory(tmp_path: Path) -> AsyncIterator[StoreFactory]:
    stores: list[JsonFileStore] = []

    async def make() -> JsonFileStore:
        store = ThroughTheFile(tmp_path / f"store-{len(stores)}.json")
        await store.open()
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


class TestJsonFileContract(StoreContract):
    """The shared store contract against :class:`JsonFileStore`, through the file."""

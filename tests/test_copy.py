"""Copying a store (:mod:`loregraph.copy`): resuming, refusing to mix graphs, merging, scopes
and the errors of opening two locations. Backend-to-backend fidelity is part of the store
contract (``tests/store/contract_copy.py``), run against every backend."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loregraph.copy import CopyConflictError, copy_locations, copy_store
from loregraph.errors import (
    ConfigError,
    EmptyStoreError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
)
from loregraph.models import DocumentBundle
from loregraph.store.base import Store
from loregraph.store.sqlite import SqliteStore
from store.builders import Book, unit
from store.contract_copy import rich_store, snapshot


@pytest.fixture
async def source(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore(tmp_path / "source.db") as store:
        await rich_store(store)
        yield store


@pytest.fixture
async def dest(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore(tmp_path / "dest.db") as store:
        yield store


class Interrupt(Exception):
    """Stands for Ctrl-C in the middle of a copy."""


class StopAfter:
    """A progress sink that interrupts the copy after ``n`` documents."""

    def __init__(self, n: int) -> None:
        self.n, self.done, self.total = n, 0, None

    def start(self, stage: str, total: int | None) -> None:
        self.total = total

    def advance(self, stage: str, amount: int = 1) -> None:
        self.done += amount
        if self.done >= self.n:
            raise Interrupt

    def finish(self, stage: str) -> None:
        pass


async def test_an_interrupted_copy_resumes_where_it_stopped(
    source: SqliteStore, dest: SqliteStore
) -> None:
    with pytest.raises(Interrupt):
        await copy_store(source, dest, progress=StopAfter(3))
    assert len(await dest.list_documents("default")) == 3
    report = await copy_store(source, dest)
    assert (report.copied, report.skipped, report.matches) == (3, 3, True)
    for scope in ("default", "other"):
        assert await snapshot(dest, scope) == await snapshot(source, scope)


async def test_copy_refuses_a_destination_holding_other_documents(
    source: SqliteStore, dest: SqliteStore
) -> None:
    book = Book("foreign", title="Someone else's notes")
    book.entity("Alice Morgan", description="Another Alice.", mentions=[(book.chunk("x"), 1)])
    await dest.write_document(book.bundle())
    before = await snapshot(dest, "default")
    with pytest.raises(CopyConflictError, match="Someone else's notes"):
        await copy_store(source, dest)
    assert await snapshot(dest, "default") == before
    assert await dest.scopes() == ["default"]  # nothing of scope "other" was written either
    # a scope the destination does not hold can still be copied on its own
    report = await copy_store(source, dest, scopes=["other"])
    assert [s.scope for s in report.scopes] == ["other"] and report.matches


async def test_a_changed_document_in_the_destination_is_a_conflict(
    source: SqliteStore, dest: SqliteStore
) -> None:
    await copy_store(source, dest)
    bundle = await dest.read_bundle("doc-1")
    assert bundle is not None
    bundle.document.content_hash = "edited"
    await dest.write_document(bundle)
    with pytest.raises(CopyConflictError):
        await copy_store(source, dest)


async def test_merge_adds_the_source_to_what_the_destination_holds(
    source: SqliteStore, dest: SqliteStore
) -> None:
    book = Book("foreign", title="Notes")
    chunk = book.chunk("Alice Morgan wrote notes about Zed.", unit(7))
    book.entity("Alice Morgan", description="Another Alice.", mentions=[(chunk, 1)])
    book.entity("Zed", mentions=[(chunk, 1)])
    await dest.write_document(book.bundle())
    report = await copy_store(source, dest, merge=True)
    assert report.copied == 6 and not report.matches
    stats, mine = await dest.stats("default"), await source.stats("default")
    assert stats.documents == mine.documents + 1
    assert stats.entities == mine.entities + 1  # Zed; the two Alices are one entity
    alice = (await dest.find_entities_by_key("default", ["alice morgan"]))["alice morgan"]
    assert (
        alice.mention_count
        == (
            (await source.find_entities_by_key("default", ["alice morgan"]))["alice morgan"]
        ).mention_count
        + 1
    )
    again = await copy_store(source, dest, merge=True)
    assert (again.copied, again.skipped) == (0, 6)


async def test_unknown_scope_and_same_store_are_refused(
    source: SqliteStore, dest: SqliteStore
) -> None:
    with pytest.raises(NotFoundError, match="nowhere"):
        await copy_store(source, dest, scopes=["nowhere"])
    with pytest.raises(ValueError):
        await copy_store(source, source)
    assert await dest.scopes() == []


async def test_copy_locations_opens_copies_and_closes(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "a.db") as store:
        await rich_store(store)
    report = await copy_locations(tmp_path / "a.db", f"sqlite://{tmp_path / 'b.db'}")
    assert report.matches and report.copied == 6
    async with SqliteStore(tmp_path / "a.db") as a, SqliteStore(tmp_path / "b.db") as b:
        assert await snapshot(b, "other") == await snapshot(a, "other")


async def test_copy_locations_errors(tmp_path: Path) -> None:
    with pytest.raises(EmptyStoreError, match="no store"):
        await copy_locations(tmp_path / "missing.db", tmp_path / "b.db")
    assert not (tmp_path / "missing.db").exists()
    async with SqliteStore(tmp_path / "empty.db"):
        pass
    with pytest.raises(EmptyStoreError, match="no documents"):
        await copy_locations(tmp_path / "empty.db", tmp_path / "b.db")
    with pytest.raises(ConfigError, match="same store"):
        await copy_locations(tmp_path / "empty.db", f"sqlite://{tmp_path / 'empty.db'}")
    async with SqliteStore(tmp_path / "full.db") as full:
        await rich_store(full)
    with pytest.raises(ConfigError, match="scheme"):
        await copy_locations(tmp_path / "full.db", "mongodb://localhost/x")
    with pytest.raises(StoreError, match="cannot connect"):
        await copy_locations(tmp_path / "full.db", "postgresql://127.0.0.1:9/nothing")
    conn = sqlite3.connect(tmp_path / "empty.db")
    conn.execute("UPDATE meta SET value = 999 WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaVersionError):
        await copy_locations(tmp_path / "empty.db", tmp_path / "b.db")


class NoBundles(SqliteStore):
    """A backend that has not implemented ``read_bundle`` (the contract's default)."""

    async def read_bundle(self, document_id: str) -> DocumentBundle | None:
        return await Store.read_bundle(self, document_id)


async def test_copying_from_a_backend_without_read_bundle_fails_before_writing(
    tmp_path: Path, dest: SqliteStore
) -> None:
    async with NoBundles(tmp_path / "nobundles.db") as store:
        await rich_store(store)
        with pytest.raises(StoreError, match="cannot copy from this store"):
            await copy_store(store, dest)
    assert await dest.scopes() == []

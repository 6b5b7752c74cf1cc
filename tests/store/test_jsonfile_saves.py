"""The memory file store never takes a write that lands while its file is being written
for one that file holds."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.jsonfile.layout import Contents

from .builders import Book, unit


def book(document_id: str, text: str) -> Book:
    written = Book(document_id)
    chunk = written.chunk(text, unit(0))
    written.entity(text.split()[0], mentions=[(chunk, 1)])
    return written


async def test_a_write_during_a_save_is_saved_at_close(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    store = JsonFileStore(path, autosave=False)
    await store.open()
    await store.write_document(book("doc-1", "Lisbon is a city.").bundle())
    writing, release = threading.Event(), threading.Event()
    plain = store._write

    def slow(contents: Contents) -> None:
        writing.set()
        release.wait(10)
        plain(contents)

    store._write = slow  # type: ignore[method-assign]
    saving = asyncio.create_task(store.save())
    await asyncio.to_thread(writing.wait, 10)
    await store.write_document(book("doc-2", "Oslo is a city.").bundle())
    release.set()
    await saving
    store._write = plain  # type: ignore[method-assign]
    await store.close()
    async with JsonFileStore(path, read_only=True) as again:
        assert [d.id for d in await again.list_documents("default")] == ["doc-1", "doc-2"]

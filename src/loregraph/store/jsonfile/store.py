"""The JSON memory file store: one human-readable JSON file, loaded whole at open and
written whole, atomically, when it changed (see ``autosave``) and at close.

Between the two it is an SQLite store in memory (:class:`SqliteStore` on ``:memory:``), so
it answers every query and keeps every rule of the store contract exactly as SQLite does,
including methods added to the contract later. Opening writes each document of the file
into it as the bundle :meth:`Store.read_bundle` gave (the same path as ``loregraph copy``);
closing reads every document back as a bundle and writes the file (layout:
:mod:`.layout`; files on disk: :mod:`.files`). Closing writes only when something changed
(or the file does not exist yet); a store opened ``read_only`` never writes.

With ``autosave`` (the default) a change is also written a moment after it is made
(:mod:`.autosave`): a long-lived process (a server, an agent's MCP session) keeps what it
changed even if it is killed.

One command writes a memory file at a time: a writer holds an exclusive lock from open to
close, and a second writer waits for it, then reads what the first wrote (:mod:`.lock`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path

from loregraph.errors import SchemaVersionError, StoreError, StorePermissionError
from loregraph.store.jsonfile.autosave import Autosave
from loregraph.store.jsonfile.fields import ShapeError
from loregraph.store.jsonfile.files import (
    MemoryFileError,
    check_writable,
    read_json,
    read_vectors,
    remove_leftovers,
    write_atomically,
    write_vectors,
)
from loregraph.store.jsonfile.handwritten import bundles_to_write
from loregraph.store.jsonfile.layout import Contents, Extras, embedded, file_document
from loregraph.store.jsonfile.lock import WriterLock
from loregraph.store.jsonfile.parse import read_contents
from loregraph.store.jsonfile.snapshot import (
    CountingDatabase,
    insert_records,
    read_everything,
)
from loregraph.store.rows import iso
from loregraph.store.sqlite import SqliteStore
from loregraph.store.sqlite.db import MEMORY, transaction
from loregraph.store.sqlite.versions import graph_version_key

log = logging.getLogger(__name__)


class JsonFileStore(SqliteStore):
    """A store kept in one JSON file (``context.json``), created on the first write.

    >>> store = JsonFileStore("context.json")  # doctest: +SKIP
    >>> async with store: ...                  # doctest: +SKIP
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, autosave: bool = True) -> None:
        super().__init__(MEMORY)
        self._db: CountingDatabase = CountingDatabase(self._changed)
        self.file = Path(path).expanduser()
        self.read_only = read_only
        self.autosave = autosave
        self._extras: dict[str, Extras] = {}
        self._lock = WriterLock(self.file)
        self._saved: int | None = None
        """The change count when the file was last loaded or written (``None``: not open)."""
        self._autosave = Autosave(self.save, self._pending)

    def __repr__(self) -> str:
        return f"JsonFileStore({str(self.file)!r})"

    async def open(self) -> None:
        """Read the file (if there is one) into the store.

        Raises :class:`~.files.MemoryFileError` (a :class:`StoreError`) for a file that is
        not a memory file, naming the problem and where it is; the file is not changed.
        """
        if self._saved is not None:
            return
        if not self.file.exists() and self.read_only:
            raise StoreError(f"no store file at {self.file}")
        if not self.read_only:
            check_writable(self.file)
            await asyncio.to_thread(self._lock.acquire)
        try:
            await self._load()
        except BaseException:
            self._lock.release()
            raise

    def _read(self) -> Contents:
        data = read_json(self.file)
        try:
            contents = read_contents(data)
        except ShapeError as exc:
            raise MemoryFileError(
                self.file, f"it is not a memory file of the expected shape: {exc}"
            ) from None
        except SchemaVersionError as exc:
            raise SchemaVersionError(
                f"cannot open the JSON memory file {self.file}: {exc}"
            ) from None
        vectors = data.get("vectors") if isinstance(data, dict) else None
        if isinstance(vectors, dict) and isinstance(vectors.get("file"), str):
            chunks, entities = read_vectors(self.file, vectors["file"])
            for bundle in contents.bundles:
                for chunk in bundle.chunks:
                    chunk.embedding = chunks.get(chunk.id)
                for write in bundle.entities:
                    write.entity.embedding = entities.get(write.entity.id)
            for entity in contents.entities:
                entity.embedding = entities.get(entity.id)
        return contents

    async def _load(self) -> None:
        contents = await asyncio.to_thread(self._read) if self.file.exists() else Contents()
        await super().open()
        try:
            for bundle in bundles_to_write(contents, self.file.name):
                try:
                    await super().write_document(bundle)
                except ValueError as exc:
                    raise MemoryFileError(
                        self.file, f"document {bundle.document.id!r} cannot be loaded: {exc}"
                    ) from None
            await self._db.run(_restore, contents)
            await self._report_derived_edits(contents)
        except BaseException:
            await super().close()
            raise
        self._extras = contents.extras
        self._saved = self._db.changes

    async def _report_derived_edits(self, contents: Contents) -> None:
        """Warn when the entities section gives a description or aliases other than those
        the documents give: those are derived from the documents section, where each
        document lists its own description and surface forms of each entity."""
        stored = await self.get_entities([entity.id for entity in contents.entities])
        given = {entity.id: entity for entity in contents.entities}
        edited = [
            entity.name
            for entity in stored
            if entity.description != given[entity.id].description
            or sorted(entity.aliases) != sorted(given[entity.id].aliases)
        ]
        if edited:
            log.warning(
                "%s: the description or aliases of %d entities (first: %r) differ from what "
                "their documents give, which is what the store keeps: edit an entity's "
                "description and aliases in the documents section (each document's "
                '"entities" list)',
                self.file,
                len(edited),
                edited[0],
            )

    async def close(self) -> None:
        """Write the file if anything changed (unless read-only), then close (safe twice)."""
        try:
            await self._autosave.stop()
            if self._saved is not None and not self.read_only and await self._unsaved():
                await self.save()
        finally:
            self._saved = None
            self._lock.release()
            await super().close()

    async def _unsaved(self) -> bool:
        """Whether the file is missing or the store changed since it was read or written."""
        return not self.file.exists() or self._db.changes != self._saved

    def _pending(self) -> bool:
        """Whether the store is open and changed since the file was read or written."""
        return self._saved is not None and self._db.changes != self._saved

    async def _changed(self) -> None:
        """After a call that changed rows (see :class:`CountingDatabase`)."""
        if self._saved is not None and self.autosave and not self.read_only:
            await self._autosave.changed()

    async def save(self) -> None:
        """Write the store's contents to the file now (atomically; see :mod:`.files`)."""
        self._autosave.saving = True
        started = time.monotonic()
        try:
            contents = await self.contents()
            seen = self._db.changes  # a write landing while the file is written is unsaved
            await asyncio.to_thread(self._write, contents)
        except PermissionError as exc:
            raise StorePermissionError(f"cannot write the store {self.file}: {exc}") from exc
        except OSError as exc:
            raise StoreError(
                f"cannot write the JSON memory file {self.file}: {exc}; the file was left as "
                "it was before this write"
            ) from exc
        finally:
            self._autosave.saving = False
            ended = time.monotonic()
            self._autosave.wrote(ended, ended - started)
        self._saved = seen

    async def contents(self) -> Contents:
        """Everything the store holds, as the file writes it (read in one call, so that no
        write comes in between)."""
        contents = await self._db.run(read_everything)
        held = {entity.id for entity in contents.entities}
        held.update(relation.id for relation in contents.relations)
        contents.extras = {key: value for key, value in self._extras.items() if key in held}
        return contents

    def _write(self, contents: Contents) -> None:
        vectors = write_vectors(self.file, *embedded(contents))
        document = file_document(contents, vectors)
        data = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        write_atomically(self.file, data.encode("utf-8"))
        remove_leftovers(self.file, vectors)


def _restore(conn: sqlite3.Connection, contents: Contents) -> None:
    """What writing the bundles does not carry over: when each entity was last updated
    (the load would make it now), each scope's graph version (the load counts its own
    writes), and what belongs to no document (merge decisions, audit log, API keys, grants,
    scope links), so
    that a file read and written back is unchanged and a version never repeats."""
    with transaction(conn):
        insert_records(conn, contents)
        conn.executemany(
            "UPDATE entities SET updated_at = ? WHERE id = ?",
            [(iso(entity.updated_at), entity.id) for entity in contents.entities],
        )
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
            [(graph_version_key(s), v) for s, v in contents.graph_versions.items()],
        )

"""One SQLite connection driven from one dedicated worker thread.

``sqlite3`` calls block, so every call runs on a single worker thread (which also serialises
them: one connection, one writer, no interleaving); the event loop only awaits the result.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from loregraph.errors import StoreError, StorePermissionError
from loregraph.store.base import NOT_OPEN, SCHEMA_VERSION, check_schema_version
from loregraph.store.sqlite.migrations import ensure_schema
from loregraph.store.sqlite.schema import read_version

P = ParamSpec("P")
T = TypeVar("T")

MEMORY = ":memory:"

READ_PRAGMAS = (
    "PRAGMA query_only = ON",
    "PRAGMA busy_timeout = 10000",
    "PRAGMA temp_store = MEMORY",
    "PRAGMA cache_size = -524288",
    "PRAGMA mmap_size = 4294967296",
)
"""Pragmas of a read-only connection (none of them writes to the file)."""

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 10000",
    "PRAGMA temp_store = MEMORY",
    "PRAGMA cache_size = -524288",
    "PRAGMA mmap_size = 4294967296",
    "PRAGMA secure_delete = ON",
    "PRAGMA recursive_triggers = OFF",
)


def connect(path: str, read_only: bool = False) -> tuple[sqlite3.Connection, int]:
    """Open ``path``, apply the pragmas, create or migrate the schema; return (conn, version).

    With ``read_only`` the file is opened for reading only (it must exist), so that a store
    the user may not write (or in a folder they may not write) can still be queried; a
    store of an older schema is first upgraded if the file can be written.

    Raises :class:`StoreError` when the path is not a usable SQLite database,
    :class:`StorePermissionError` when it cannot be created or written for lack of
    permission, and :class:`~loregraph.errors.SchemaVersionError` when it is newer than this
    code.
    """
    if read_only and path != MEMORY:
        return _connect_read_only(path)
    if path != MEMORY:
        target = Path(path)
        if target.is_dir():
            raise StoreError(f"the store path {path} is a directory, not a file")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except PermissionError:
            raise StorePermissionError(
                f"cannot create the folder {target.parent} for the store: permission denied"
            ) from None
    try:
        conn = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None, cached_statements=512
        )
    except sqlite3.Error as exc:
        raise _open_error(path, exc) from exc
    try:
        created = _prepare(conn, PRAGMAS, ensure_schema)
    except sqlite3.DatabaseError as exc:
        raise _open_error(path, exc) from exc
    assert created is not None  # ensure_schema always returns the version
    return conn, created


def _prepare(
    conn: sqlite3.Connection,
    pragmas: tuple[str, ...],
    versioning: Callable[[sqlite3.Connection], int | None],
) -> int | None:
    """Apply ``pragmas`` and read (or create) the schema version; the connection is closed
    when either fails."""
    try:
        for pragma in pragmas:
            conn.execute(pragma)
        return versioning(conn)
    except BaseException:
        conn.close()
        raise


def _connect_read_only(path: str) -> tuple[sqlite3.Connection, int]:
    target = Path(path).resolve()
    if not target.is_file():
        raise StoreError(f"no store file at {path}")
    if not os.access(target, os.R_OK):
        raise StorePermissionError(f"cannot read the store {path}: permission denied")
    last: sqlite3.Error | None = None
    # a WAL store needs its -shm file; where it cannot be created (a read-only folder), the
    # file is opened as immutable, which reads it without any lock or side file
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        uri = f"{target.as_uri()}?{flags}"
        try:
            conn = sqlite3.connect(
                uri,
                uri=True,
                check_same_thread=False,
                isolation_level=None,
                cached_statements=512,
            )
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            version = _prepare(conn, READ_PRAGMAS, read_version)
        except sqlite3.DatabaseError as exc:
            last = exc
            continue
        if version is None:
            conn.close()
            raise StoreError(f"the store {path} is empty: ingest documents first")
        if version > SCHEMA_VERSION:
            conn.close()
            check_schema_version(version)
        if version < SCHEMA_VERSION:
            conn.close()
            if not os.access(target, os.W_OK) or not os.access(target.parent, os.W_OK):
                raise StorePermissionError(
                    f"the store {path} uses schema version {version} and must be upgraded "
                    f"to {SCHEMA_VERSION} once by a user who may write it"
                )
            upgraded, _ = connect(path)  # migrate, then read through a read-only connection
            upgraded.close()
            return _connect_read_only(path)
        return conn, version
    assert last is not None
    raise _open_error(path, last) from last


def _open_error(path: str, exc: sqlite3.Error) -> StoreError:
    """The error to show for a store that could not be opened or written."""
    text = str(exc)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if "readonly" in text or "read-only" in text:
        return StorePermissionError(
            f"cannot write the store {path}: the file (or its folder) is read-only for this "
            "user; read commands still work, writes need write permission"
        )
    if "unable to open" in text:
        if not target.exists() and not os.access(folder, os.W_OK):
            return StorePermissionError(
                f"cannot create the store {path}: the folder {folder} is not writable "
                "(permission denied)"
            )
        if target.exists() and not os.access(target, os.R_OK):
            return StorePermissionError(f"cannot read the store {path}: permission denied")
        return StoreError(f"cannot open the store {path}: {text}")
    return StoreError(
        f"cannot open the store {path}: {text}; is it an SQLite file written by loregraph?"
    )


@contextmanager
def transaction(conn: sqlite3.Connection, *, write: bool = True) -> Iterator[None]:
    """``BEGIN [IMMEDIATE]`` ... ``COMMIT``; rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class Database:
    """A connection and the worker thread that uses it."""

    def __init__(self, path: str, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.version = 0

    @property
    def is_open(self) -> bool:
        """Whether :meth:`open` succeeded and :meth:`close` has not been called."""
        return self._conn is not None

    async def open(self) -> None:
        """Connect on the worker thread (idempotent)."""
        if self._conn is not None:
            return
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loregraph-sqlite")
        loop = asyncio.get_running_loop()
        try:
            self._conn, self.version = await loop.run_in_executor(
                executor, connect, self.path, self.read_only
            )
        except BaseException:
            executor.shutdown(wait=False)
            raise
        self._executor = executor

    async def close(self) -> None:
        """Close the connection and stop the worker (safe to call twice)."""
        conn, executor = self._conn, self._executor
        self._conn, self._executor = None, None
        if conn is None or executor is None:
            return
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(executor, self._close_conn, conn)
        finally:
            executor.shutdown(wait=True)

    def _close_conn(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                # refresh the planner's statistics where they matter, on a bounded sample
                conn.execute("PRAGMA analysis_limit = 1000")
                conn.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            finally:
                conn.close()

    async def run(
        self,
        fn: Callable[Concatenate[sqlite3.Connection, P], T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Run ``fn(conn, *args, **kwargs)`` on the worker thread and return its result."""
        conn, executor = self._conn, self._executor
        if conn is None or executor is None:
            raise StoreError(NOT_OPEN)

        def call() -> T:
            with self._lock:
                try:
                    return fn(conn, *args, **kwargs)
                except sqlite3.OperationalError as exc:
                    if "readonly" in str(exc) or "read-only" in str(exc):
                        raise _open_error(self.path, exc) from exc
                    raise

        return await asyncio.get_running_loop().run_in_executor(executor, call)

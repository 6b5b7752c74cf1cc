"""One SQLite connection driven from one dedicated worker thread.

``sqlite3`` calls block, so every call runs on a single worker thread (which also serialises
them: one connection, one writer, no interleaving); the event loop only awaits the result.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from loregraph.errors import LoregraphError, StoreError
from loregraph.store.sqlite.schema import ensure_schema

P = ParamSpec("P")
T = TypeVar("T")

MEMORY = ":memory:"

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 10000",
    "PRAGMA temp_store = MEMORY",
    "PRAGMA cache_size = -524288",
    "PRAGMA mmap_size = 4294967296",
    "PRAGMA secure_delete = OFF",
    "PRAGMA recursive_triggers = OFF",
)


def connect(path: str) -> tuple[sqlite3.Connection, int]:
    """Open ``path``, apply the pragmas, create or migrate the schema; return (conn, version).

    Raises :class:`StoreError` when the path is not a usable SQLite database and
    :class:`~loregraph.errors.SchemaVersionError` when it is newer than this code.
    """
    if path != MEMORY:
        target = Path(path)
        if target.is_dir():
            raise StoreError(f"the store path {path} is a directory, not a file")
        target.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None, cached_statements=512
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from exc
    try:
        for pragma in PRAGMAS:
            conn.execute(pragma)
        version = ensure_schema(conn)
    except LoregraphError:
        conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(
            f"cannot open the store {path}: {exc}; is it an SQLite file written by loregraph?"
        ) from exc
    return conn, version


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

    def __init__(self, path: str) -> None:
        self.path = path
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
            self._conn, self.version = await loop.run_in_executor(executor, connect, self.path)
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
            raise StoreError("the store is not open: use `await store.open()` or `async with`")

        def call() -> T:
            with self._lock:
                return fn(conn, *args, **kwargs)

        return await asyncio.get_running_loop().run_in_executor(executor, call)

"""Connecting to PostgreSQL: the URL, the store's schema, a pool of async connections.

Every store call borrows a connection from a :class:`psycopg_pool.AsyncConnectionPool`
(autocommit; writes open an explicit transaction). Each pooled connection gets the store's
``search_path`` (its schema, then the schemas holding the extensions), ``TimeZone=UTC`` and
whatever other session settings the schema set-up asked for, and learns pgvector's type
(embeddings are sent in binary, see :mod:`.vectors`).

A write that loses a race (a deadlock between two writers locking the same entities in a
different order, a serialisation failure, or a unique key another writer took a moment ago)
is rolled back and run again from the start, a few times, with a short random pause.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Concatenate, ParamSpec, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import AsyncConnection, errors
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from loregraph.errors import ConfigError, StoreError
from loregraph.store.base import NOT_OPEN
from loregraph.store.postgres.vectors import register_vectors

Conn = AsyncConnection[TupleRow]
P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_SCHEMA = "loregraph"
"""The schema a store's tables live in when the URL names none (``?schema=...``)."""

RETRIES = 6
CONNECT_TIMEOUT = 10
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_RETRYABLE = (errors.DeadlockDetected, errors.SerializationFailure, errors.UniqueViolation)


def split_url(url: str) -> tuple[str, str | None]:
    """``(url without its schema parameter, schema)``; ``?schema=name`` is loregraph's own."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        return url, None
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((value for key, value in query if key == "schema"), None)
    rest = urlencode([(key, value) for key, value in query if key != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


def redact(url: str) -> str:
    """The URL with its password hidden, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def check_schema_name(name: str) -> str:
    """``name`` if it is a plain lower-case SQL identifier; raises :class:`ConfigError`."""
    if not _IDENTIFIER.fullmatch(name):
        raise ConfigError(
            f"invalid PostgreSQL schema name {name!r}: use lower-case letters, digits and "
            "underscores, starting with a letter or underscore"
        )
    return name


@asynccontextmanager
async def _errors() -> AsyncIterator[None]:
    """A lost connection as :class:`StoreError`."""
    try:
        yield
    except psycopg.OperationalError as exc:
        raise StoreError(f"PostgreSQL error: {exc}") from exc


class Database:
    """A pool of connections to one PostgreSQL schema."""

    def __init__(self, url: str, schema: str, *, max_connections: int = 4) -> None:
        self.url = url
        self.schema = check_schema_name(schema)
        self.max_connections = max(1, max_connections)
        self.settings: dict[str, str] = {}
        self._pool: AsyncConnectionPool[Conn] | None = None

    @property
    def is_open(self) -> bool:
        """Whether :meth:`open` succeeded and :meth:`close` has not been called."""
        return self._pool is not None

    async def connect(self) -> Conn:
        """A new autocommit connection outside the pool (for set-up); raises StoreError."""
        try:
            return await AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
            )
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {redact(self.url)}: {exc}") from exc

    async def open(self, settings: dict[str, str]) -> None:
        """Open the pool; each connection gets ``settings`` (``set_config``; idempotent)."""
        if self._pool is not None:
            return
        self.settings = {"TimeZone": "UTC", **settings}
        pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            self.url,
            min_size=1,
            max_size=self.max_connections,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            configure=self._configure,
            open=False,
            name=f"loregraph-{self.schema}",
        )
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)
        except PoolTimeout as exc:
            await pool.close()
            raise StoreError(f"cannot connect to PostgreSQL at {redact(self.url)}") from exc
        self._pool = pool

    async def _configure(self, conn: Conn) -> None:
        for name, value in self.settings.items():
            await conn.execute("SELECT set_config(%s, %s, false)", (name, value))
        await register_vectors(conn)

    async def close(self) -> None:
        """Close every pooled connection (safe to call twice)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def _require(self) -> AsyncConnectionPool[Conn]:
        if self._pool is None:
            raise StoreError(NOT_OPEN)
        return self._pool

    async def read(
        self, fn: Callable[Concatenate[Conn, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``await fn(conn, ...)`` on a pooled autocommit connection."""
        async with _errors(), self._require().connection() as conn:
            return await fn(conn, *args, **kwargs)

    async def snapshot(
        self, fn: Callable[Concatenate[Conn, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``await fn(conn, ...)`` in one read-only REPEATABLE READ transaction."""
        async with _errors(), self._require().connection() as conn, conn.transaction():
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return await fn(conn, *args, **kwargs)

    async def write(
        self, fn: Callable[Concatenate[Conn, P], Awaitable[T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``await fn(conn, ...)`` in one transaction, run again when it loses a race.

        ``fn`` must derive everything from its arguments (it may run several times).
        """
        pool = self._require()
        for attempt in range(RETRIES):
            try:
                async with pool.connection() as conn, conn.transaction():
                    return await fn(conn, *args, **kwargs)
            except _RETRYABLE as exc:
                # a unique key taken by another writer is seen on the next try; twice is a bug
                unique = isinstance(exc, errors.UniqueViolation)
                if attempt == RETRIES - 1 or (unique and attempt >= 1):
                    raise
            except psycopg.OperationalError as exc:
                raise StoreError(f"PostgreSQL error: {exc}") from exc
            await asyncio.sleep(random.uniform(0.005, 0.02) * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

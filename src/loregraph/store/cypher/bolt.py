"""Neo4j through the official ``neo4j`` driver's async API (``neo4j://``, ``bolt://``).

Every write runs as one managed write transaction (``execute_write``), so it is atomic and
retried by the driver on transient errors; reads run in read transactions. No Neo4j server
can run on the machines loregraph is developed on: this module is tested without a server
(URL parsing, driver construction, query text, the error when the server is unreachable).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from loregraph.errors import DependencyError, StoreError
from loregraph.store.base import NOT_OPEN
from loregraph.store.cypher.connection import Params, Rows, TargetConnection, plain_params
from loregraph.store.cypher.dialect import NEO4J, Dialect
from loregraph.store.cypher.url import CypherTarget

CONNECT_TIMEOUT = 10.0


def _neo4j() -> Any:
    try:
        import neo4j
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise DependencyError(
            "a Neo4j store needs the neo4j driver: pip install 'loregraph[neo4j]'"
        ) from exc
    return neo4j


def driver_arguments(target: CypherTarget) -> tuple[str, Any]:
    """``(uri, auth)`` for ``neo4j.AsyncGraphDatabase.driver``: basic auth when a user is set."""
    auth = None
    if target.user is not None:
        auth = _neo4j().basic_auth(target.user, target.password or "")
    return target.driver_uri, auth


def make_driver(target: CypherTarget) -> Any:
    """An (unconnected) ``neo4j.AsyncDriver`` for the target."""
    uri, auth = driver_arguments(target)
    return _neo4j().AsyncGraphDatabase.driver(uri, auth=auth, connection_timeout=CONNECT_TIMEOUT)


class Neo4jConnection(TargetConnection):
    """A connection to one Neo4j database (``neo4j://user:pw@host:7687/database``)."""

    dialect: Dialect = NEO4J

    def __init__(self, target: CypherTarget) -> None:
        super().__init__(target)
        self._driver: Any = None

    async def open(self) -> None:
        if self._driver is not None:
            return
        driver = make_driver(self.target)
        try:
            await driver.verify_connectivity()
        except Exception as exc:
            await driver.close()
            raise StoreError(f"cannot connect to Neo4j at {self.target.redacted()}: {exc}") from exc
        self._driver = driver

    async def close(self) -> None:
        driver, self._driver = self._driver, None
        if driver is not None:
            await driver.close()

    async def read(self, query: str, params: Params | None = None) -> Rows:
        return await self._run(query, params, write=False)

    async def write(self, query: str, params: Params | None = None) -> Rows:
        return await self._run(query, params, write=True)

    async def ddl(self, statement: str) -> None:
        async with self._errors(), self._session() as session:
            await session.run(statement)

    async def _run(self, query: str, params: Params | None, *, write: bool) -> Rows:
        values = plain_params(params)
        async with self._errors(), self._session() as session:
            execute = session.execute_write if write else session.execute_read
            rows: Rows = await execute(_collect, query, values)
            return rows

    def _session(self) -> Any:
        if self._driver is None:
            raise StoreError(NOT_OPEN)
        return self._driver.session(database=self.target.name)

    @asynccontextmanager
    async def _errors(self) -> AsyncIterator[None]:
        """Driver errors as :class:`StoreError`."""
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"Neo4j error: {exc}") from exc


async def _collect(tx: Any, query: str, params: dict[str, Any]) -> Rows:
    result = await tx.run(query, params)
    return [list(record.values()) async for record in result]

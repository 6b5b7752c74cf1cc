"""FalkorDB through the ``falkordb`` client's asyncio API.

One ``GRAPH.QUERY`` is atomic on FalkorDB: the graph is write-locked for the query and a
query that fails part-way is rolled back by the server's undo log. Reads use
``GRAPH.RO_QUERY``. Parameters travel in a ``CYPHER name=value`` header before the query
text, rendered here by :func:`~loregraph.store.cypher.literals.params_header` (the client's
escaping, much faster for embeddings), so the client gets the finished query and no params.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from loregraph.errors import DependencyError, StoreError
from loregraph.store.base import NOT_OPEN
from loregraph.store.cypher.connection import Params, Rows, TargetConnection
from loregraph.store.cypher.dialect import FALKORDB, Dialect
from loregraph.store.cypher.literals import params_header
from loregraph.store.cypher.url import CypherTarget

CONNECT_TIMEOUT = 10.0


class FalkorConnection(TargetConnection):
    """A connection to one FalkorDB graph (``falkordb://host:port/graph``)."""

    dialect: Dialect = FALKORDB

    def __init__(self, target: CypherTarget) -> None:
        super().__init__(target)
        self._db: Any = None
        self._graph: Any = None

    async def open(self) -> None:
        if self._graph is not None:
            return
        try:
            from falkordb.asyncio import FalkorDB
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise DependencyError(
                "a FalkorDB store needs the falkordb client: pip install 'loregraph[falkordb]'"
            ) from exc
        target = self.target
        db: Any = None
        try:
            # the client's constructor already talks to the server (cluster detection)
            db = FalkorDB(
                host=target.host,
                port=target.port,
                username=target.user,
                password=target.password,
                socket_connect_timeout=CONNECT_TIMEOUT,
            )
            graph = db.select_graph(target.name or "loregraph")
            await graph.query("RETURN 1")
        except Exception as exc:
            if db is not None:
                await db.aclose()
            raise StoreError(
                f"cannot connect to FalkorDB at {target.redacted()}: {_message(exc)}"
            ) from exc
        self._db, self._graph = db, graph

    async def close(self) -> None:
        db, self._db, self._graph = self._db, None, None
        if db is not None:
            await db.aclose()

    def _require(self) -> Any:
        if self._graph is None:
            raise StoreError(NOT_OPEN)
        return self._graph

    async def read(self, query: str, params: Params | None = None) -> Rows:
        return await self._query(self._require().ro_query, query, params)

    async def write(self, query: str, params: Params | None = None) -> Rows:
        return await self._query(self._require().query, query, params)

    async def ddl(self, statement: str) -> None:
        try:
            await self._require().query(statement)
        except Exception as exc:
            if "already" not in str(exc).lower():
                raise StoreError(f"FalkorDB error: {_message(exc)}") from exc

    async def _query(
        self, run: Callable[[str], Awaitable[Any]], query: str, params: Params | None
    ) -> Rows:
        try:
            result = await run(params_header(params) + query)
        except Exception as exc:
            raise StoreError(f"FalkorDB error: {_message(exc)}") from exc
        return [list(row) for row in result.result_set]


def _message(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__

"""The one thing the Cypher store needs from a database: run a parameterised statement.

Two implementations: :class:`~loregraph.store.cypher.falkor.FalkorConnection` (the
``falkordb`` client) and :class:`~loregraph.store.cypher.bolt.Neo4jConnection` (the
``neo4j`` driver). Statements come from the shared query modules plus the connection's
:class:`~loregraph.store.cypher.dialect.Dialect`; values always travel as parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from loregraph.store.cypher.dialect import Dialect
from loregraph.store.cypher.url import CypherTarget
from loregraph.store.props import plain

Params = Mapping[str, Any]
Rows = list[list[Any]]


class Connection(Protocol):
    """A connection to one graph (FalkorDB) or database (Neo4j)."""

    dialect: Dialect

    async def open(self) -> None:
        """Connect; raises :class:`~loregraph.errors.StoreError` when unreachable."""

    async def close(self) -> None:
        """Disconnect (safe to call twice)."""

    async def read(self, query: str, params: Params | None = None) -> Rows:
        """Run a read-only statement; rows of plain values."""

    async def write(self, query: str, params: Params | None = None) -> Rows:
        """Run one statement atomically (all of it or nothing); rows of plain values."""

    async def ddl(self, statement: str) -> None:
        """Run a schema statement; an index that exists already is not an error."""


class TargetConnection:
    """What both connection classes share: the database they connect to."""

    def __init__(self, target: CypherTarget) -> None:
        self.target = target

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.target.redacted()!r})"


def plain_params(params: Params | None) -> dict[str, Any]:
    """Every parameter converted by :func:`~loregraph.store.props.plain`."""
    return {} if params is None else {key: plain(value) for key, value in params.items()}

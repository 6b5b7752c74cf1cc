"""Choosing a store from where it lives: a file path (SQLite) or a database URL."""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import DependencyError
from loregraph.location import Location
from loregraph.store.base import Store


def store_for_url(location: str | Path | Location, *, read_only: bool = False) -> Store:
    """An unopened store for ``location`` (a string, a path or a parsed :class:`Location`).

    * a path, ``:memory:`` or ``sqlite://path``: :class:`~loregraph.store.sqlite.SqliteStore`;
    * a path ending in ``.json``: :class:`~loregraph.store.jsonfile.JsonFileStore`;
    * ``postgresql://...`` or ``postgres://...`` (optionally ``?schema=name``):
      :class:`~loregraph.store.postgres.PostgresStore`;
    * ``falkordb://host:port/graph``, ``neo4j://``, ``neo4j+s://``, ``bolt://``
      (``user:password@host:port/database``): :class:`~loregraph.store.cypher.CypherStore`;
    * a directory ending in ``.surreal``, ``surrealkv://path``, ``mem://``, or a SurrealDB
      server (``ws://user:password@host:port/namespace/database``):
      :class:`~loregraph.store.surreal.SurrealStore`.

    ``read_only`` opens an SQLite file for reading only (it must exist): for queries on a
    store the user may not write; a JSON memory file opened so is never written back.
    Server stores ignore it.

    Raises :class:`~loregraph.errors.ConfigError` for any other URL scheme and
    :class:`DependencyError` when the backend's driver is not installed.
    """
    return _store(Location.parse(location), read_only)


def _store(where: Location, read_only: bool) -> Store:
    if where.kind in ("sqlite", "memory"):
        from loregraph.store.sqlite import SqliteStore

        return SqliteStore(where.target, read_only=read_only)
    if where.kind == "json":
        from loregraph.store.jsonfile import JsonFileStore

        return JsonFileStore(where.target, read_only=read_only)
    if where.kind == "postgresql":
        try:
            from loregraph.store.postgres import PostgresStore
        except ImportError as exc:
            raise DependencyError(
                "a PostgreSQL store needs psycopg and psycopg-pool: "
                "pip install 'loregraph[postgres]'"
            ) from exc
        return PostgresStore(where.target)
    if where.kind == "surreal":
        try:
            from loregraph.store.surreal import SurrealStore
        except ImportError as exc:
            raise DependencyError(
                "a SurrealDB store needs the surrealdb package: pip install 'loregraph[surrealdb]'"
            ) from exc
        return SurrealStore(where.target)
    from loregraph.store.cypher import CypherStore

    return CypherStore(where.target)

"""Choosing a store from where it lives: a file path (SQLite) or a database URL."""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import ConfigError, DependencyError
from loregraph.location import Location
from loregraph.store.base import Store


def store_for_url(
    location: str | Path | Location,
    *,
    mirror: str | Location | None = None,
    read_only: bool = False,
) -> Store:
    """An unopened store for ``location`` (a string, a path or a parsed :class:`Location`).

    * a path, ``:memory:`` or ``sqlite://path``: :class:`~loregraph.store.sqlite.SqliteStore`;
    * a path ending in ``.json``: :class:`~loregraph.store.jsonfile.JsonFileStore`;
    * ``postgresql://...`` or ``postgres://...`` (optionally ``?schema=name``):
      :class:`~loregraph.store.postgres.PostgresStore`;
    * ``falkordb://host:port/graph``, ``neo4j://``, ``neo4j+s://``, ``bolt://``
      (``user:password@host:port/database``): :class:`~loregraph.store.cypher.CypherStore`.

    ``mirror`` (a Cypher URL) keeps ``location`` as the source of truth and mirrors its
    entities and relations into that graph database for traversal
    (:class:`~loregraph.store.mirror.MirroredStore`).

    ``read_only`` opens an SQLite file for reading only (it must exist): for queries on a
    store the user may not write; a JSON memory file opened so is never written back.
    Server stores ignore it.

    Raises :class:`ConfigError` for any other URL scheme (or a mirror that is not a Cypher
    URL, or a Cypher store mirrored into another) and :class:`DependencyError` when the
    backend's driver is not installed.
    """
    where = Location.parse(location)
    if mirror is None:
        return _store(where, read_only)
    graph = _mirror_location(mirror)
    if where.is_graph_database:
        raise ConfigError("a Cypher store is already a graph database: it needs no mirror")
    from loregraph.store.cypher import CypherStore
    from loregraph.store.mirror import MirroredStore

    return MirroredStore(_store(where, read_only), CypherStore(graph.target))


def _mirror_location(mirror: str | Location) -> Location:
    error = ConfigError(
        f"a mirror must be a Cypher database URL (falkordb://, neo4j://, bolt://), "
        f"not {str(mirror)!r}"
    )
    try:
        where = Location.parse(mirror)
    except ConfigError:
        raise error from None
    if not where.is_graph_database:
        raise error
    return where


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
    from loregraph.store.cypher import CypherStore

    return CypherStore(where.target)

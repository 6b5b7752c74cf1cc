"""Choosing a store from where it lives: a file path (SQLite) or a database URL."""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import ConfigError, DependencyError
from loregraph.store.base import Store

POSTGRES_SCHEMES = ("postgresql", "postgres")


def store_for_url(
    location: str | Path, *, mirror: str | None = None, read_only: bool = False
) -> Store:
    """An unopened store for ``location``.

    * a path, ``:memory:`` or ``sqlite://path``: :class:`~loregraph.store.sqlite.SqliteStore`;
    * ``postgresql://...`` or ``postgres://...`` (optionally ``?schema=name``):
      :class:`~loregraph.store.postgres.PostgresStore`;
    * ``falkordb://host:port/graph``, ``neo4j://``, ``neo4j+s://``, ``bolt://``
      (``user:password@host:port/database``): :class:`~loregraph.store.cypher.CypherStore`.

    ``mirror`` (a Cypher URL) keeps ``location`` as the source of truth and mirrors its
    entities and relations into that graph database for traversal
    (:class:`~loregraph.store.mirror.MirroredStore`).

    ``read_only`` opens an SQLite file for reading only (it must exist): for queries on a
    store the user may not write. Server stores ignore it.

    Raises :class:`ConfigError` for any other URL scheme (or a mirror that is not a Cypher
    URL, or a Cypher store mirrored into another) and :class:`DependencyError` when the
    backend's driver is not installed.
    """
    primary = _store(location, read_only)
    if mirror is None:
        return primary
    from loregraph.store.cypher import CypherStore, is_cypher_url
    from loregraph.store.mirror import MirroredStore

    if not is_cypher_url(mirror):
        raise ConfigError(
            f"a mirror must be a Cypher database URL (falkordb://, neo4j://, bolt://), "
            f"not {mirror!r}"
        )
    if isinstance(primary, CypherStore):
        raise ConfigError("a Cypher store is already a graph database: it needs no mirror")
    return MirroredStore(primary, CypherStore(mirror))


def _store(location: str | Path, read_only: bool = False) -> Store:
    text = str(location)
    scheme, sep, _ = text.partition("://")
    if not sep or isinstance(location, Path):
        return _sqlite(text, read_only)
    scheme = scheme.lower()
    if scheme == "sqlite":
        return _sqlite(text[len("sqlite://") :], read_only)
    if scheme in POSTGRES_SCHEMES:
        try:
            from loregraph.store.postgres import PostgresStore
        except ImportError as exc:
            raise DependencyError(
                "a PostgreSQL store needs psycopg and psycopg-pool: "
                "pip install 'loregraph[postgres]'"
            ) from exc
        return PostgresStore(text)
    from loregraph.store.cypher import CypherStore, is_cypher_url

    if is_cypher_url(text):
        return CypherStore(text)
    raise ConfigError(
        f"unsupported store URL scheme {scheme!r} in {location!s}: use a file path (SQLite), "
        "sqlite://path, postgresql://user@host/database, falkordb://host:port/graph or "
        "neo4j://user@host:port/database"
    )


def _sqlite(path: str, read_only: bool = False) -> Store:
    from loregraph.store.sqlite import SqliteStore

    return SqliteStore(path, read_only=read_only)

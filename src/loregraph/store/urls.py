"""Choosing a store from where it lives: a file path (SQLite) or a database URL."""

from __future__ import annotations

from pathlib import Path

from loregraph.errors import ConfigError, DependencyError
from loregraph.store.base import Store

POSTGRES_SCHEMES = ("postgresql", "postgres")


def store_for_url(location: str | Path) -> Store:
    """An unopened store for ``location``.

    * a path, ``:memory:`` or ``sqlite://path``: :class:`~loregraph.store.sqlite.SqliteStore`;
    * ``postgresql://...`` or ``postgres://...`` (optionally ``?schema=name``):
      :class:`~loregraph.store.postgres.PostgresStore`.

    Raises :class:`ConfigError` for any other URL scheme and :class:`DependencyError` when
    the backend's driver is not installed.
    """
    text = str(location)
    scheme, sep, _ = text.partition("://")
    if not sep or isinstance(location, Path):
        return _sqlite(text)
    scheme = scheme.lower()
    if scheme == "sqlite":
        return _sqlite(text[len("sqlite://") :])
    if scheme in POSTGRES_SCHEMES:
        try:
            from loregraph.store.postgres import PostgresStore
        except ImportError as exc:
            raise DependencyError(
                "a PostgreSQL store needs psycopg and psycopg-pool: "
                "pip install 'loregraph[postgres]'"
            ) from exc
        return PostgresStore(text)
    raise ConfigError(
        f"unsupported store URL scheme {scheme!r} in {location!s}: use a file path (SQLite), "
        "sqlite://path, or postgresql://user@host/database"
    )


def _sqlite(path: str) -> Store:
    from loregraph.store.sqlite import SqliteStore

    return SqliteStore(path)

"""Choosing a store from a location, and the PostgreSQL URL's own parameters (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loregraph.errors import ConfigError
from loregraph.store.sqlite import SqliteStore
from loregraph.store.urls import store_for_url

pytest.importorskip("psycopg")

from loregraph.store.postgres import PostgresStore
from loregraph.store.postgres.connection import redact, split_url


def test_paths_and_sqlite_urls_give_sqlite_stores(tmp_path: Path) -> None:
    for location in (tmp_path / "a.db", str(tmp_path / "b.db"), ":memory:"):
        assert isinstance(store_for_url(location), SqliteStore)
    store = store_for_url(f"sqlite://{tmp_path}/c.db")
    assert isinstance(store, SqliteStore) and store.path == f"{tmp_path}/c.db"


def test_postgres_urls_give_postgres_stores() -> None:
    for scheme in ("postgresql", "postgres", "PostgreSQL"):
        store = store_for_url(f"{scheme}://kg:pw@db.example:5432/graph")
        assert isinstance(store, PostgresStore)
        assert store.schema == "loregraph"
    store = store_for_url("postgresql://kg@localhost/graph?sslmode=disable&schema=team_a")
    assert isinstance(store, PostgresStore)
    assert store.schema == "team_a"
    assert store.url == "postgresql://kg@localhost/graph?sslmode=disable"


def test_unknown_schemes_and_bad_schema_names_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="mysql"):
        store_for_url("mysql://localhost/graph")
    with pytest.raises(ConfigError, match="schema name"):
        PostgresStore("postgresql://localhost/graph?schema=Drop;Table")
    with pytest.raises(ConfigError, match="schema name"):
        PostgresStore("postgresql://localhost/graph", schema="1abc")


def test_passwords_stay_out_of_messages() -> None:
    url = "postgresql://kg:hunter2@localhost/graph"
    assert "hunter2" not in redact(url) and "***" in redact(url)
    assert "hunter2" not in repr(PostgresStore(url))
    assert split_url("host=localhost dbname=graph") == ("host=localhost dbname=graph", None)

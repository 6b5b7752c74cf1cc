"""A store location is parsed once (:mod:`loregraph.location`) and answers every question."""

from __future__ import annotations

from pathlib import Path

import pytest

from loregraph.errors import ConfigError
from loregraph.location import SERVER_LLM_CACHE, Location


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("kg.db", "sqlite", "kg.db"),
        ("sqlite://kg.db", "sqlite", "kg.db"),
        ("SQLITE:///tmp/kg.db", "sqlite", "/tmp/kg.db"),
        (":memory:", "memory", ":memory:"),
        ("sqlite://:memory:", "memory", ":memory:"),
        ("context.json", "json", "context.json"),
        ("/tmp/Agent.JSON", "json", "/tmp/Agent.JSON"),
        ("sqlite://kg.json", "sqlite", "kg.json"),
        ("postgresql://kg@localhost/graph", "postgresql", "postgresql://kg@localhost/graph"),
        (
            "postgres://kg@localhost/graph?schema=a",
            "postgresql",
            "postgres://kg@localhost/graph?schema=a",
        ),
        ("falkordb://localhost:6379/kg", "falkordb", "falkordb://localhost:6379/kg"),
        ("neo4j+s://u:p@host/db", "neo4j", "neo4j+s://u:p@host/db"),
        ("bolt://host", "neo4j", "bolt://host"),
    ],
)
def test_kinds(text: str, kind: str, target: str) -> None:
    where = Location.parse(text)
    assert (where.kind, where.target, str(where)) == (kind, target, text)
    assert where.is_file == (kind in ("sqlite", "json"))
    assert where.is_server == (kind in ("postgresql", "falkordb", "neo4j"))
    assert (where.file is not None) == (kind in ("sqlite", "json"))


def test_a_path_is_always_a_file() -> None:
    where = Location.parse(Path("odd://name.db"))
    assert where.is_file and where.file == Path("odd://name.db")


def test_parsing_a_location_returns_it() -> None:
    where = Location.parse("kg.db")
    assert Location.parse(where) is where


def test_unknown_scheme_is_refused() -> None:
    with pytest.raises(ConfigError, match="unsupported store URL scheme 'mysql'"):
        Location.parse("mysql://localhost/graph")


def test_exists(tmp_path: Path) -> None:
    db = tmp_path / "kg.db"
    assert not Location.parse(str(db)).exists()
    assert not Location.parse(f"sqlite://{db}").exists()
    db.write_bytes(b"")
    assert Location.parse(str(db)).exists()
    assert Location.parse(f"sqlite://{db}").exists()
    assert not Location.parse(":memory:").exists()  # always a new, empty store
    assert Location.parse("postgresql://localhost/graph").exists()  # only connecting tells


def test_home_is_expanded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "kg.db").write_bytes(b"")
    where = Location.parse("~/kg.db")
    assert where.file == tmp_path / "kg.db"
    assert where.exists()


def test_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Location.parse("kg.db").same_store(f"sqlite://{tmp_path}/kg.db")
    assert Location.parse("kg.db").same_store(tmp_path / "sub" / ".." / "kg.db")
    assert not Location.parse("kg.db").same_store("other.db")
    assert Location.parse("postgresql://h/db/").same_store("postgresql://h/db")
    assert not Location.parse("postgresql://h/a").same_store("postgresql://h/b")
    assert Location.parse(":memory:").same_store("sqlite://:memory:")


def test_llm_cache_path(tmp_path: Path) -> None:
    assert Location.parse(str(tmp_path / "kg.db")).llm_cache_path() == (
        tmp_path / "kg.db.llm-cache.sqlite"
    )
    assert Location.parse(f"sqlite://{tmp_path}/kg.db").llm_cache_path() == (
        tmp_path / "kg.db.llm-cache.sqlite"
    )
    assert Location.parse("postgresql://h/db").llm_cache_path() == SERVER_LLM_CACHE
    assert Location.parse("falkordb://h/g").llm_cache_path() == SERVER_LLM_CACHE
    assert Location.parse(":memory:").llm_cache_path() is None

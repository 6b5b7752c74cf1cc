"""Where a store lives: one value parsed once from what the user wrote.

A location is an SQLite file path (``kg.db``, ``sqlite://kg.db``), ``:memory:``, a JSON
memory file (a path ending in ``.json``), an embedded SurrealDB store (a directory ending in
``.surreal``, ``surrealkv://PATH``, ``mem://``), or a database URL (``postgresql://``,
``falkordb://``, ``neo4j://``, ``bolt://``, ``ws://``...).
:meth:`Location.parse` reads it and answers what callers ask: which kind of store it is,
whether it is a file and whether that file exists, whether two locations name the same
store, and where the LLM response cache for it goes.

>>> str(Location.parse("sqlite://kg.db").file)
'kg.db'
>>> Location.parse("postgres://u@db/graph").kind
'postgresql'
>>> Location.parse("context.json").kind
'json'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from loregraph.errors import ConfigError

StoreKind = Literal["sqlite", "memory", "json", "postgresql", "falkordb", "neo4j", "surreal"]

MEMORY = ":memory:"
SQLITE_PREFIX = "sqlite://"
POSTGRES_SCHEMES = ("postgresql", "postgres")
FALKORDB_SCHEMES = ("falkordb",)
NEO4J_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
SURREAL_SCHEMES = ("surrealkv", "mem", "ws", "wss", "http", "https")
SURREAL_SUFFIX = ".surreal"
"""A path ending in this (any case) is an embedded SurrealDB store (a directory)."""
FILE_KINDS = ("sqlite", "json")
"""Kinds of store kept in one file."""
JSON_SUFFIX = ".json"
"""A path ending in this (any case) is a JSON memory file."""

LLM_CACHE_SUFFIX = ".llm-cache.sqlite"
"""An SQLite store's LLM response cache is the file with this suffix next to it."""
SERVER_LLM_CACHE = Path("loregraph.llm-cache.sqlite")
"""The LLM response cache (in the working directory) of a store on a database server."""


@dataclass(frozen=True, slots=True)
class Location:
    """A parsed store location.

    ``text`` is what the user wrote (for messages); ``kind`` the store it names;
    ``target`` what the store is opened with: the SQLite file path without any
    ``sqlite://`` prefix, ``:memory:``, or the whole database URL.
    """

    text: str
    kind: StoreKind
    target: str

    @classmethod
    def parse(cls, location: str | Path | Location) -> Location:
        """Read a location; raises :class:`ConfigError` for an unknown URL scheme.

        A :class:`~pathlib.Path` is always a file, even with ``://`` in it; a path ending in
        ``.json`` is a JSON memory file, any other an SQLite file.
        """
        if isinstance(location, Location):
            return location
        text = str(location)
        scheme, sep, _ = text.partition("://")
        if isinstance(location, Path) or not sep:
            if text.lower().endswith(JSON_SUFFIX):
                return cls(text, "json", text)
            if text.lower().endswith(SURREAL_SUFFIX):
                return cls(text, "surreal", f"surrealkv://{text}")
            return cls(text, "memory" if text == MEMORY else "sqlite", text)
        scheme = scheme.lower()
        if scheme == "sqlite":
            path = text[len(SQLITE_PREFIX) :]
            return cls(text, "memory" if path == MEMORY else "sqlite", path)
        kind = _server_kind(scheme)
        if kind is None:
            raise ConfigError(
                f"unsupported store URL scheme {scheme!r} in {text}: use a file path (SQLite), "
                "sqlite://path, postgresql://user@host/database, falkordb://host:port/graph, "
                "neo4j://user@host:port/database or surrealkv://path"
            )
        return cls(text, kind, text)

    def __str__(self) -> str:
        return self.text

    @property
    def is_file(self) -> bool:
        """Whether the store is one file: SQLite or a JSON memory file (not ``:memory:``,
        not a server)."""
        return self.kind in FILE_KINDS

    @property
    def is_server(self) -> bool:
        """Whether the store lives on a database server (PostgreSQL, FalkorDB, Neo4j)."""
        return self.kind not in ("sqlite", "memory", "json") and not self.is_embedded

    @property
    def is_embedded(self) -> bool:
        """Whether the store is an embedded SurrealDB (``surrealkv://`` or ``mem://``)."""
        return self.kind == "surreal" and self.target.lower().startswith(("surrealkv:", "mem:"))

    @property
    def file(self) -> Path | None:
        """The store's file (``~`` expanded; the directory of a ``surrealkv`` store), or
        ``None`` for memory and servers."""
        if self.kind == "surreal" and self.target.lower().startswith("surrealkv://"):
            return Path(self.target[len("surrealkv://") :]).expanduser()
        return Path(self.target).expanduser() if self.is_file else None

    def exists(self) -> bool:
        """Whether a store may already be there: ``False`` for a file path with no file and
        for ``:memory:`` (always new and empty); a server is assumed to exist (only
        connecting tells)."""
        if self.kind == "memory" or self.target.lower().startswith("mem:"):
            return False
        return self.file.exists() if self.file is not None else True

    @property
    def key(self) -> str:
        """What names the store: the absolute file, ``:memory:``, or the URL."""
        if self.file is not None:
            return str(self.file.resolve())
        return self.target.rstrip("/")

    def same_store(self, other: str | Path | Location) -> bool:
        """Whether ``other`` names the same store (the same file, or the same URL)."""
        return self.key == Location.parse(other).key

    def llm_cache_path(self) -> Path | None:
        """Where the LLM response cache goes: next to a store's file
        (``kg.db`` → ``kg.db.llm-cache.sqlite``), in the working directory for a server
        (:data:`SERVER_LLM_CACHE`), and nowhere on disk (``None``) for ``:memory:``."""
        if self.file is not None:
            return self.file.with_name(self.file.name + LLM_CACHE_SUFFIX)
        return SERVER_LLM_CACHE if self.is_server else None


def _server_kind(scheme: str) -> StoreKind | None:
    if scheme in POSTGRES_SCHEMES:
        return "postgresql"
    if scheme in FALKORDB_SCHEMES:
        return "falkordb"
    if scheme in NEO4J_SCHEMES:
        return "neo4j"
    if scheme in SURREAL_SCHEMES:
        return "surreal"
    return None

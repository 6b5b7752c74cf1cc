"""Parsing a Cypher store URL: ``falkordb://``, ``neo4j://``, ``neo4j+s://``, ``bolt://``.

* ``falkordb://[user:password@]host[:port][/graph]`` (port 6379, graph ``loregraph``);
* ``neo4j://``, ``neo4j+s://``, ``neo4j+ssc://``, ``bolt://``, ``bolt+s://``, ``bolt+ssc://``
  ``[user:password@]host[:port][/database]`` (port 7687, the server's default database).

The password is kept out of :func:`redact`'s output and of every error message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from loregraph.errors import ConfigError
from loregraph.location import FALKORDB_SCHEMES, NEO4J_SCHEMES

CYPHER_SCHEMES = FALKORDB_SCHEMES + NEO4J_SCHEMES
DEFAULT_GRAPH = "loregraph"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,62}")


@dataclass(frozen=True, slots=True)
class CypherTarget:
    """Where a Cypher store lives: which database kind, server and graph/database name."""

    kind: str
    """``falkordb`` or ``neo4j``."""
    scheme: str
    host: str
    port: int
    name: str | None
    """The FalkorDB graph key, or the Neo4j database (``None``: the server's default)."""
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def driver_uri(self) -> str:
        """``scheme://host:port`` for the Neo4j driver (no credentials, no database)."""
        return f"{self.scheme}://{self.host}:{self.port}"

    def redacted(self) -> str:
        """The URL with its password hidden, for messages."""
        auth = ""
        if self.user is not None:
            auth = self.user + (":***" if self.password is not None else "") + "@"
        path = f"/{self.name}" if self.name else ""
        return f"{self.scheme}://{auth}{self.host}:{self.port}{path}"


def parse_cypher_url(url: str) -> CypherTarget:
    """A :class:`CypherTarget` from a URL; raises :class:`ConfigError` for a malformed one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"invalid Cypher store URL: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in CYPHER_SCHEMES:
        raise ConfigError(f"not a Cypher store URL scheme: {scheme!r}")
    kind = "falkordb" if scheme in FALKORDB_SCHEMES else "neo4j"
    name = unquote(parts.path.strip("/")) or None
    if name is not None and not _NAME.fullmatch(name):
        what = "graph" if kind == "falkordb" else "database"
        raise ConfigError(
            f"invalid {what} name {name!r} in a {scheme}:// URL: use letters, digits, '_', "
            "'.' and '-'"
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"a {scheme}:// store URL takes no query string or fragment")
    return CypherTarget(
        kind=kind,
        scheme="falkordb" if kind == "falkordb" else scheme,
        host=parts.hostname or "localhost",
        port=port or (6379 if kind == "falkordb" else 7687),
        name=name or (DEFAULT_GRAPH if kind == "falkordb" else None),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
    )

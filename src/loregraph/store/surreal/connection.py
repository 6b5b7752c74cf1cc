"""Where a SurrealDB store lives, and the one thing the store needs from it: run SurrealQL
with parameters and get each statement's result, or an error that names the failing one.

* ``mem://``: an embedded in-memory database (gone when closed);
* ``surrealkv://PATH`` (or a path ending in ``.surreal``): an embedded database kept in the
  directory ``PATH``. The engine locks it, so one process opens it at a time;
* ``ws://``, ``wss://``, ``http://``, ``https://`` ``[user:password@]host[:port][/ns[/db]]``:
  a SurrealDB server, signed in as the user (namespace and database ``loregraph`` unless
  given). No server can be installed here, so only the embedded engines are tested.

The SDK is the 3.x generation (``surrealdb`` with ``surrealdb-embedded``, engine 3.2): its
full-text index takes about 1 ms a chunk where 2.x's (engine 2.3) took 33 ms, which made a
novel's ingest 40 s slower (BENCHMARKS.md). Every call goes through ``query_raw()`` and
checks each statement's status. Inside a transaction, the embedded 3.2 engine fails to read
a record's field by its id (``meta:meta.seq``: "Specify a database to use"), so the store
reads fields with ``SELECT VALUE``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from surrealdb import AsyncSurreal, RecordID

from loregraph.errors import ConfigError, StoreError
from loregraph.store.props import plain

EMBEDDED = ("mem", "surrealkv")
REMOTE = ("ws", "wss", "http", "https")
SCHEMES = EMBEDDED + REMOTE
SUFFIX = ".surreal"
"""A path ending in this is an embedded SurrealDB store."""
NAME = "loregraph"
CONFLICT = "loregraph: write conflict"
"""What a write transaction throws when another writer moved the store in between."""


@dataclass(frozen=True, slots=True)
class SurrealTarget:
    """A parsed SurrealDB location."""

    scheme: str
    path: str = ""
    """The directory of a ``surrealkv`` store, or ``host:port`` of a server."""
    namespace: str = NAME
    database: str = NAME
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str) -> SurrealTarget:
        """Read a location (see the module notes); :class:`ConfigError` when it is not one."""
        scheme, sep, rest = url.partition("://")
        if not sep:
            if not url.lower().endswith(SUFFIX):
                raise ConfigError(f"not a SurrealDB location: {url}")
            scheme, rest = "surrealkv", url
        scheme = scheme.lower()
        if scheme not in SCHEMES:
            raise ConfigError(f"unsupported SurrealDB scheme {scheme!r}: use one of {SCHEMES}")
        if scheme == "mem":
            return cls("mem")
        if scheme == "surrealkv":
            if not rest:
                raise ConfigError("surrealkv:// needs a directory: surrealkv://path/to/store")
            return cls("surrealkv", str(Path(rest).expanduser().resolve()))
        parts = urlsplit(url)
        names = [unquote(p) for p in parts.path.split("/") if p]
        if not parts.hostname or len(names) > 2:
            raise ConfigError(f"a SurrealDB server URL is {scheme}://[user:password@]host/ns/db")
        host = parts.hostname + (f":{parts.port}" if parts.port else "")
        user = None if parts.username is None else unquote(parts.username)
        password = None if parts.password is None else unquote(parts.password)
        namespace, database = [*names, NAME, NAME][:2]
        return cls(scheme, host, namespace, database, user, password)

    @property
    def sdk_url(self) -> str:
        """The URL the SDK connects to."""
        rpc = "/rpc" if self.scheme.startswith("ws") else ""
        return f"{self.scheme}://{self.path}{rpc}"

    def redacted(self) -> str:
        """The location with its password hidden, for messages."""
        if self.scheme in EMBEDDED:
            return f"{self.scheme}://{self.path}"
        auth = "" if self.user is None else self.user + ":***@"
        return f"{self.scheme}://{auth}{self.path}/{self.namespace}/{self.database}"


class SurrealConnection:
    """One SDK handle on one database."""

    def __init__(self, target: SurrealTarget) -> None:
        self.target = target
        self._db: Any = None

    async def open(self) -> None:
        """Connect (and sign in to a server); :class:`StoreError` when that fails."""
        where = self.target.redacted()
        if self.target.scheme == "surrealkv":
            Path(self.target.path).parent.mkdir(parents=True, exist_ok=True)
        db = AsyncSurreal(self.target.sdk_url)
        try:
            await db.connect()
            if self.target.user is not None:
                await db.signin({"username": self.target.user, "password": self.target.password})
            await db.use(self.target.namespace, self.target.database)
        except Exception as exc:  # the SDK raises plain exceptions of several kinds
            await _quietly_close(db)
            raise StoreError(f"cannot open the SurrealDB store {where}: {exc}") from exc
        self._db = db

    async def close(self) -> None:
        """Disconnect (safe to call twice)."""
        db, self._db = self._db, None
        if db is not None:
            await _quietly_close(db)

    async def run(self, sql: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Every statement's result, in order; :class:`StoreError` naming the first that
        failed (``ConflictError`` text kept, see :data:`CONFLICT`)."""
        if self._db is None:
            raise StoreError("the SurrealDB connection is closed")
        sent = {} if params is None else {k: plain(v, (RecordID,)) for k, v in params.items()}
        try:
            reply = await self._db.query_raw(sql, sent)
        except Exception as exc:
            raise StoreError(f"SurrealDB failed: {exc}") from exc
        if "error" in reply:
            raise StoreError(f"SurrealDB refused a query: {reply['error']}")
        results = reply.get("result") or []
        failed = [r["result"] for r in results if r.get("status") != "OK"]
        if failed:
            # in a failed transaction every statement reports it; the cause is the one
            # that does not say so
            cause = [f for f in failed if "failed transaction" not in str(f)] or failed
            raise StoreError(f"SurrealDB: {cause[0]}")
        return [r.get("result") for r in results]

    async def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """The last statement's rows."""
        last = await self.value(sql, params)
        if last is None:
            return []
        return list(last) if isinstance(last, list) else [last]

    async def value(self, sql: str, params: Mapping[str, Any] | None = None) -> Any:
        """The last statement's result as it is."""
        results = await self.run(sql, params)
        return results[-1] if results else None


async def _quietly_close(db: Any) -> None:
    try:
        await db.close()
    except Exception:  # closing a half-open handle: nothing left to release
        return

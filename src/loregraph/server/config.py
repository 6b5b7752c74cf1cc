"""What a server is configured with: authentication, limits, the hosts it answers to and the
origins that may call it from a browser, and what else it mounts.

The command line (``loregraph serve``) builds a :class:`ServerConfig` from its options and
the environment; the app factory only reads the object it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loregraph import ConfigError
from loregraph.server.origins import check_hosts, check_origins

MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one request may ask of the server.

    Args:
        max_body_bytes: the largest request body (uploads included); larger gets 413.
        max_question_chars: the longest question, query or memory text field; longer
            gets 422.
        request_timeout: seconds a request may take (a streamed answer included); slower
            gets 504, or an ``error`` event once the stream has begun.
        max_ingest_jobs: ingest jobs running at once; one more gets 429.
        send_timeout: seconds an event stream waits for a client that stops reading (its
            connection's buffers full) before the server ends the stream, so a stalled
            reader does not keep an answer or a job's stream open for ever.
    """

    max_body_bytes: int = 10 * MB
    max_question_chars: int = 2_000
    request_timeout: float = 120.0
    max_ingest_jobs: int = 2
    send_timeout: float = 30.0

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_question_chars", "max_ingest_jobs"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, not {getattr(self, name)}")
        for name in ("request_timeout", "send_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name} must be positive, not {getattr(self, name)}")


@dataclass(frozen=True, slots=True)
class Mount:
    """Another ASGI application served under ``path`` (e.g. an MCP endpoint at ``/mcp``,
    static files at ``/``). Mounted after the API's own routes, so those win.

    A mounted application's own lifespan is not run by the server; give what it needs
    running while the server runs as ``lifespan`` (e.g. the MCP SDK's
    ``session_manager.run``), which the server enters when it starts and leaves when it
    stops.
    """

    path: str
    app: Any
    name: str | None = None
    lifespan: Callable[[], AbstractAsyncContextManager[Any]] | None = None
    route: bool = False
    """Serve the application at exactly ``path`` (a route), not under it (a prefix)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How the HTTP server behaves.

    Args:
        auth: whether every request needs a key (``Authorization: Bearer lg_...``). Without,
            every request acts as the local administrator: only for a server on loopback.
        limits: request limits (:class:`Limits`).
        host: the address the server listens on. Requests must name it, ``localhost`` or
            one of ``allowed_hosts`` in their ``Host`` header (and 127.0.0.1 or ::1 when it
            is a loopback address or every address, 0.0.0.0 or ::); others get 421.
        allowed_hosts: more host names requests may name (a proxy's, the machine's names
            when it listens on every address); ports are not compared.
        allowed_origins: origins of web pages, besides the server's own, that may change
            the store from a browser and get CORS headers (``scheme://host[:port]``; none:
            CORS off). A write from any other page's origin gets 403
            (:mod:`loregraph.server.origins`).
        mounts: other applications served next to the API (see :class:`Mount`).
        metrics: what ``GET /metrics`` serves (a :class:`~loregraph.observe.metrics.Metrics`
            the engine reports to; ``None``: no metrics).
        ingest_roots: folders of the server's machine whose files and subfolders
            ``POST /ingest/paths`` may ingest (none: that endpoint is off).
        title: the API's title in its OpenAPI document.
    """

    auth: bool = True
    limits: Limits = field(default_factory=Limits)
    host: str = "127.0.0.1"
    allowed_hosts: Sequence[str] = ()
    allowed_origins: Sequence[str] = ()
    mounts: Sequence[Mount] = ()
    metrics: Any | None = None
    ingest_roots: Sequence[Path] = ()
    title: str = "loregraph"

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_hosts", check_hosts(self.allowed_hosts))
        object.__setattr__(self, "allowed_origins", check_origins(self.allowed_origins))

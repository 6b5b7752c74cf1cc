"""Request logs: an id for every request, one structured line per request, and the log
setup of ``loregraph serve``.

:class:`RequestLog` (ASGI middleware, outermost) gives each request an id: the client's
``X-Request-ID`` when it is sane (1-128 letters, digits or ``. _ : -``), else a new random
one. The id is answered in the ``X-Request-ID`` header, in every problem detail
(``request_id``) and, through a context variable (:func:`request_id`), on every log record
emitted while the request is served, the engine's included. When the request ends (a
streamed answer or job's events: when the stream ends) one line is logged on
``loregraph.http`` with the method, the path (never the query string), the status, the
duration in milliseconds, the principal's name once a key was checked, and the id. A
request cancelled before any response (the client left) is logged with status 499.

Nothing here logs a key, a request body or an answer. :func:`configure_logging` sends the
process's log records to a stream as JSON lines (:class:`JsonFormatter`) or text.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO, Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = "X-Request-ID"
MAX_ID_CHARS = 128
SANE_ID = re.compile(rf"[A-Za-z0-9._:-]{{1,{MAX_ID_CHARS}}}")
"""What a client's request id may be: anything else is replaced by a new one."""
CLIENT_LEFT = 499
"""The status logged for a request cancelled before any response was sent."""

LogFormat = Literal["json", "text"]

log = logging.getLogger("loregraph.http")
_REQUEST_ID: ContextVar[str | None] = ContextVar("loregraph_request_id", default=None)
_RECORD_FIELDS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", (), None)).keys() | {"message", "asctime"}
)


def request_id() -> str | None:
    """The id of the request being served (``None`` outside a request)."""
    return _REQUEST_ID.get()


@contextmanager
def bound(value: str | None) -> Iterator[None]:
    """Serve what runs inside as part of request ``value`` (its log records carry it)."""
    token = _REQUEST_ID.set(value)
    try:
        yield
    finally:
        _REQUEST_ID.reset(token)


def accept_id(offered: str | None) -> str:
    """The client's id when it is sane, else a new random one (32 hex digits)."""
    if offered is not None and SANE_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


class RequestLog:
    """Gives every HTTP request an id and logs one line when it ends (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        offered = _header(scope, b"x-request-id")
        rid = accept_id(offered)
        state = scope.setdefault("state", {})
        state["request_id"] = rid
        sent: dict[str, int] = {}
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                sent["status"] = message["status"]
                headers = [
                    (name, value)
                    for name, value in message.get("headers", ())
                    if name.lower() != b"x-request-id"
                ]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
            await send(message)

        with bound(rid):
            try:
                await self.app(scope, receive, send_with_id)
            except Exception:
                sent.setdefault("status", 500)
                raise
            finally:
                status = sent.get("status", CLIENT_LEFT)
                ms = round((time.perf_counter() - started) * 1000.0, 2)
                _log_request(scope, status, ms, state.get("principal"))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            try:
                return bytes(value).decode("ascii")
            except UnicodeDecodeError:
                return None
    return None


def _log_request(scope: Scope, status: int, ms: float, principal: str | None) -> None:
    method = str(scope.get("method", ""))
    path = str(scope.get("path", ""))
    fields: dict[str, Any] = {
        "method": method,
        "path": path,
        "status": status,
        "duration_ms": ms,
        "principal": principal,
    }
    level = logging.WARNING if status >= 500 else logging.INFO
    who = f" ({principal})" if principal else ""
    log.log(level, "%s %s %d %.1f ms%s", method, path, status, ms, who, extra=fields)


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on each record as ``request_id`` (``None`` outside a
    request), unless the record already has one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, the record's extra fields (``request_id`` when set), and ``exception``
    (its traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and not key.startswith("_") and value is not None:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


class TextFormatter(logging.Formatter):
    """``time LEVEL logger [request id] message`` (``-`` outside a request)."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        if getattr(record, "request_id", None) is None:
            record.request_id = "-"
            try:
                return super().format(record)
            finally:
                record.request_id = None
        return super().format(record)


def choose_format(wanted: str, stream: IO[str] | None = None) -> LogFormat:
    """``json`` or ``text``; ``auto`` is text on a terminal and JSON otherwise (a service
    manager, a container, a file)."""
    if wanted in ("json", "text"):
        return "json" if wanted == "json" else "text"
    target = stream if stream is not None else sys.stderr
    return "text" if target.isatty() else "json"


def configure_logging(
    format: LogFormat = "json", level: str = "info", stream: IO[str] | None = None
) -> logging.Handler:
    """Send every log record of ``level`` and above to ``stream`` (default: stderr) in
    ``format``, each with its request id; replaces the handler an earlier call added.
    Returns the handler (remove it from the root logger to undo)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name("loregraph")
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "loregraph"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler

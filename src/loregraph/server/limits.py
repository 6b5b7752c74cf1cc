"""Request limits as ASGI middleware: the body size (413) and the time a request may take
(504).

Both answer with a problem detail when the response has not begun. A streamed response
(server-sent events) enforces its own time limit, with an ``error`` event, so the timeout
here leaves the paths that stream alone (``streams``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from loregraph.server.problems import Problem


class BodyTooLarge(Exception):
    """Raised from ``receive`` when the body passes the limit."""


def too_large(limit: int) -> Problem:
    """413 for a body over ``limit`` bytes."""
    return Problem(
        413, "body-too-large", "Request body too large", f"the body is over {limit} bytes"
    )


async def _send_problem(send: Send, problem: Problem) -> None:
    response = problem.response()
    await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


class BodyLimit:
    """Refuses a request body larger than ``limit`` bytes, by its ``Content-Length`` or by
    the bytes received, before the application acts on it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _send_problem(send, too_large(self.limit))
            return
        state = {"seen": 0, "over": False, "started": False}

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                state["seen"] += len(message.get("body", b""))
                if state["seen"] > self.limit:
                    state["over"] = True
                    raise BodyTooLarge
            return message

        async def guarded(message: Message) -> None:
            if state["over"]:
                return  # whatever the application makes of the cut body is not sent
            state["started"] = True
            await send(message)

        with contextlib.suppress(BodyTooLarge):
            await self.app(scope, counted, guarded)
        if state["over"] and not state["started"]:
            await _send_problem(send, too_large(self.limit))


class Timeout:
    """Ends a request that takes longer than ``seconds`` with 504 (unless it streams)."""

    def __init__(self, app: ASGIApp, seconds: float, streams: Callable[[str], bool]) -> None:
        self.app = app
        self.seconds = seconds
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.streams(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        started: dict[str, Any] = {"yes": False}

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                started["yes"] = True
            await send(message)

        with anyio.move_on_after(self.seconds) as deadline:
            await self.app(scope, receive, watched)
        if deadline.cancelled_caught and not started["yes"]:
            await _send_problem(
                send,
                Problem(
                    504,
                    "timeout",
                    "Request timed out",
                    f"the request took longer than {self.seconds:g} s",
                ),
            )

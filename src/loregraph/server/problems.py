"""Errors as RFC 9457 problem details: ``{"type", "title", "status", "detail"}`` JSON with
the media type ``application/problem+json``.

``type`` is a URN naming the problem (``urn:loregraph:problem:not-found``), ``title`` says
it in words, ``detail`` says what happened in this request. The engine's errors map to
statuses by class (:data:`STATUS_OF`); validation errors add the list of ``errors``.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from loregraph import (
    AlreadyDoneError,
    ConfigError,
    DependencyError,
    EmptyStoreError,
    InputError,
    LoregraphError,
    NotAllowedError,
    NotFoundError,
    StoreError,
)
from loregraph.server.logs import HEADER, bound, request_id

MEDIA_TYPE = "application/problem+json"
PREFIX = "urn:loregraph:problem:"

log = logging.getLogger("loregraph.server")


class Problem(Exception):
    """An error answered as a problem detail: ``status``, a short ``name`` (the end of its
    type URN), a ``title`` and this occurrence's ``detail``."""

    def __init__(
        self,
        status: int,
        name: str,
        title: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.name = name
        self.title = title
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        """The problem as JSON, with the id of the request it answers (when served)."""
        body: dict[str, Any] = {
            "type": PREFIX + self.name,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }
        rid = request_id()
        if rid is not None:
            body["request_id"] = rid
        return {**body, **self.extra}

    def response(self) -> JSONResponse:
        """The problem as a response."""
        return JSONResponse(
            self.body(), status_code=self.status, headers=self.headers, media_type=MEDIA_TYPE
        )


STATUS_OF: tuple[tuple[type[LoregraphError], int, str, str], ...] = (
    (AlreadyDoneError, 409, "already-done", "Already done"),
    (NotFoundError, 404, "not-found", "Not found"),
    (EmptyStoreError, 404, "empty-scope", "Nothing stored in this scope"),
    (InputError, 422, "invalid-input", "Invalid input"),
    (NotAllowedError, 403, "forbidden", "Forbidden"),
    (ConfigError, 400, "bad-request", "Bad request"),
    (DependencyError, 501, "not-installed", "Not available on this server"),
    (StoreError, 503, "store-unavailable", "The store is unavailable"),
)
"""An engine error class → status, problem name and title (the first match wins)."""


def problem_of(exc: LoregraphError) -> Problem:
    """The problem an engine error is."""
    extra = {"candidates": list(exc.candidates)} if exc.candidates else None
    for cls, status, name, title in STATUS_OF:
        if isinstance(exc, cls):
            return Problem(status, name, title, str(exc), extra=extra)
    return Problem(500, "engine-error", "The engine failed", str(exc))


def unauthorized(detail: str) -> Problem:
    """401: no key, or a key the server does not accept."""
    return Problem(
        401, "unauthorized", "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"}
    )


def forbidden(detail: str) -> Problem:
    """403: a valid key without the role needed in the scope asked."""
    return Problem(403, "forbidden", "Forbidden", detail)


def _status_name(status: int) -> tuple[str, str]:
    names = {
        400: ("bad-request", "Bad request"),
        404: ("not-found", "Not found"),
        405: ("method-not-allowed", "Method not allowed"),
        413: ("body-too-large", "Request body too large"),
    }
    return names.get(status, ("http-error", "HTTP error"))


PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "An error as an RFC 9457 problem detail.",
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "urn:loregraph:problem:<name>"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "candidates": {
            "type": "array",
            "items": {"type": "string"},
            "description": "What the request may have meant: close names for a name no "
            "entity has, the known types for an unknown type.",
        },
        "errors": {
            "type": "array",
            "description": "What was invalid in the request (invalid-request only).",
            "items": {
                "type": "object",
                "properties": {
                    "loc": {"type": "array", "items": {"type": ["string", "integer"]}},
                    "msg": {"type": "string"},
                    "type": {"type": "string"},
                },
            },
        },
    },
}
"""The JSON schema of a problem detail, as the OpenAPI document gives it."""

ERROR_RESPONSES = {
    "4XX": "The request was refused (a problem detail naming why).",
    "5XX": "The server or its store failed (a problem detail).",
}


def describe_problems(document: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI ``document`` with every operation's errors described as they are sent:
    problem details (``application/problem+json``) for any 4xx or 5xx status, in place of
    the framework's own validation error (changed in place; returned)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["Problem"] = PROBLEM_SCHEMA
    content = {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for item in document.get("paths", {}).values():
        for operation in item.values():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            for status, description in ERROR_RESPONSES.items():
                responses[status] = {"description": description, "content": content}
    return document


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` as a problem detail."""

    async def on_problem(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Problem)
        return exc.response()

    async def on_engine(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, LoregraphError)
        return problem_of(exc).response()

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        name, title = _status_name(exc.status_code)
        headers = dict(exc.headers or {})
        return Problem(exc.status_code, name, title, str(exc.detail), headers=headers).response()

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
        problem = Problem(
            422, "invalid-request", "Invalid request", detail, extra={"errors": errors}
        )
        return problem.response()

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        # answered outside the request log's middleware: its id is taken from the request
        rid: str | None = getattr(request.state, "request_id", None)
        with bound(rid):
            log.exception("unexpected error on %s %s", request.method, request.url.path)
            return Problem(
                500,
                "internal-error",
                "Internal server error",
                "an unexpected error; see the log",
                headers={HEADER: rid} if rid else None,
            ).response()

    app.add_exception_handler(Problem, on_problem)
    app.add_exception_handler(LoregraphError, on_engine)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(Exception, on_unexpected)

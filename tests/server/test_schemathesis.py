"""A bounded schemathesis run against the API's own OpenAPI document: for every operation,
requests generated from its schema (valid ones and, separately, ones that break it) are
sent with an administrator's key to a server on loopback, and none may get a server error
(5xx); a JSON response must match the schema the document gives for its status.

Bounded and repeatable: a fixed number of examples per operation and mode, generated
deterministically (the same requests on every run), no example database.

Event streams (``POST /ask``, ``GET /jobs/{id}/events``) are checked for their status only:
their bodies are text/event-stream, which has no JSON schema to match.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import CheckContext, not_a_server_error
from schemathesis.core import NotSet
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from loregraph import AsyncGraph
from loregraph.access import ALL_SCOPES, Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.observe.metrics import Metrics
from loregraph.server import Limits, ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

from .loopback import Served, serving

EXAMPLES = 50
"""Examples per operation and generation mode."""
STREAMS = {("POST", "/ask"), ("GET", "/jobs/{job_id}/events")}
"""Operations answering with an event stream: status checked only."""
MULTIPART = {("POST", "/ingest/upload")}
"""Operations whose body is a form: every field is text on the wire (an "object" or a
"boolean" generated for a field arrives as its JSON text, which the field may hold), so an
invalid request cannot be told from a valid one there; checked for everything but that."""
UNBREAKABLE = {
    ("GET", "/health"),
    ("GET", "/metrics"),
    ("GET", "/scopes"),
    ("GET", "/jobs/{job_id}"),
    ("GET", "/jobs/{job_id}/events"),
}
"""Operations with no request the schema forbids (no parameters, or only a path segment
any text fills): generated for valid requests only, as there are no invalid ones to make."""


def _document() -> dict[str, Any]:
    """The OpenAPI document of the app (built, never served, to list the operations)."""
    graph = AsyncGraph(SqliteStore(Path("unopened.db")), embedder=HashingEmbedder(dim=64))
    return create_app(graph, ServerConfig(metrics=Metrics())).openapi()


DOCUMENT = _document()
OPERATIONS = sorted(
    (method.upper(), path) for path, item in DOCUMENT["paths"].items() for method in item
)
CASES = [
    (mode, method, path)
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    for method, path in OPERATIONS
    if mode is GenerationMode.POSITIVE or (method, path) not in UNBREAKABLE
]


def _list_items(method: str, path: str, name: str) -> dict[str, Any] | None:
    """The item schema of the query parameter ``name`` if it is a list (repeatable)."""
    for parameter in DOCUMENT["paths"][path][method.lower()].get("parameters", []):
        if parameter["name"] == name and parameter["in"] == "query":
            schema = parameter["schema"]
            for option in [schema, *schema.get("anyOf", [])]:
                if option.get("type") == "array":
                    items: dict[str, Any] = option.get("items", {})
                    return items
    return None


_CONSTRAINTS = ("minLength", "maxLength", "pattern", "format", "enum", "const")


def _plain_text(method: str, path: str, name: str) -> bool:
    """Whether the query parameter ``name`` is one unconstrained text (or null): any text
    on the wire is valid for it (the server may still refuse what it cannot read)."""
    for parameter in DOCUMENT["paths"][path][method.lower()].get("parameters", []):
        if parameter["name"] == name and parameter["in"] == "query":
            schema = parameter["schema"]
            options = [schema, *schema.get("anyOf", [])]
            return any(
                option.get("type") == "string" and not any(k in option for k in _CONSTRAINTS)
                for option in options
            )
    return False


def _text_on_the_wire(method: str, path: str, name: str, value: Any) -> bool:
    """Whether whatever was generated for the query parameter ``name`` reaches the server
    as text it may hold: for a list parameter, a single value is a one-item list of text,
    and the items of a list of unconstrained strings are texts whatever type they were
    generated as; for a parameter of unconstrained text, scalars (or a list of them, sent
    as the parameter repeated) are text on the wire ("?source=false")."""
    if isinstance(value, dict):
        return False
    items = _list_items(method, path, name)
    if items is None:
        scalars = value if isinstance(value, list) else [value]
        plain = all(not isinstance(v, (dict, list)) for v in scalars)
        return plain and _plain_text(method, path, name)
    if not isinstance(value, list):
        return True
    return items == {"type": "string"}


def _unsent(value: Any) -> bool:
    """Whether a generated query value is sent as nothing: null, an empty object or list,
    or a list of such."""
    if isinstance(value, list):
        return all(_unsent(item) for item in value)
    return value is None or value == {}


def invalid_requests_refused(ctx: CheckContext, response: Any, case: Any) -> bool | None:
    """schemathesis's ``negative_data_rejection``, less two cases it cannot judge: a single
    value given for a list in the query string (``?type=false``) is a one-item list of text
    on the wire, valid whatever "wrong type" was generated for it (whether it shows depends
    on what earlier examples stored), as are the items of a list of plain strings
    (``?tag=1835713578765058``); and a query parameter generated as a value that is
    sent as nothing (``null``, ``{}``, ``[{}]``) is not on the wire at all."""
    try:
        return negative_data_rejection(ctx, response, case)
    except AcceptedNegativeData:
        mutations = getattr(case.meta.phase.data, "mutations", ())
        method, path = case.operation.method.upper(), case.operation.path
        query = case.query or {}
        if mutations and all(
            m.parameter_location.name == "QUERY"
            and m.parameter is not None
            and (
                (m.parameter in query and _unsent(query[m.parameter]))
                or _text_on_the_wire(method, path, m.parameter, query.get(m.parameter))
            )
            for m in mutations
        ):
            return None
        if _only_text_sent(case) or _valid_on_the_wire(case, response):
            return None
        raise


def _only_text_sent(case: Any) -> bool:
    """Whether the request as sent is valid whatever was generated: no body, no path
    parameters, and each query parameter is text on the wire that its schema takes
    (:func:`_text_on_the_wire`, or sent as nothing). The mutation a failure names does not
    always say which parameter it changed, so this reads the request itself."""
    method, path = case.operation.method.upper(), case.operation.path
    if not isinstance(case.body, (NotSet, type(None))) or case.path_parameters:
        return False
    query = case.query or {}
    return bool(query) and all(
        _unsent(value) or _text_on_the_wire(method, path, name, value)
        for name, value in query.items()
    )


def _wire_value_fits(schema: dict[str, Any], value: str) -> bool:
    """Whether the text ``value`` of a query string is valid for a parameter ``schema``
    (one of its ``anyOf`` options; a list takes each repeated value as an item)."""
    for option in [schema, *schema.get("anyOf", [])]:
        kind = option.get("type")
        if kind == "array":
            if _wire_value_fits(option.get("items", {}), value):
                return True
        elif kind == "string":
            if "enum" in option and value not in option["enum"]:
                continue
            if len(value) < option.get("minLength", 0):
                continue
            if len(value) > option.get("maxLength", len(value)):
                continue
            if "pattern" in option or "format" in option:
                continue  # not judged here: such a value is left to the check
            return True
        elif kind == "integer":
            try:
                number = int(value)
            except ValueError:
                continue
            if option.get("minimum", number) <= number <= option.get("maximum", number):
                return True
    return False


def _valid_on_the_wire(case: Any, response: Any) -> bool:
    """Whether the request the server received (its URL's query, no body, no path
    parameters) is valid for the operation's schema, whatever was generated for it: a
    generated value the client turns into valid text is no invalid request."""
    if not isinstance(case.body, (NotSet, type(None))) or case.path_parameters:
        return False
    method, path = case.operation.method.upper(), case.operation.path
    declared = {
        p["name"]: p["schema"]
        for p in DOCUMENT["paths"][path][method.lower()].get("parameters", [])
        if p["in"] == "query"
    }
    sent = parse_qsl(urlsplit(str(response.request.url)).query, keep_blank_values=True)
    return bool(sent) and all(
        name in declared and _wire_value_fits(declared[name], value) for name, value in sent
    )


class Running:
    """The served app, its key, and the schema loaded from its ``/openapi.json``."""

    def __init__(self, served: Served, key: str) -> None:
        self.served = served
        self.key = key
        self.schema = schemathesis.openapi.from_url(served.url + "/openapi.json")
        # every request carries the test's key: the key scheme the document declares is
        # neither generated nor broken (a request without a key is tests/server/test_auth's)
        self.schema.config.generation.update(with_security_parameters=False)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("fuzzed")
    roots = folder / "files"
    roots.mkdir()
    (roots / "note.txt").write_text("Lucy Westenra walked in Whitby with Mina Murray.\n")
    secret: list[str] = []

    async def setup(graph: AsyncGraph) -> ServerConfig:
        made = await graph.access.create_key("fuzzer", {ALL_SCOPES: Role.ADMIN})
        secret.append(made.secret)
        await graph.memories.remember("Mina Harker moved to Exeter.", tags=["moves"])
        limits = Limits(request_timeout=20, max_ingest_jobs=50)
        return ServerConfig(limits=limits, metrics=Metrics(), ingest_roots=[roots])

    with serving(folder / "fuzzed.db", setup) as served:
        yield Running(served, secret[0])


@pytest.mark.parametrize(
    ("mode", "method", "path"), CASES, ids=[f"{m.value} {o} {p}" for m, o, p in CASES]
)
def test_no_generated_request_gets_a_server_error(
    running: Running, mode: GenerationMode, method: str, path: str
) -> None:
    operation = running.schema[path][method]
    checks = [not_a_server_error, status_code_conformance]
    if (method, path) not in MULTIPART:
        checks.append(invalid_requests_refused)
    if (method, path) not in STREAMS:
        checks += [content_type_conformance, response_schema_conformance]
    headers = {"Authorization": f"Bearer {running.key}"}

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            base_url=running.served.url, headers=headers, checks=checks, timeout=30
        )

    check()

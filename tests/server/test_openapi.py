"""The API's description and framing: every endpoint in /openapi.json with typed models,
CORS only when configured, other applications mounted next to the API."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from loregraph import AsyncGraph
from loregraph.server import Mount, ServerConfig, create_app

from .conftest import Client

ENDPOINTS = {
    ("post", "/ask"),
    ("post", "/ask/json"),
    ("post", "/context"),
    ("get", "/search"),
    ("get", "/entities"),
    ("get", "/entity"),
    ("get", "/relations"),
    ("get", "/neighbors"),
    ("get", "/path"),
    ("get", "/impact"),
    ("get", "/code"),
    ("get", "/history"),
    ("get", "/merges"),
    ("post", "/merges/{merge_id}/undo"),
    ("post", "/merge"),
    ("post", "/rename"),
    ("post", "/retype"),
    ("get", "/audit"),
    ("post", "/memories"),
    ("get", "/memories"),
    ("delete", "/memories/{memory_id}"),
    ("post", "/ingest"),
    ("post", "/ingest/upload"),
    ("post", "/ingest/paths"),
    ("post", "/backfill"),
    ("get", "/jobs/{job_id}"),
    ("get", "/jobs/{job_id}/events"),
    ("delete", "/documents/{ref}"),
    ("get", "/documents"),
    ("get", "/passages/{passage_id}"),
    ("get", "/suggest"),
    ("get", "/stats"),
    ("get", "/scopes"),
    ("get", "/export"),
}


async def test_openapi_lists_every_endpoint_with_typed_models(client: Client) -> None:
    async with client() as http:
        document = (await http.get("/openapi.json")).json()
    listed = {(method, path) for path, item in document["paths"].items() for method in item}
    assert listed >= ENDPOINTS
    schemas = document["components"]["schemas"]
    assert {"AskRequest", "AnswerOut", "Citation", "EntityViewOut", "JobOut"} <= set(schemas)
    assert {"HistoryOut", "MergeOut", "AuditEntryOut", "MergeRequest", "RetypeRequest"} <= set(
        schemas
    )
    undo = document["paths"]["/merges/{merge_id}/undo"]["post"]["responses"]["200"]
    assert undo["content"]["application/json"]["schema"]["$ref"].endswith("/MergeOut")
    answer = document["paths"]["/ask/json"]["post"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"]["$ref"].endswith("/AnswerOut")
    stream = document["paths"]["/ask"]["post"]["responses"]["200"]["content"]
    assert "text/event-stream" in stream
    relations = document["paths"]["/relations"]["get"]["parameters"]
    assert "as_of" in {p["name"] for p in relations}
    assert set(schemas["ContextRequest"]["properties"]) >= {
        "question",
        "format",
        "budget",
        "preset",
    }


async def test_the_description_speaks_the_words_users_read(client: Client) -> None:
    """Fields, values and their descriptions say "start entity" (one the question is about,
    where the graph walk starts), never the internal word "seed"."""
    async with client() as http:
        text = (await http.get("/openapi.json")).text
    assert "seed" not in text.lower()
    assert '"start_found_by"' in text


async def test_errors_are_described_as_the_problem_details_they_are(client: Client) -> None:
    async with client() as http:
        document = (await http.get("/openapi.json")).json()
    assert "HTTPValidationError" not in document["components"]["schemas"]
    assert document["components"]["schemas"]["Problem"]["required"] == [
        "type",
        "title",
        "status",
        "detail",
    ]
    for item in document["paths"].values():
        for operation in item.values():
            responses = operation["responses"]
            assert "422" not in responses
            for status in ("4XX", "5XX"):
                content = responses[status]["content"]
                assert list(content) == ["application/problem+json"]
                assert content["application/problem+json"]["schema"]["$ref"].endswith("/Problem")


async def test_cors_is_off_unless_origins_are_given(client: Client) -> None:
    preflight = {
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization",
    }
    async with client(auth=False) as http:
        response = await http.options("/ask/json", headers=preflight)
        assert "access-control-allow-origin" not in response.headers
    async with client(auth=False, allowed_origins=["https://app.example"]) as http:
        response = await http.options("/ask/json", headers=preflight)
        assert response.headers["access-control-allow-origin"] == "https://app.example"
        other = await http.options(
            "/ask/json", headers={**preflight, "Origin": "https://x.example"}
        )
        assert "access-control-allow-origin" not in other.headers


def _hello(name: str) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse(name)(scope, receive, send)

    return app


async def test_other_applications_mount_next_to_the_api(client: Client) -> None:
    mounts = [Mount("/mcp", _hello("mcp")), Mount("/", _hello("static"))]
    async with client(auth=False, mounts=mounts) as http:
        assert (await http.get("/mcp/")).text == "mcp"
        assert (await http.get("/index.html")).text == "static"
        assert (await http.get("/stats")).json()["documents"] == 2  # the API's routes win


async def test_no_page_that_loads_scripts_from_the_network(client: Client) -> None:
    async with client(auth=False) as http:
        assert (await http.get("/redoc")).status_code == 404
        docs = await http.get("/docs")  # made on the server: tests/server/test_docs.py
        assert docs.status_code == 200 and "<script" not in docs.text


async def test_a_mounted_application_runs_while_the_server_runs(graph: AsyncGraph) -> None:
    running: list[str] = []

    @asynccontextmanager
    async def session() -> AsyncIterator[None]:
        running.append("started")
        yield
        running.append("stopped")

    mount = Mount("/mcp", _hello("mcp"), lifespan=session)
    app = create_app(graph, ServerConfig(auth=False, mounts=[mount]))
    async with app.router.lifespan_context(app):
        assert running == ["started"]
    assert running == ["started", "stopped"]

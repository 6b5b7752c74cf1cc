"""The OpenAPI document declares the key scheme and which operations need a key; ``/docs``
is a documentation page that works offline (no script, nothing from the network) and
leaves the explorer at ``/`` alone."""

from __future__ import annotations

import re

from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from loregraph.server import Mount

from .conftest import Client, Keys


async def test_the_document_declares_the_bearer_key_scheme(client: Client) -> None:
    async with client() as http:
        document = (await http.get("/openapi.json")).json()
    scheme = document["components"]["securitySchemes"]["apiKey"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    paths = document["paths"]
    assert paths["/health"]["get"]["security"] == []
    for path, method in [("/search", "get"), ("/ingest/upload", "post"), ("/audit", "get"),
                         ("/jobs/{job_id}", "get"), ("/documents/{ref}", "delete"),
                         ("/metrics", "get")]:  # fmt: skip
        assert paths[path][method]["security"] == [{"apiKey": []}], path
    every = [op for item in paths.values() for op in item.values()]
    assert all("security" in op for op in every)
    async with client(auth=False) as http:  # no keys: none declared
        open_document = (await http.get("/openapi.json")).json()
    assert "securitySchemes" not in open_document["components"]


async def test_docs_is_a_page_that_needs_no_network(client: Client, keys: Keys) -> None:
    async with client() as http:  # no key needed to read it
        response = await http.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert "<script" not in page and "@import" not in page
    assert not re.search(r"(?:src|href)=['\"]?(?:https?:)?//", page)  # nothing fetched
    shown_names = ("/search", "/ingest/upload", "/memories/{memory_id}", "<code>question</code>")
    for shown in (*shown_names, "Bearer", "(key needed)"):
        assert shown in page, shown
    assert "openapi.json" in page


async def _explorer(scope: Scope, receive: Receive, send: Send) -> None:
    await PlainTextResponse("explorer")(scope, receive, send)


async def test_docs_and_the_explorer_live_side_by_side(client: Client) -> None:
    async with client(auth=False, mounts=[Mount("/", _explorer)]) as http:
        assert (await http.get("/")).text == "explorer"
        assert (await http.get("/index.html")).text == "explorer"
        assert "<h1>" in (await http.get("/docs")).text

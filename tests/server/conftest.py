"""A small store behind the HTTP API, keys for it, and clients over ASGI (no socket)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from loregraph import AsyncGraph
from loregraph.access import ALL_SCOPES, Role
from loregraph.embed.hashing import HashingEmbedder
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore

TEXT = (
    "Jonathan Harker travelled to Transylvania to meet Count Dracula. "
    "Count Dracula lived in a castle in the Carpathian Mountains. "
    "Mina Harker was the wife of Jonathan Harker. Mina Harker wrote letters to Lucy Westenra."
)


@dataclass
class Keys:
    """The secrets of the keys the tests use."""

    writer: str
    reader: str
    other: str
    admin: str
    revoked: str


@pytest.fixture()
async def graph(tmp_path: Path) -> AsyncIterator[AsyncGraph]:
    """An engine over a fresh SQLite store holding one document and one memory."""
    graph = AsyncGraph(SqliteStore(tmp_path / "served.db"), embedder=HashingEmbedder(dim=64))
    await graph.open()
    await graph.ingest_text(TEXT, title="Harker notes", source="notes")
    await graph.memories.remember("Mina Harker moved to Exeter.", tags=["moves"])
    try:
        yield graph
    finally:
        await graph.close()


@pytest.fixture()
async def keys(graph: AsyncGraph) -> Keys:
    """Keys: a writer and a reader of the default scope, one for another scope only, an
    administrator of every scope and a revoked key."""
    made = {
        "writer": await graph.access.create_key("writer", {"default": Role.WRITER}),
        "reader": await graph.access.create_key("reader", {"default": Role.READER}),
        "other": await graph.access.create_key("other", {"elsewhere": Role.ADMIN}),
        "admin": await graph.access.create_key("admin", {ALL_SCOPES: Role.ADMIN}),
        "revoked": await graph.access.create_key("revoked", {"default": Role.ADMIN}),
    }
    await graph.access.revoke_key("revoked")
    return Keys(**{name: new.secret for name, new in made.items()})


Client = Callable[..., httpx.AsyncClient]


@pytest.fixture()
def client(graph: AsyncGraph) -> Client:
    """``client(key=None, **config)``: an HTTP client of an app over ``graph`` (keys
    required unless ``auth=False``; ``limits=Limits(...)`` to change the limits)."""

    def make(key: str | None = None, **config: object) -> httpx.AsyncClient:
        app = create_app(graph, ServerConfig(**config))  # type: ignore[arg-type]
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        transport = httpx.ASGITransport(app=app)
        return httpx.AsyncClient(transport=transport, base_url="http://localhost", headers=headers)

    return make


def events(text: str) -> list[tuple[str, Any]]:
    """The ``(event, data)`` pairs of a server-sent event stream (pings left out)."""
    found: list[tuple[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        kind, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            found.append((kind, json.loads("\n".join(data))))
    return found


def problem(response: httpx.Response, status: int, name: str) -> dict[str, Any]:
    """The problem detail of ``response``, checked to be ``status`` and named ``name``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"urn:loregraph:problem:{name}"
    assert body["status"] == status and body["title"] and body["detail"]
    return body

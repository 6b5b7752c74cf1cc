"""Bad input over HTTP: each request gets the status that names its problem and leaves the
store exactly as it was (counts, documents and the exported graph compared).

Here: broken multipart bodies, binary and empty uploads, writes with an unknown or revoked
key, and times given as numbers. Elsewhere: a client that goes away mid-answer
(test_questions), oversized bodies and unreadable text (test_writes), a client that stops
reading (test_slow_reader).
"""

from __future__ import annotations

from typing import Any

import pytest

from loregraph import AsyncGraph

from .conftest import Client, Keys, events, problem
from .unchanged import snapshot

PART = 'Content-Disposition: form-data; name="files"; filename="harker.txt"'
TEXT = b"Jonathan Harker travelled to Whitby with Arthur Holmwood."
MULTIPART = "multipart/form-data; boundary=xyz"
BROKEN_MULTIPART: list[tuple[str, bytes, str, int, str]] = [
    ("no part headers", b"--xyz\r\nnot a part", MULTIPART, 400, "bad-request"),
    (
        "a header without a colon",
        b"--xyz\r\nno-colon-header\r\n\r\n" + TEXT + b"\r\n--xyz--\r\n",
        MULTIPART,
        400,
        "bad-request",
    ),
    (
        "another boundary",
        b"--abc\r\n" + PART.encode() + b"\r\n\r\n" + TEXT + b"\r\n--abc--\r\n",
        MULTIPART,
        400,
        "bad-request",
    ),
    ("no boundary", b"--xyz\r\n\r\n" + TEXT, "multipart/form-data", 400, "bad-request"),
    (
        "cut before its end",
        b"--xyz\r\n" + PART.encode() + b"\r\n\r\n" + TEXT,
        MULTIPART,
        422,
        "invalid-request",
    ),
    (
        "JSON instead",
        b'{"files": ["harker.txt"]}',
        "application/json",
        415,
        "unsupported-media-type",
    ),
]


@pytest.mark.parametrize(
    ("what", "body", "content_type", "status", "name"),
    BROKEN_MULTIPART,
    ids=[b[0] for b in BROKEN_MULTIPART],
)
async def test_a_broken_multipart_body_is_refused_and_nothing_is_stored(
    client: Client,
    keys: Keys,
    graph: AsyncGraph,
    what: str,
    body: bytes,
    content_type: str,
    status: int,
    name: str,
) -> None:
    before = await snapshot(graph)
    async with client(keys.writer) as http:
        sent = await http.post(
            "/ingest/upload", content=body, headers={"Content-Type": content_type}
        )
        problem(sent, status, name)
    assert await snapshot(graph) == before


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
UNREADABLE: list[tuple[str, Any, str]] = [
    ("an image", {"files": ("castle.png", PNG)}, "binary"),
    ("binary without a name", {"files": ("blob", bytes(range(256)) * 8)}, "binary"),
    ("an empty file", {"files": ("empty.txt", b"")}, "no words"),
    ("an empty Markdown file", {"files": ("empty.md", b"")}, "no words"),
]


@pytest.mark.parametrize(("what", "files", "said"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
async def test_a_binary_or_empty_upload_is_refused_and_nothing_is_stored(
    client: Client, keys: Keys, graph: AsyncGraph, what: str, files: Any, said: str
) -> None:
    before = await snapshot(graph)
    async with client(keys.writer) as http:
        body = problem(await http.post("/ingest/upload", files=files), 422, "invalid-input")
        assert said in body["detail"] and files["files"][0] in body["detail"]
        assert await snapshot(graph) == before
        # one bad file among good ones: it is skipped and reported, as ingest skips it in
        # a folder, and the good one is ingested
        both = [("files", ("good.txt", TEXT)), ("files", files["files"])]
        job = (await http.post("/ingest/upload", files=both)).json()
        report = events((await http.get(job["events"])).text)[-1][1]["report"]
    assert report["ingested"] == 1
    assert [s["where"] for s in report["skipped_inputs"]] == [files["files"][0]]
    assert said in report["skipped_inputs"][0]["why"]


async def test_writes_with_an_unknown_or_revoked_key_are_401_and_store_nothing(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    before = await snapshot(graph)
    for secret in ("lg_not-a-key", keys.revoked, keys.writer + "x", ""):
        async with client(secret or None) as http:
            writes = [
                await http.post("/memories", json={"text": "Arthur Holmwood left."}),
                await http.post("/ingest", json={"text": "Quincey Morris rode west."}),
                await http.post("/ingest/upload", files={"files": ("a.txt", TEXT)}),
                await http.delete("/documents/notes"),
                await http.post("/ask", json={"question": "Who is Jonathan Harker?"}),
            ]
            memories = (await http.get("/memories")) if secret else None
            for response in [*writes, *([memories] if memories else [])]:
                problem(response, 401, "unauthorized")
    assert await snapshot(graph) == before


NUMBERS_AS_TIMES: list[tuple[str, str, dict[str, Any]]] = [
    ("get", "/search", {"params": {"q": "Dracula", "as_of": "0"}}),
    ("get", "/neighbors", {"params": {"name": "Count Dracula", "as_of": "0.025"}}),
    ("get", "/relations", {"params": {"name": "Count Dracula", "as_of": "1e9"}}),
    ("get", "/memories", {"params": {"since": "0"}}),
    ("post", "/ask/json", {"json": {"question": "Where?", "as_of": 0}}),
    ("post", "/context", {"json": {"question": "Where?", "as_of": "1700000000"}}),
    ("post", "/memories", {"json": {"text": "Lucy slept.", "at": 1.5}}),
]


async def test_a_number_is_not_taken_for_a_time(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    before = await snapshot(graph)
    async with client(keys.writer) as http:
        for method, path, request in NUMBERS_AS_TIMES:
            body = problem(await http.request(method, path, **request), 422, "invalid-request")
            assert "ISO 8601" in body["detail"], path
        assert await snapshot(graph) == before
        iso = {"q": "Dracula", "as_of": "2026-01-01T00:00:00Z"}
        assert (await http.get("/search", params=iso)).status_code == 200
        dated = {"text": "Lucy slept.", "at": "2025-06-01"}
        assert (await http.post("/memories", json=dated)).status_code == 201

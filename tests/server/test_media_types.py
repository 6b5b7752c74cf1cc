"""A body of the wrong media type is refused with 415 (a problem detail naming the type
the route reads), before it is read, and nothing is stored."""

from __future__ import annotations

from loregraph import AsyncGraph

from .conftest import Client, Keys, problem
from .unchanged import snapshot

BODY = b'{"text": "Lucy Westenra slept in Whitby."}'


async def test_a_body_of_the_wrong_media_type_is_415(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    before = await snapshot(graph)
    async with client(keys.writer) as http:
        plain = await http.post("/memories", content=BODY, headers={"Content-Type": "text/plain"})
        detail = problem(plain, 415, "unsupported-media-type")["detail"]
        assert "application/json" in detail and "text/plain" in detail
        form = await http.post("/ask/json", data={"question": "Who is Lucy?"})
        problem(form, 415, "unsupported-media-type")
        upload = await http.post("/ingest/upload", json={"files": "note.txt"})
        assert "multipart/form-data" in problem(upload, 415, "unsupported-media-type")["detail"]
        assert await snapshot(graph) == before
        typed = {"Content-Type": "application/json; charset=utf-8"}
        assert (await http.post("/memories", content=BODY, headers=typed)).status_code == 201
        problem_json = {"Content-Type": "application/vnd.api+json"}
        assert (await http.post("/memories", content=BODY, headers=problem_json)).is_success
        untyped = await http.post("/memories", content=b"", headers={})
        problem(untyped, 422, "invalid-request")  # no body at all: the missing fields

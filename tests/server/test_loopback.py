"""The API over a real socket: uvicorn on a free loopback port, as `loregraph serve` runs
it, asked for its OpenAPI document and a streamed answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import events
from .loopback import Served, serving, without_keys


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path / "served.db", without_keys) as running:
        yield running


def test_openapi_and_a_streamed_answer_over_loopback(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        document = http.get("/openapi.json").json()
        assert {"/ask", "/ask/json", "/context", "/search", "/entity", "/path"} <= set(
            document["paths"]
        )
        question = {"question": "Where did Count Dracula live?"}
        with http.stream("POST", "/ask", json=question) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            text = "".join(response.iter_text())
    stream = events(text)
    assert stream[0][0] == "status" and stream[-1][0] == "answer"
    assert stream[-1][1]["citations"][0]["document_title"] == "Harker notes"

"""The server refuses web pages of other origins and hosts it does not answer to: over a real
socket, as `loregraph serve --no-auth` runs (the attacks a page the user visits can make),
and through the app for what a configuration allows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from loregraph.errors import ConfigError
from loregraph.server import ServerConfig
from loregraph.server.origins import accepted_hosts

from .conftest import Client, events, problem
from .loopback import Served, serving, without_keys

EVIL = "https://evil.example.com"
PLANTED = "Zanzibar ledger: the vault code is 4471."
UPLOAD = {"files": ("evil.txt", PLANTED.encode())}


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path / "served.db", without_keys) as running:
        yield running


def _documents(http: httpx.Client) -> int:
    count: int = http.get("/stats").json()["documents"]
    return count


def test_a_page_of_another_origin_cannot_write(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        # a multipart POST is a "simple" request: a browser sends it without asking first
        upload = http.post("/ingest/upload", files=UPLOAD, headers={"Origin": EVIL})
        assert EVIL in problem(upload, 403, "forbidden")["detail"]
        memory = {"text": PLANTED}
        problem(http.post("/memories", json=memory, headers={"Origin": EVIL}), 403, "forbidden")
        # another port of this machine is another origin; a sandboxed page sends "null"
        for origin in ("http://127.0.0.1:5173", "null"):
            refused = http.post("/memories", json=memory, headers={"Origin": origin})
            problem(refused, 403, "forbidden")
        # a browser that leaves Origin out still says where the request comes from
        sneaky = http.post("/memories", json=memory, headers={"Sec-Fetch-Site": "cross-site"})
        problem(sneaky, 403, "forbidden")
        assert http.delete("/memories/mem_x", headers={"Origin": EVIL}).status_code == 403
        assert _documents(http) == 1
        hits = http.get("/search", params={"q": "Zanzibar vault code"}).json()["hits"]
        assert all("evil" not in hit["title"] for hit in hits)
        assert http.get("/memories").json() == []


def test_the_same_request_from_the_servers_own_page_is_served(served: Served) -> None:
    own = {"Origin": served.url, "Sec-Fetch-Site": "same-origin"}
    with httpx.Client(base_url=served.url, timeout=30) as http:
        upload = http.post("/ingest/upload", files=UPLOAD, headers=own)
        assert upload.status_code == 202, upload.text
        stream = events(http.get(upload.json()["events"]).text)
        assert stream[-1][0] == "done"
        assert _documents(http) == 2
        hits = http.get("/search", params={"q": "Zanzibar vault code"}).json()["hits"]
        assert "evil" in hits[0]["title"]
        # by the name localhost too, and from a client that is not a browser (no Origin)
        port = served.url.rsplit(":", 1)[1]
        local = {"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}"}
        assert http.post("/memories", json={"text": "Mina"}, headers=local).status_code == 201
        assert http.post("/memories", json={"text": "Lucy"}).status_code == 201


def test_a_host_the_server_does_not_answer_to_is_refused(served: Served) -> None:
    port = served.url.rsplit(":", 1)[1]
    # DNS rebinding: the attacker's name now points at 127.0.0.1, but the browser still
    # sends it as the Host of the page's own (same-origin) requests
    rebound = {"Host": f"evil.example.com:{port}", "Origin": f"http://evil.example.com:{port}"}
    with httpx.Client(base_url=served.url, timeout=30) as http:
        read = http.get("/search", params={"q": "Dracula"}, headers=rebound)
        assert "evil.example.com" in problem(read, 421, "unknown-host")["detail"]
        problem(http.get("/stats", headers=rebound), 421, "unknown-host")
        problem(http.get("/", headers=rebound), 421, "unknown-host")
        write = http.post("/ingest/upload", files=UPLOAD, headers=rebound)
        problem(write, 421, "unknown-host")
        assert _documents(http) == 1
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "[::1]"):
            assert http.get("/stats", headers={"Host": host}).status_code == 200, host


async def test_an_allowed_origin_may_write_and_gets_cors_headers(client: Client) -> None:
    app = "https://app.example.com"
    async with client(auth=False, allowed_origins=[app + "/"]) as http:
        remembered = await http.post("/memories", json={"text": "Mina"}, headers={"Origin": app})
        assert remembered.status_code == 201
        assert remembered.headers["access-control-allow-origin"] == app
        preflight = await http.options(
            "/memories",
            headers={
                "Origin": app,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,mcp-session-id",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == app
        evil = await http.post("/memories", json={"text": "x"}, headers={"Origin": EVIL})
        problem(evil, 403, "forbidden")
        assert "access-control-allow-origin" not in evil.headers
        read = await http.get("/stats", headers={"Origin": EVIL})
        assert read.status_code == 200 and "access-control-allow-origin" not in read.headers


async def test_an_allowed_host_is_answered(client: Client) -> None:
    async with client(auth=False, allowed_hosts=["LoreGraph.example.com"]) as http:
        named = {"Host": "loregraph.example.com", "Origin": "https://loregraph.example.com"}
        assert (await http.get("/stats", headers=named)).status_code == 200
        assert (await http.post("/memories", json={"text": "x"}, headers=named)).status_code == 201
        problem(
            await http.get("/stats", headers={"Host": "other.example.com"}), 421, "unknown-host"
        )


def test_the_hosts_a_server_answers_to_follow_its_address() -> None:
    assert accepted_hosts("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert accepted_hosts("::1") == {"127.0.0.1", "localhost", "::1"}
    lan = accepted_hosts("192.168.1.20", ["box.lan"])
    assert lan == {"192.168.1.20", "localhost", "box.lan"}
    everywhere = accepted_hosts("0.0.0.0", ["box.lan", "10.0.0.7"])
    assert everywhere == {"localhost", "127.0.0.1", "::1", "box.lan", "10.0.0.7"}
    assert "0.0.0.0" not in everywhere


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("allowed_origins", "app.example.com"),
        ("allowed_origins", "https://app.example.com/path"),
        ("allowed_origins", "*"),
        ("allowed_hosts", "https://app.example.com/"),
        ("allowed_hosts", " "),
    ],
)
def test_what_is_not_an_origin_or_a_host_is_refused(option: str, value: str) -> None:
    settings: dict[str, Any] = {option: [value]}
    with pytest.raises(ConfigError, match=r"is not an? "):
        ServerConfig(**settings)

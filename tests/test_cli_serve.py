"""``loregraph keys`` and ``loregraph serve`` on the command line."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from loregraph.cli.app import main
from loregraph.store.base import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parent.parent


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args])


def test_keys_create_list_revoke(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    made = run(db, "keys", "create", "ci", "--role", "writer", "--scope", "team")
    assert made.exit_code == 0, made.output
    secret = made.stdout.strip()
    assert secret.startswith("lg_") and len(secret) > 40 and "shown only now" in made.stderr
    stored = sqlite3.connect(db).execute("SELECT value FROM ledger WHERE kind = 'api_key'")
    [key] = [json.loads(value) for (value,) in stored]
    assert (key["name"], key["roles"]) == ("ci", {"team": "writer"})
    assert key["key_hash"] == hashlib.sha256(secret.encode()).hexdigest()
    assert secret.encode() not in db.read_bytes()
    default = run(db, "--scope", "work", "keys", "create", "bot", "--json")
    assert json.loads(default.stdout)["roles"] == {"work": "reader"}
    listed = json.loads(run(db, "keys", "list", "--json").stdout)
    assert [k["name"] for k in listed] == ["ci", "bot"]
    assert all("key" not in k and "key_hash" not in k for k in listed)
    again = run(db, "keys", "create", "ci")
    assert again.exit_code == 2 and "exists already" in again.stderr
    assert run(db, "keys", "revoke", "ci").exit_code == 0
    assert "revoked" in run(db, "keys", "list").stdout
    assert run(db, "keys", "revoke", "nobody").exit_code == 5


def test_serve_refuses_no_auth_off_loopback(tmp_path: Path) -> None:
    result = run(tmp_path / "s.db", "serve", "--no-auth", "--host", "0.0.0.0")
    assert result.exit_code == 2 and "loopback" in result.stderr
    assert not (tmp_path / "s.db").exists()


def test_serve_refuses_an_origin_that_is_not_one(tmp_path: Path) -> None:
    result = run(tmp_path / "s.db", "serve", "--no-auth", "--allowed-origin", "example.com")
    assert result.exit_code == 2 and "'example.com' is not an origin" in result.stderr
    assert not (tmp_path / "s.db").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Serving:
    """``loregraph [global] serve [options]`` on a free loopback port, started and
    answering; ``stderr`` holds what it wrote once it is stopped."""

    def __init__(
        self,
        db: Path,
        options: list[str],
        global_options: list[str],
        env: dict[str, str] | None = None,
    ) -> None:
        port = _free_port()
        self.port = port
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
        command = [sys.executable, "-m", "loregraph.cli", "--db", str(db), *global_options]
        self.url = f"http://127.0.0.1:{port}"
        self.server = subprocess.Popen(
            [*command, "serve", "--port", str(port), *options],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr = ""

    def __enter__(self) -> Serving:
        for _ in range(600):
            try:
                httpx.get(self.url + "/health", timeout=1)
                return self
            except httpx.TransportError:
                assert self.server.poll() is None, self.server.communicate()[1]
                time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.terminate()
        self.stderr = self.server.communicate(timeout=30)[1]


@pytest.mark.slow
def test_serve_answers_with_a_key(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    secret = run(db, "keys", "create", "ci").stdout.strip()
    with Serving(db, [], ["-q"]) as served:
        url = served.url
        assert httpx.get(url + "/stats").status_code == 401
        headers = {"Authorization": f"Bearer {secret}"}
        stats = httpx.get(url + "/stats", headers=headers).json()
        assert stats["documents"] == 0 and stats["schema_version"] == SCHEMA_VERSION
        # the MCP endpoint is reached (not the explorer's files at /) and wants a key
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert httpx.post(url + "/mcp", json=listing).status_code == 401
        assert httpx.get(url + "/").status_code == 200


@pytest.mark.slow
def test_serve_writes_json_request_lines_on_stderr(tmp_path: Path) -> None:
    options = ["--no-auth", "--no-mcp", "--log-format", "json"]
    with Serving(tmp_path / "l.db", options, []) as served:
        response = httpx.get(served.url + "/stats", headers={"X-Request-ID": "cli-1"})
        assert response.headers["x-request-id"] == "cli-1"
    lines = [json.loads(line) for line in served.stderr.splitlines()]
    logged = [line for line in lines if line.get("request_id") == "cli-1"]
    assert [(line["logger"], line["path"], line["status"]) for line in logged] == [
        ("loregraph.http", "/stats", 200)
    ]
    assert logged[0]["principal"] == "local"
    assert any(line["logger"].startswith("uvicorn") for line in lines)


async def _mcp_session(url: str, origin: str) -> list[str]:
    """An agent's session over MCP's streamable HTTP, with the official SDK's client."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Origin": origin}, timeout=30)
    transport = streamable_http_client(url + "/mcp", http_client=http)
    async with http, Client(transport) as client:
        remembered = await client.call_tool("remember", {"text": "Mina went to Whitby."})
        assert not remembered.is_error, remembered.content
        return sorted(t.name for t in (await client.list_tools()).tools)


@pytest.mark.slow
def test_serve_without_keys_refuses_other_pages_and_hosts(tmp_path: Path) -> None:
    app = "https://app.example.com"
    options = ["--no-auth", "--allowed-origin", app]
    env = {"LOREGRAPH_ALLOWED_HOSTS": "loregraph.test lore.test"}
    with Serving(tmp_path / "w.db", options, ["-q"], env) as served:
        url, port = served.url, served.port
        # the explorer's page and MCP work from the server's own origin, without keys
        assert httpx.get(url + "/").status_code == 200
        assert "remember" in asyncio.run(_mcp_session(url, url))
        before = httpx.get(url + "/stats").json()["documents"]
        upload = {"files": ("evil.txt", b"Zanzibar vault code 4471.")}
        evil = {"Origin": "https://evil.example.com"}
        assert httpx.post(url + "/ingest/upload", files=upload, headers=evil).status_code == 403
        rebound = {"Host": f"evil.example.com:{port}"}
        assert httpx.get(url + "/stats", headers=rebound).status_code == 421
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert httpx.post(url + "/mcp", json=listing, headers=rebound).status_code == 421
        assert httpx.get(url + "/stats").json()["documents"] == before
        # what the options and the environment allow
        allowed = httpx.post(url + "/memories", json={"text": "Lucy"}, headers={"Origin": app})
        assert allowed.status_code == 201
        assert allowed.headers["access-control-allow-origin"] == app
        named = {"Host": f"lore.test:{port}"}
        assert httpx.get(url + "/stats", headers=named).status_code == 200


def test_off_loopback_serve_answers_to_the_machines_names() -> None:
    from loregraph.cli.serve import _machine_names

    assert _machine_names("127.0.0.1") == () and _machine_names("localhost") == ()
    assert socket.gethostname() in _machine_names("0.0.0.0")

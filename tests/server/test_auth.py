"""Keys and principals over HTTP: 401 without a valid key, 403 outside its scopes or role,
the principal reaching the engine, and --no-auth on loopback only."""

from __future__ import annotations

from typing import Any

import pytest

from loregraph import AsyncGraph
from loregraph.access import LOCAL, Principal, Role
from loregraph.errors import ConfigError
from loregraph.server.auth import check_no_auth, is_loopback

from .conftest import Client, Keys, problem


async def test_a_request_without_a_key_is_401(client: Client) -> None:
    async with client() as http:
        body = problem(await http.get("/stats"), 401, "unauthorized")
        assert "Bearer" in body["detail"]
        response = await http.get("/stats", headers={"Authorization": "Basic abc"})
        assert response.headers["www-authenticate"] == "Bearer"
        problem(response, 401, "unauthorized")
        assert (await http.get("/health")).json() == {"status": "ok"}


async def test_unknown_and_revoked_keys_are_401(client: Client, keys: Keys) -> None:
    for secret in ("lg_not-a-key", keys.revoked, keys.writer + "x"):
        async with client(secret) as http:
            problem(await http.get("/stats"), 401, "unauthorized")
            problem(await http.post("/ask/json", json={"question": "Who?"}), 401, "unauthorized")


async def test_a_key_sees_only_its_scopes(client: Client, keys: Keys) -> None:
    async with client(keys.other) as http:
        body = problem(await http.get("/stats"), 403, "forbidden")
        assert "'default'" in body["detail"]
        problem(await http.get("/entity", params={"name": "Mina Harker"}), 403, "forbidden")
        problem(await http.post("/ask", json={"question": "Who?"}), 403, "forbidden")
        assert (await http.get("/stats", params={"scope": "elsewhere"})).json()["documents"] == 0
        assert (await http.get("/scopes")).json() == {}
    async with client(keys.reader) as http:
        assert (await http.get("/stats")).json()["documents"] == 2
        problem(await http.get("/stats", params={"scope": "elsewhere"}), 403, "forbidden")
        assert list((await http.get("/scopes")).json()) == ["default"]
    async with client(keys.admin) as http:
        assert (await http.get("/stats", params={"scope": "anything"})).status_code == 200


async def test_a_reader_may_not_write(client: Client, keys: Keys, graph: AsyncGraph) -> None:
    before = await graph.stats()
    async with client(keys.reader) as http:
        problem(await http.post("/memories", json={"text": "Arthur left."}), 403, "forbidden")
        problem(await http.post("/ingest", json={"text": "Arthur left."}), 403, "forbidden")
        problem(await http.delete("/documents/notes"), 403, "forbidden")
    async with client(keys.writer) as http:
        assert (await http.post("/memories", json={"text": "Arthur left."})).status_code == 201
    assert (await graph.stats()).documents == before.documents + 1


async def test_the_principal_reaches_the_engine(
    client: Client, keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Principal | None] = []
    stats = AsyncGraph.stats

    async def watched(self: AsyncGraph, **kwargs: Any) -> Any:
        seen.append(self.principal)
        return await stats(self, **kwargs)

    monkeypatch.setattr(AsyncGraph, "stats", watched)
    async with client(keys.reader) as http:
        assert (await http.get("/stats")).status_code == 200
    async with client(auth=False) as http:
        assert (await http.get("/stats")).status_code == 200
    assert seen == [Principal("reader", {"default": Role.READER}), LOCAL]
    assert graph.principal is None  # the server's engine itself acts for nobody


async def test_without_auth_every_request_is_the_local_administrator(client: Client) -> None:
    async with client(auth=False) as http:
        assert (await http.get("/stats", params={"scope": "other"})).status_code == 200
        response = await http.post("/memories", json={"text": "Quincey Morris rode west."})
        assert response.status_code == 201


def test_no_auth_is_for_loopback_hosts_only() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"):
        assert is_loopback(host)
        check_no_auth(host)
    for host in ("0.0.0.0", "::", "192.168.1.4", "example.com", ""):
        assert not is_loopback(host)
        with pytest.raises(ConfigError, match="loopback"):
            check_no_auth(host)

"""Who may read what the API writes: ``visibility`` and ``owner`` of ingested documents and
remembered memories, and the grants a key's principal gets from its name."""

from __future__ import annotations

from typing import Any

import pytest

from loregraph import AsyncGraph
from loregraph.access import Principal, Role

from .conftest import Client, Keys, events, problem


async def _documents(graph: AsyncGraph) -> dict[str, tuple[str, str | None]]:
    return {d.title: (d.visibility, d.owner) for d in await graph.documents()}


async def test_a_memory_keeps_its_visibility_and_a_personal_one_its_key(
    client: Client, keys: Keys
) -> None:
    async with client(keys.writer) as http:
        mine = await http.post("/memories", json={"text": "Mina hid the diary.",
                                                  "visibility": "personal"})  # fmt: skip
        assert mine.status_code == 201
        assert (mine.json()["visibility"], mine.json()["owner"]) == ("personal", "writer")
        body = {"text": "Lucy wrote to Mina.", "visibility": "private", "owner": "lucy"}
        refused = await http.post("/memories", json=body)  # someone else's: admins only
        assert refused.status_code == 403 and "owned by 'lucy'" in refused.json()["detail"]
    async with client(keys.admin) as http:
        theirs = await http.post("/memories", json=body)
        assert (theirs.json()["visibility"], theirs.json()["owner"]) == ("private", "lucy")
    async with client(keys.writer) as http:
        listed = {m["text"]: m["visibility"] for m in (await http.get("/memories")).json()}
        assert listed["Mina hid the diary."] == "personal"
        problem(
            await http.post("/memories", json={"text": "x", "visibility": "secret"}),
            422,
            "invalid-request",
        )


async def test_ingested_documents_keep_their_visibility(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    async with client(keys.writer) as http:
        body = {"text": "Jonathan Harker kept a journal in Transylvania.", "title": "Journal",
                "visibility": "personal"}  # fmt: skip
        started = await http.post("/ingest", json=body)
        assert started.status_code == 202
        assert events((await http.get(started.json()["events"])).text)[-1][0] == "done"
        files = {"files": ("ledger.txt", b"Renfield fed the flies in the asylum.", "text/plain")}
        form = {"visibility": "private", "owner": "seward"}
        refused = await http.post("/ingest/upload", files=files, data=form)
        assert refused.status_code == 403, refused.text  # someone else's: administrators only
        assert "may not write documents owned by 'seward'" in refused.json()["detail"]
        docs = {d["title"]: d for d in (await http.get("/documents")).json()}
        assert (docs["Journal"]["visibility"], docs["Journal"]["owner"]) == ("personal", "writer")
    async with client(keys.admin) as http:
        uploaded = await http.post("/ingest/upload", files=files, data=form)
        assert uploaded.status_code == 202, uploaded.text
        assert events((await http.get(uploaded.json()["events"])).text)[-1][0] == "done"
    async with client(keys.writer) as http:
        problem(
            await http.post("/ingest", json={**body, "visibility": "hidden"}),
            422,
            "invalid-request",
        )
    found = await _documents(graph)
    assert found["Journal"] == ("personal", "writer")
    assert found["ledger"] == ("private", "seward")
    assert found["Harker notes"] == ("public", None)


async def test_a_keys_principal_has_the_grants_of_its_name(
    client: Client, keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    await graph.access.grant("reader", "writer", "default")
    seen: list[Principal | None] = []
    stats = AsyncGraph.stats

    async def watched(self: AsyncGraph, **kwargs: Any) -> Any:
        seen.append(self.principal)
        return await stats(self, **kwargs)

    monkeypatch.setattr(AsyncGraph, "stats", watched)
    async with client(keys.reader) as http:
        assert (await http.get("/stats")).status_code == 200
        made = await http.post("/memories", json={"text": "Quincey rode west."})
        assert made.status_code == 201  # the grant lets the reader's key write
    assert seen == [Principal("reader", {"default": Role.WRITER})]


@pytest.mark.parametrize("owner", ["", "   "])
async def test_an_empty_or_blank_owner_is_refused_never_the_operator(
    client: Client, keys: Keys, owner: str
) -> None:
    """The API takes a principal's name as an owner only: an empty or blank one is 422."""
    async with client(keys.admin) as http:
        body = {"text": "Mina hid the diary.", "visibility": "personal", "owner": owner}
        assert (await http.post("/memories", json=body)).status_code == 422
        assert (await http.post("/ingest", json={**body, "title": "Diary"})).status_code == 422
        if owner:  # an empty form field is a field not given (the caller owns it)
            files = {"files": ("diary.txt", b"Mina hid the diary.", "text/plain")}
            form = {"visibility": "personal", "owner": owner}
            uploaded = await http.post("/ingest/upload", files=files, data=form)
            assert uploaded.status_code == 422, uploaded.text
            assert uploaded.headers["content-type"].startswith("application/problem+json")

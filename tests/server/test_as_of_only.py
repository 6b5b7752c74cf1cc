"""``as_of`` and ``only`` on the question routes, as on the command line."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from loregraph import AsyncGraph

from .conftest import Client, Keys, problem


async def test_questions_take_as_of_and_only(graph: AsyncGraph, client: Client, keys: Keys) -> None:
    memory = await graph.memories.remember(
        "Jonathan Harker sailed to Whitby.", at=datetime(2026, 1, 15, tzinfo=UTC)
    )
    async with client(keys.reader) as http:
        ask = {"question": "Where did Jonathan Harker sail?", "only": "memories"}
        answer = (await http.post("/ask/json", json=ask)).json()
        assert answer["citations"]
        assert {c["document_id"] for c in answer["citations"]} == {memory.id}
        before = {**ask, "as_of": "2026-01-01T00:00:00Z"}
        earlier = (await http.post("/ask/json", json=before)).json()
        assert memory.id not in {c["document_id"] for c in earlier["citations"]}
        hits = await http.get("/search", params={"q": "Harker", "only": "documents"})
        assert hits.is_success and memory.id not in {h["id"] for h in hits.json()["hits"]}
        future = (datetime.now(UTC) + timedelta(days=30)).isoformat()
        body = {"question": "Where is the castle?", "as_of": future}
        assert (await http.post("/context", json=body)).is_success  # allowed: plans
        wrong = {"question": "Where is the castle?", "only": "notes"}
        assert (await http.post("/ask/json", json=wrong)).status_code == 422


async def test_known_at_show_ended_and_planned_memories(
    graph: AsyncGraph, client: Client, keys: Keys
) -> None:
    async with client(keys.writer) as http:
        for text, at in (
            ("The API server depends on Express.", "2026-01-15"),
            ("The API server now depends on Hono instead of Express.", "2026-02-10"),
        ):
            assert (await http.post("/memories", json={"text": text, "at": at})).status_code == 201
        future = {"text": "The API server will depend on Bun.", "at": "2999-01-01"}
        refused = problem(await http.post("/memories", json=future), 422, "invalid-input")
        assert "2999-01-01" in refused["detail"] and "planned" in refused["detail"]
        planned = await http.post("/memories", json={**future, "planned": True})
        assert planned.status_code == 201 and planned.json()["planned"]
        question = {"question": "What does the API server depend on?", "format": "json"}
        reply = (await http.post("/context", json={**question, "show_ended": True})).json()
        shown = json.loads(reply["context"])
        ended = [r for r in shown["relations"] if r["ended"]]
        assert [(r["target"], r["replaced_by"]) for r in ended] == [("Express", "Hono")]
        hidden = json.loads((await http.post("/context", json=question)).json()["context"])
        assert not [r for r in hidden["relations"] if r["ended"]]
        before = {"question": "Where is the castle?", "known_at": "2020-01-01"}
        assert not (await http.post("/ask/json", json=before)).json()["citations"]
        name = {"name": "API server"}
        assert (await http.get("/relations", params=name)).json()["relations"]
        known = {**name, "known_at": "2020-01-01"}
        assert not (await http.get("/relations", params=known)).json()["relations"]
        assert not (await http.get("/entity", params=known)).json()["relations"]
        assert not (await http.get("/history", params=known)).json()["facts"]
        assert (await http.get("/export")).json()["relations"]
        early = (await http.get("/export", params={"known_at": "2020-01-01"})).json()
        assert not early["relations"] and not early["documents"]
        timeless = (await http.get("/export", params={"as_of": "2020-01-01"})).json()
        assert any(d["title"] == "Harker notes" for d in timeless["documents"])

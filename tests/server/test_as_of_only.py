"""``as_of`` and ``only`` on the question routes, as on the command line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from loregraph import AsyncGraph

from .conftest import Client, Keys, problem


async def test_questions_take_as_of_and_only(graph: AsyncGraph, client: Client, keys: Keys) -> None:
    memory = await graph.remember(
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

"""Opening a cited passage: ``GET /passages/{id}`` gives the passage a citation points to,
only in its own scope."""

from __future__ import annotations

from .conftest import Client, Keys, problem


async def test_a_citation_opens_its_passage(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        answer = await http.post("/ask/json", json={"question": "Whom did Mina Harker marry?"})
        citation = answer.json()["citations"][0]
        found = await http.get(f"/passages/{citation['chunk_id']}")
        assert found.status_code == 200
        passage = found.json()
        assert passage["id"] == citation["chunk_id"]
        assert passage["document_title"] == citation["document_title"]
        assert passage["section"] == citation["section"]
        assert passage["start"] <= citation["start"] < citation["end"] <= passage["end"]
        offset = citation["start"] - passage["start"]
        assert passage["text"][offset : offset + len(citation["quote"])] == citation["quote"]
        problem(await http.get("/passages/chk_nothing"), 404, "not-found")
    async with client(keys.admin) as http:
        elsewhere = await http.get(f"/passages/{citation['chunk_id']}", params={"scope": "other"})
        problem(elsewhere, 404, "not-found")
    async with client(keys.other) as http:
        refused = await http.get(f"/passages/{citation['chunk_id']}")
        problem(refused, 403, "forbidden")

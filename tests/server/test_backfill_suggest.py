"""``POST /backfill`` (a job, for writers) and ``GET /suggest`` (for readers)."""

from __future__ import annotations

from loregraph import AsyncGraph
from loregraph.ingest.pipeline import EXTRACTED_BY

from .conftest import Client, Keys, events, problem


async def _as_if_older(graph: AsyncGraph) -> None:
    """Every document as a store written before the extractor was recorded holds it."""
    for doc in await graph.documents():
        bundle = await graph.store.read_bundle(doc.id)
        assert bundle is not None
        del bundle.document.metadata[EXTRACTED_BY]
        await graph.store.write_document(bundle)


async def test_a_backfill_job_extracts_again_what_another_extractor_made(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    await _as_if_older(graph)
    async with client(keys.writer) as http:
        started = await http.post("/backfill", json={"rate": 50, "limit": 1})
        assert started.status_code == 202
        job = started.json()
        assert job["kind"] == "backfill" and job["scope"] == "default"
        stream = events((await http.get(job["events"])).text)
        assert stream[-1][0] == "done"
        done = (await http.get(f"/jobs/{job['id']}")).json()
        assert done["status"] == "done"
        report = done["report"]
        assert (report["processed"], report["remaining"], report["current"]) == (1, 1, 0)
        assert report["extractor"] == "offline-spacy"
        again = (await http.post("/backfill", json={})).json()
        events((await http.get(again["events"])).text)
        last = (await http.get(f"/jobs/{again['id']}")).json()["report"]
        assert (last["processed"], last["current"]) == (1, 1)
        problem(await http.post("/backfill", json={"rate": 0}), 422, "invalid-request")
        problem(await http.post("/backfill", json={"speed": 2}), 422, "invalid-request")
    async with client(keys.reader) as http:
        assert (await http.post("/backfill", json={})).status_code == 403


async def test_suggest_lists_documents_sharing_entities(client: Client, keys: Keys) -> None:
    async with client(keys.reader) as http:
        found = await http.get("/suggest", params={"document": "notes"})
        assert found.status_code == 200, found.text
        [memory] = found.json()
        assert memory["kind"] == "memory" and memory["title"] == "Mina Harker moved to Exeter."
        assert "Mina Harker" in {e["name"] for e in memory["shared"]}
        assert memory["reason"].startswith("also about ")
        problem(await http.get("/suggest", params={"document": "nothing"}), 404, "not-found")
        problem(await http.get("/suggest", params={"document": "notes", "limit": 0}), 422,
                "invalid-request")  # fmt: skip
    async with client(keys.other) as http:
        response = await http.get("/suggest", params={"document": "notes"})
        assert response.status_code == 403

"""A document's ``source`` never shows the server's folders to a caller who does not
administer the scope: a file read from the server's machine is shown relative to the
``--ingest-root`` holding it, else by its name; administrators see the whole path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from loregraph import AsyncGraph
from loregraph.server.sources import relative_source

from .conftest import Client, Keys, events

DIARY = "# Diary\n\nJonathan Harker travelled to Transylvania to meet Count Dracula.\n"
LETTER = "Mina Harker wrote to Lucy Westenra about Count Dracula and the castle.\n"


async def _seen(http: httpx.AsyncClient) -> str:
    """Everything a caller gets back that could carry a source, as one text."""
    question = {"question": "Who did Jonathan Harker meet?"}
    answer = await http.post("/ask/json", json=question)
    passages = [await http.get(f"/passages/{c['chunk_id']}") for c in answer.json()["citations"]]
    responses = [
        await http.get("/documents"),
        await http.get("/search", params={"q": "Harker Dracula"}),
        await http.get("/export"),
        answer,
        await http.post("/ask", json=question),
        await http.post("/context", json={**question, "format": "json"}),
        *passages,
    ]
    for response in responses:
        assert response.status_code == 200, response.text
    return "\n".join(response.text for response in responses)


def _sources(documents: list[dict[str, Any]]) -> set[str]:
    return {d["source"] for d in documents if d["source"] != "notes" and "Exeter" not in d["title"]}


async def test_readers_see_sources_relative_and_administrators_whole(
    client: Client, keys: Keys, graph: AsyncGraph, tmp_path: Path
) -> None:
    root, elsewhere = tmp_path / "library", tmp_path / "private"
    (root / "1897").mkdir(parents=True)
    elsewhere.mkdir()
    (root / "1897" / "diary.md").write_text(DIARY, encoding="utf-8")
    (elsewhere / "letter.txt").write_text(LETTER, encoding="utf-8")
    await graph.ingest(root, elsewhere / "letter.txt")
    for key in (keys.reader, keys.writer):
        async with client(key, ingest_roots=[root]) as http:
            assert str(tmp_path) not in await _seen(http)
            shown = _sources((await http.get("/documents")).json())
            assert shown == {"1897/diary.md", "letter.txt"}
            hits = (await http.get("/search", params={"q": "Harker Dracula"})).json()["hits"]
            found = {h["extra"]["source"] for h in hits if "source" in h["extra"]}
            assert {s for s in found if not s.startswith("memory:")} <= shown | {"notes"}
            exported = (await http.get("/export")).json()["documents"]
            assert _sources(exported) == shown
    async with client(keys.admin, ingest_roots=[root]) as http:
        whole = _sources((await http.get("/documents")).json())
        assert whole == {str(root / "1897" / "diary.md"), str(elsewhere / "letter.txt")}


async def test_a_job_report_shows_sources_relative_to_a_reader(
    client: Client, keys: Keys, graph: AsyncGraph, tmp_path: Path
) -> None:
    root = tmp_path / "library"
    root.mkdir()
    (root / "diary.md").write_text(DIARY, encoding="utf-8")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    await graph.ingest(root / "diary.md")
    (root / "diary.md").write_text(DIARY + "Count Dracula left for Whitby.\n", encoding="utf-8")
    admin, reader = ({"Authorization": f"Bearer {key}"} for key in (keys.admin, keys.reader))
    async with client(ingest_roots=[root]) as http:  # one server: its jobs
        started = await http.post("/ingest/paths", json={"paths": [str(root)]}, headers=admin)
        job = started.json()
        done = events((await http.get(job["events"], headers=admin)).text)[-1][1]["report"]
        assert done["replaced_documents"][0]["source"] == str(root / "diary.md")
        status = await http.get(f"/jobs/{job['id']}", headers=reader)
        stream = await http.get(job["events"], headers=reader)
    assert status.json()["report"]["replaced_documents"][0]["source"] == "diary.md"
    assert [s["where"] for s in status.json()["report"]["skipped_inputs"]] == ["photo.png"]
    assert str(tmp_path) not in status.text and str(tmp_path) not in stream.text


def test_relative_source_keeps_what_is_no_path() -> None:
    roots = [Path("/srv/notes")]
    assert relative_source("/srv/notes/a/b.md", roots) == "a/b.md"
    assert relative_source("/home/ann/people.jsonl#3", roots) == "people.jsonl#3"
    for kept in ("upload:note1.md", "r1", "https://example.org/a#b", "stdin:sha256:ab"):
        assert relative_source(kept, roots) == kept

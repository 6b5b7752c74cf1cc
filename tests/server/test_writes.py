"""Writing over HTTP: memories, deletion, ingest jobs and their progress events, and bad
or oversized input refused with the store unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from loregraph import AsyncGraph
from loregraph.server import Limits

from .conftest import Client, Keys, events, problem
from .unchanged import snapshot


async def test_remember_list_and_forget(client: Client, keys: Keys) -> None:
    async with client(keys.writer) as http:
        body = {"text": "Lucy Westenra lives in Whitby.", "tags": ["people"], "at": "2025-06-01"}
        made = await http.post("/memories", json=body)
        assert made.status_code == 201
        memory = made.json()
        assert memory["at"].startswith("2025-06-01T00:00:00") and memory["tags"] == ["people"]
        listed = (await http.get("/memories", params={"tag": "people"})).json()
        assert [m["id"] for m in listed] == [memory["id"]]
        about = (await http.get("/memories", params={"about": "Whitby"})).json()
        assert [m["id"] for m in about] == [memory["id"]]
        forgot = (await http.delete(f"/memories/{memory['id']}")).json()
        assert forgot["document_id"] == memory["id"]
        problem(await http.delete(f"/memories/{memory['id']}"), 404, "not-found")
        problem(await http.post("/memories", json={"text": " "}), 422, "invalid-input")
        problem(
            await http.post("/memories", json={"text": "x", "at": "soon"}), 422, "invalid-request"
        )


async def test_delete_a_document(client: Client, keys: Keys, graph: AsyncGraph) -> None:
    async with client(keys.writer) as http:
        report = (await http.delete("/documents/notes")).json()
        assert report["chunks"] == 1 and report["entities_removed"] >= 1
        problem(await http.delete("/documents/notes"), 404, "not-found")
    assert [d.title for d in await graph.documents()] == ["Mina Harker moved to Exeter."]


async def _finished(http: httpx.AsyncClient, job: dict[str, Any]) -> list[tuple[str, Any]]:
    stream = events((await http.get(job["events"])).text)
    status = (await http.get(f"/jobs/{job['id']}")).json()
    assert status["status"] == "done" and status["report"]["ingested"] == 1
    return stream


async def test_an_ingest_job_streams_its_progress(client: Client, keys: Keys) -> None:
    async with client(keys.writer) as http:
        text = "Arthur Holmwood loved Lucy Westenra. Quincey Morris came from Texas."
        started = await http.post("/ingest", json={"text": text, "title": "Suitors", "id": "s1"})
        assert started.status_code == 202
        job = started.json()
        assert job["events"] == f"/jobs/{job['id']}/events" and job["documents"] == 1
        stream = await _finished(http, job)
        kinds = [kind for kind, _ in stream]
        assert kinds[0] == "start" and kinds[-1] == "done" and "progress" in kinds
        assert {data["stage"] for kind, data in stream if kind == "start"} >= {"extract", "embed"}
        assert stream[-1][1]["report"]["document_ids"]
        found = (await http.get("/search", params={"q": "Quincey Morris Texas"})).json()["hits"]
        assert found[0]["title"] == "Suitors"
        # a reader of the scope may follow the job; a key of another scope cannot see it
        reader = {"Authorization": f"Bearer {keys.reader}"}
        assert (await http.get(f"/jobs/{job['id']}", headers=reader)).status_code == 200
        other = {"Authorization": f"Bearer {keys.other}"}
        problem(await http.get(f"/jobs/{job['id']}", headers=other), 404, "not-found")


async def test_uploaded_files_are_ingested(client: Client, keys: Keys, graph: AsyncGraph) -> None:
    files = [
        ("files", ("van-helsing.md", b"# Van Helsing\n\nAbraham Van Helsing came from Amsterdam.")),
        ("files", ("renfield.txt", b"Renfield ate flies in the asylum.")),
    ]
    async with client(keys.writer) as http:
        job = (await http.post("/ingest/upload", files=files)).json()
        stream = events((await http.get(job["events"])).text)
    assert stream[-1][0] == "done" and stream[-1][1]["report"]["ingested"] == 2
    titles = {d.title for d in await graph.documents()}
    assert {"Van Helsing", "renfield"} <= titles  # a Markdown file: its first heading


BAD_UPLOADS: list[tuple[str, Any, str]] = [
    ("binary", {"files": ("x.txt", b"%PDF-1.7\n\x00\x01binary")}, "binary"),
    ("not UTF-8", {"files": ("x.txt", b"caf\xe9 au lait " * 3)}, "UTF-8"),
    ("empty", {"files": ("x.txt", b"  \n ")}, "no words"),
    ("NUL", {"files": ("x.txt", b"some words\x00 and more")}, "binary"),
]


@pytest.mark.parametrize(("what", "files", "said"), BAD_UPLOADS, ids=[b[0] for b in BAD_UPLOADS])
async def test_a_malformed_upload_is_refused_and_nothing_is_stored(
    client: Client, keys: Keys, graph: AsyncGraph, what: str, files: Any, said: str
) -> None:
    before = await graph.stats()
    async with client(keys.writer) as http:
        body = problem(await http.post("/ingest/upload", files=files), 422, "invalid-input")
        assert said in body["detail"] and "x.txt" in body["detail"]
        assert (await http.get("/stats")).json() == before.to_dict()
    assert await graph.stats() == before


async def test_uploads_missing_or_mixed_are_refused(client: Client, keys: Keys) -> None:
    async with client(keys.writer) as http:
        problem(await http.post("/ingest/upload", data={"title": "x"}), 422, "invalid-request")
        two = [("files", ("a.txt", b"Alpha text here.")), ("files", ("b.txt", b"Beta text."))]
        response = await http.post("/ingest/upload", files=two, data={"id": "one"})
        problem(response, 422, "invalid-input")
        garbled = await http.post(
            "/ingest/upload",
            content=b"--xyz\r\nnot a part",
            headers={"Content-Type": "multipart/form-data; boundary=xyz"},
        )
        assert 400 <= garbled.status_code < 500


async def test_an_oversized_body_is_413_and_nothing_is_stored(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    before = await snapshot(graph)
    text = "Lucy Westenra walked in Whitby. " * 100
    async with client(keys.writer, limits=Limits(max_body_bytes=1000)) as http:
        problem(await http.post("/memories", json={"text": text}), 413, "body-too-large")
        upload = {"files": ("big.txt", text.encode())}
        problem(await http.post("/ingest/upload", files=upload), 413, "body-too-large")

        async def chunks() -> Any:  # no Content-Length: counted as it arrives
            for _ in range(10):
                yield b'{"text": "' + b"x" * 200

        streamed = await http.post(
            "/memories", content=chunks(), headers={"Content-Type": "application/json"}
        )
        problem(streamed, 413, "body-too-large")
        assert await snapshot(graph) == before
        small = await http.post("/memories", json={"text": "Lucy Westenra slept."})
        assert small.status_code == 201
    assert (await graph.stats()).documents == before["stats"]["documents"] + 1


async def test_one_job_too_many_is_429(
    client: Client, keys: Keys, graph: AsyncGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = asyncio.Event()
    ingest = graph.ingest_documents

    async def held(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await ingest(*args, **kwargs)

    monkeypatch.setattr(graph, "ingest_documents", held)
    async with client(keys.writer, limits=Limits(max_ingest_jobs=1)) as http:
        first = (await http.post("/ingest", json={"text": "Arthur Holmwood rode."})).json()
        refused = await http.post("/ingest", json={"text": "Quincey Morris rode."})
        problem(refused, 429, "too-many-jobs")
        assert refused.headers["retry-after"]
        release.set()
        await _finished(http, first)
        again = await http.post("/ingest", json={"text": "Quincey Morris rode."})
        assert again.status_code == 202
        await _finished(http, again.json())


async def test_record_files_and_html_are_read_as_ingest_reads_them(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    records = b'{"id": "r1", "title": "Harker", "text": "Jonathan Harker kept a journal."}\n'
    records += b'{"title": "Seward", "text": "John Seward ran the asylum."}\n'
    page = b"<html><head><title>Amsterdam</title></head><body>"
    page += b"<p>Abraham Van Helsing came from Amsterdam.</p></body></html>"
    files = [("files", ("people.jsonl", records)), ("files", ("page.html", page))]
    async with client(keys.writer) as http:
        job = (await http.post("/ingest/upload", files=files)).json()
        assert job["documents"] == 3
        stream = events((await http.get(job["events"])).text)
        assert stream[-1][1]["report"]["ingested"] == 3
        broken = {"files": ("bad.jsonl", b'{"title": "no text"}\n')}
        body = problem(await http.post("/ingest/upload", files=broken), 422, "invalid-input")
        assert "bad.jsonl" in body["detail"] and "text" in body["detail"]
        named = {"files": ("people.jsonl", records)}
        response = await http.post("/ingest/upload", files=named, data={"title": "x"})
        problem(response, 422, "invalid-input")
    titles = {d.title for d in await graph.documents()}
    assert {"Harker", "Seward", "Amsterdam"} <= titles
    assert "r1" in {d.source for d in await graph.documents()}


async def test_paths_are_ingested_only_inside_the_allowed_folders(
    client: Client, keys: Keys, graph: AsyncGraph, tmp_path: Path
) -> None:
    allowed, outside = tmp_path / "docs", tmp_path / "private"
    (allowed / "sub").mkdir(parents=True)
    outside.mkdir()
    (allowed / "sub" / "harker.md").write_text("# Harker\n\nJonathan Harker kept a diary.\n")
    (outside / "secret.txt").write_text("The vault code is 1234.\n")
    before = await graph.stats()
    async with client(keys.writer) as http:
        off = await http.post("/ingest/paths", json={"paths": [str(allowed)]})
        assert "--ingest-root" in problem(off, 403, "forbidden")["detail"]
    async with client(keys.writer, ingest_roots=[allowed]) as http:
        for path in (outside / "secret.txt", allowed / ".." / "private", Path("/etc/passwd")):
            response = await http.post("/ingest/paths", json={"paths": [str(path)]})
            problem(response, 403, "forbidden")
        missing = await http.post("/ingest/paths", json={"paths": [str(allowed / "nope.txt")]})
        problem(missing, 422, "invalid-input")
        relative = await http.post("/ingest/paths", json={"paths": ["docs"]})
        problem(relative, 422, "invalid-input")
        assert await graph.stats() == before
        job = (await http.post("/ingest/paths", json={"paths": [str(allowed)]})).json()
        assert job["documents"] is None
        stream = events((await http.get(job["events"])).text)
    assert stream[-1][0] == "done" and stream[-1][1]["report"]["ingested"] == 1
    assert "Harker" in {d.title for d in await graph.documents()}


async def test_text_that_is_not_unicode_is_refused(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    before = await graph.stats()
    bodies = [
        ("/memories", b'{"text": "Lucy slept.", "tags": ["\\ud800"]}'),
        ("/memories", b'{"text": "Lucy slept.", "metadata": {"k": ["\\udc00"]}}'),
        ("/memories", b'{"text": "Lucy \\ud800 slept."}'),
        ("/ingest", b'{"text": "Lucy slept.", "id": "\\ud800"}'),
    ]
    async with client(keys.writer) as http:
        for path, body in bodies:
            sent = await http.post(path, content=body, headers={"content-type": "application/json"})
            problem(sent, 422, "invalid-request")
    assert await graph.stats() == before

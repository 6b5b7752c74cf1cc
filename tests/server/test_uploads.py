"""Uploads behave as ``loregraph ingest`` does with files: a file's name is its identity in
the scope (sent again with new text, it replaces itself), a Markdown file is titled by its
first heading, and in an upload of several files one that is binary is skipped and reported
while the others are ingested."""

from __future__ import annotations

from typing import Any

import httpx

from loregraph import AsyncGraph

from .conftest import Client, Keys, events, problem


async def _upload(http: httpx.AsyncClient, files: Any, **form: str) -> list[tuple[str, Any]]:
    """Upload ``files``, follow the job to its end; its events."""
    started = await http.post("/ingest/upload", files=files, data=form)
    assert started.status_code == 202, started.text
    stream = events((await http.get(started.json()["events"])).text)
    assert stream[-1][0] == "done", stream[-1]
    return stream


async def _entity_names(graph: AsyncGraph) -> set[str]:
    return {e.name for e in await graph.explore.entities(limit=1000)}


async def test_an_edited_file_uploaded_again_replaces_itself(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    first = b"# Renfield\n\nArthur Holmwood visited Carfax Abbey. Carfax Abbey stood empty."
    edited = b"# Renfield\n\nArthur Holmwood met Quincey Morris. Quincey Morris rode."
    async with client(keys.writer) as http:
        await _upload(http, {"files": ("note1.md", first, "text/markdown")})
        assert "Carfax Abbey" in await _entity_names(graph)
        stream = await _upload(http, {"files": ("note1.md", edited, "text/markdown")})
        assert stream[-1][1]["report"]["replaced"] == 1
        query = {"q": "Arthur Holmwood Carfax Abbey"}
        found = (await http.get("/search", params=query)).json()["hits"]
    notes = [d for d in await graph.documents() if d.title == "Renfield"]
    assert len(notes) == 1 and notes[0].char_count == len(edited.decode())
    names = await _entity_names(graph)
    assert "Quincey Morris" in names and "Carfax Abbey" not in names  # the old facts are gone
    assert [hit["title"] for hit in found].count("Renfield") == 1


async def test_an_id_given_with_an_upload_is_its_identity(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    async with client(keys.writer) as http:
        await _upload(http, {"files": ("a.txt", b"Lucy Westenra walked in Whitby.")}, id="lucy")
        stream = await _upload(
            http, {"files": ("b.txt", b"Lucy Westenra slept in Hillingham.")}, id="lucy"
        )
        assert stream[-1][1]["report"]["replaced"] == 1
    sources = [d.source for d in await graph.documents()]
    assert sources.count("lucy") == 1 and not any("a.txt" in s or "b.txt" in s for s in sources)


async def test_uploads_are_titled_as_ingest_titles_files(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    files = [
        ("files", ("vh.md", b"Intro line.\n\n# Abraham Van Helsing\n\nHe came from Amsterdam.")),
        ("files", ("renfield.txt", b"# Not a title in a text file\n\nRenfield ate flies.")),
        ("files", ("plain.md", b"Quincey Morris came from Texas.")),
    ]
    async with client(keys.writer) as http:
        await _upload(http, files)
        named = await _upload(http, {"files": ("mina.md", b"# Mina\n\nMina wrote.")}, title="M")
        assert named[-1][1]["report"]["ingested"] == 1
    titles = {d.title for d in await graph.documents()}
    assert {"Abraham Van Helsing", "renfield", "plain", "M"} <= titles


async def test_a_binary_file_among_several_is_skipped_and_reported(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    files = [
        ("files", ("harker.txt", b"Jonathan Harker kept a journal in Bistritz.")),
        ("files", ("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")),
        ("files", ("seward.md", b"# Seward\n\nJohn Seward ran the asylum.")),
    ]
    async with client(keys.writer) as http:
        stream = await _upload(http, files)
        only_binary = [files[1], ("files", ("x.pdf", b"%PDF-1.7\n\x00\x01"))]
        refused = await http.post("/ingest/upload", files=only_binary)
        assert "photo.png" in problem(refused, 422, "invalid-input")["detail"]
    skipped = [data for kind, data in stream if kind == "skipped"]
    assert [s["where"] for s in skipped] == ["photo.png"] and "binary" in skipped[0]["why"]
    report = stream[-1][1]["report"]
    assert report["ingested"] == 2 and report["skipped_inputs"] == skipped
    titles = {d.title for d in await graph.documents()}
    assert {"harker", "Seward"} <= titles and "photo" not in titles


async def test_records_of_an_upload_are_identified_by_file_and_position(
    client: Client, keys: Keys, graph: AsyncGraph
) -> None:
    async with client(keys.writer) as http:
        await _upload(http, {"files": ("people.jsonl", b'{"text": "Arthur rode to Whitby."}\n')})
        again = b'{"text": "Arthur rode to Hillingham."}\n'
        stream = await _upload(http, {"files": ("people.jsonl", again)})
        assert stream[-1][1]["report"]["replaced"] == 1
        two = [("files", ("n.md", b"Mina wrote.")), ("files", ("n.md", b"Lucy slept."))]
        assert "n.md" in problem(await http.post("/ingest/upload", files=two), 422,
                                 "invalid-input")["detail"]  # fmt: skip
    assert [d.source for d in await graph.documents()].count("upload:people.jsonl#0") == 1

"""A JSON memory file that cannot be used is refused, naming the file and the problem, and is
never overwritten; a write that fails part way leaves the previous file whole."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from loregraph.errors import SchemaVersionError, StoreError
from loregraph.store.jsonfile import JsonFileStore
from loregraph.store.jsonfile import files as files_module
from loregraph.store.jsonfile.layout import VERSION

from .builders import Book
from .contract import shared_pair


@pytest.fixture
async def good(tmp_path: Path) -> Path:
    """A memory file written by the store."""
    path = tmp_path / "context.json"
    async with JsonFileStore(path) as store:
        await shared_pair(store)
    return path


def edited(path: Path, change: Any) -> bytes:
    """The file's JSON object changed by ``change`` (in place), as bytes."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    return json.dumps(data).encode()


def first_chunk(data: dict[str, Any]) -> dict[str, Any]:
    chunk: dict[str, Any] = data["documents"][0]["chunks"][0]
    return chunk


BAD: dict[str, tuple[Any, str]] = {
    "empty": (lambda _: b"", "it is empty"),
    "truncated": (lambda p: p.read_bytes()[: len(p.read_bytes()) // 2], "not valid JSON"),
    "not JSON": (lambda _: b"entities: [Ada]\n", "not valid JSON"),
    "not UTF-8": (lambda _: b"\xff\xfe{}", "not UTF-8"),
    "a list": (lambda _: b"[]", "expected an object, found a list"),
    "no version": (lambda _: b'{"entities": []}', "version: missing"),
    "another format": (
        lambda _: b'{"format": "graph", "version": 1}',
        "format: expected 'loregraph memory file'",
    ),
    "a name that is a number": (
        lambda _: b'{"version": 1, "entities": [{"name": 3}]}',
        "entities[0].name: expected a string, found the number 3",
    ),
    "a relationship to an unknown name": (
        lambda p: edited(p, lambda d: d["relationships"][0].update(target="Nobody")),
        "relationships[0].target: no entity named 'Nobody'",
    ),
    "a mention of an unknown entity": (
        lambda p: edited(p, lambda d: d["documents"][0]["mentions"][0].update(entity="ent_x")),
        "documents[0].mentions[0].entity: no entity with id 'ent_x'",
    ),
    "a mention of a missing chunk": (
        lambda p: edited(p, lambda d: first_chunk(d).update(id="elsewhere")),
        "cannot be loaded: a mention refers to chunk",
    ),
    "a key with an unknown role": (
        lambda _: (
            b'{"version": 2, "api_keys": [{"name": "ci", "key_hash": "ab", '
            b'"roles": {"default": "boss"}}]}'
        ),
        "api_keys[0].roles.default: unknown role 'boss'",
    ),
    "two keys of one name": (
        lambda _: (
            b'{"version": 2, "api_keys": [{"name": "ci", "key_hash": "ab"}, '
            b'{"name": "ci", "key_hash": "cd"}]}'
        ),
        "api_keys[1]: a key of this name or hash appears twice",
    ),
    "a decision of an unknown kind": (
        lambda _: (
            b'{"version": 2, "merge_decisions": [{"kind": "maybe", "merge_id": "m", '
            b'"entity": "e", "surface": "s"}]}'
        ),
        "merge_decisions[0].kind: a decision is split or join, not 'maybe'",
    ),
    "a bad time": (
        lambda p: edited(p, lambda d: d["entities"][0].update(created_at="yesterday")),
        "entities[0].created_at: 'yesterday' is not an ISO 8601 time",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
async def test_a_bad_file_is_refused_and_left_unchanged(good: Path, case: str) -> None:
    make, problem = BAD[case]
    content = make(good)
    good.write_bytes(content)
    for read_only in (False, True):
        store = JsonFileStore(good, read_only=read_only)
        with pytest.raises(StoreError) as caught:
            await store.open()
        await store.close()
        message = str(caught.value)
        assert message.startswith(f"cannot open the JSON memory file {good}: ")
        assert problem in message and "the file was left unchanged" in message
        assert good.read_bytes() == content


async def test_a_newer_version_is_refused(good: Path) -> None:
    content = edited(good, lambda d: d.update(version=VERSION + 1))
    good.write_bytes(content)
    store = JsonFileStore(good)
    with pytest.raises(SchemaVersionError, match=f"memory file version {VERSION + 1}"):
        await store.open()
    await store.close()
    assert good.read_bytes() == content


@pytest.mark.parametrize(
    ("failing", "call"),
    [
        ("fsync", 1),  # writing the new vectors sidecar
        ("replace", 1),  # putting the new sidecar in place
        ("fsync", 3),  # writing the JSON (the second is the folder's, which may fail)
        ("replace", 2),  # putting the JSON in place
    ],
)
async def test_a_write_that_fails_part_way_leaves_the_previous_file(
    good: Path, failing: str, call: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = good.read_bytes()
    original = getattr(os, failing)
    calls: list[object] = []

    def failing_on_call(*args: object) -> object:
        calls.append(args)
        if len(calls) == call:
            raise OSError(f"simulated failure in os.{failing}")
        return original(*args)

    store = JsonFileStore(good, autosave=False)
    await store.open()
    book = Book("doc-9", title="More")
    book.entity("Dora Vale", mentions=[(book.chunk("Dora Vale arrived."), 1)])
    await store.write_document(book.bundle())
    await store.delete_document("doc-1")
    monkeypatch.setattr(files_module.os, failing, failing_on_call)
    with pytest.raises(StoreError, match="simulated failure") as caught:
        await store.close()
    assert "the file was left as it was before this write" in str(caught.value)
    monkeypatch.undo()
    assert good.read_bytes() == before
    names = [p.name for p in good.parent.iterdir()]
    assert not [name for name in names if name.endswith(".tmp")]
    assert json.loads(before)["vectors"]["file"] in names
    async with JsonFileStore(good, read_only=True) as store:
        assert {d.id for d in await store.list_documents("default")} == {"doc-1", "doc-2"}


async def test_an_unwritable_folder_is_reported_at_open(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError, match="not writable"):
            await JsonFileStore(folder / "context.json").open()
    finally:
        folder.chmod(0o700)


async def test_temporary_files_of_a_killed_write_go_at_the_next_write(good: Path) -> None:
    left = good.parent / f".{good.name}.k1ll3d.tmp"
    left.write_bytes(b'{"format": "loregraph memory fi')
    async with JsonFileStore(good) as store:
        await store.delete_document("doc-2")
    assert not left.exists()
    assert (good.parent / f".{good.name}.lock").exists()  # the lock file stays


async def test_a_failed_automatic_write_is_logged_and_done_at_close(
    good: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    before = good.read_bytes()

    def broken(*args: object) -> None:
        raise OSError("simulated full disk")

    store = JsonFileStore(good)
    await store.open()
    try:
        monkeypatch.setattr(files_module.os, "replace", broken)
        await store.delete_document("doc-2")  # the change itself succeeds
        assert "simulated full disk" in caplog.text
        assert good.read_bytes() == before
        monkeypatch.undo()
    finally:
        await store.close()
    async with JsonFileStore(good, read_only=True) as reader:
        assert [d.id for d in await reader.list_documents("default")] == ["doc-1"]

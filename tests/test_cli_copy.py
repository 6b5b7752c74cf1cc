"""``loregraph copy SOURCE DEST``: a summary, resuming, refusing to mix graphs, clear errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loregraph.access import ApiKey, Role
from loregraph.cli.app import main
from loregraph.store.sqlite import SqliteStore
from store.builders import Book
from store.contract_copy import rich_store


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "source.db"

    async def build() -> None:
        async with SqliteStore(path) as store:
            await rich_store(store)

    asyncio.run(build())
    return path


def test_copy_prints_a_summary_and_resumes(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy.db"
    result = CliRunner().invoke(main, ["copy", str(source), str(dest)])
    assert result.exit_code == 0, result.output
    assert "copied 6 documents (0 already present) in 2 scope(s)" in result.output
    assert "the destination matches the source" in result.output
    again = CliRunner().invoke(main, ["copy", str(source), f"sqlite://{dest}", "--json"])
    assert again.exit_code == 0, again.output
    report = json.loads(again.output)
    assert (report["copied"], report["skipped"], report["matches"]) == (0, 6, True)


def test_copy_one_scope(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "other.db"
    result = CliRunner().invoke(main, ["copy", str(source), str(dest), "--scope", "other"])
    assert result.exit_code == 0, result.output
    assert "in 1 scope(s)" in result.output and "  other: 2 documents" in result.output


def test_copy_refuses_a_destination_with_other_documents_unless_merging(
    source: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "busy.db"

    async def foreign() -> None:
        book = Book("foreign", title="Unrelated notes")
        book.entity("Zed", mentions=[(book.chunk("Zed was here."), 1)])
        async with SqliteStore(dest) as store:
            await store.write_document(book.bundle())

    asyncio.run(foreign())
    refused = CliRunner().invoke(main, ["copy", str(source), str(dest)])
    assert refused.exit_code == 8
    assert "Unrelated notes" in refused.output and "--merge" in refused.output
    merged = CliRunner().invoke(main, ["copy", str(source), str(dest), "--merge"])
    assert merged.exit_code == 0, merged.output
    assert "copied 6 documents" in merged.output and "  default: 5 documents" in merged.output


def keys_of(path: Path) -> list[tuple[str, str, bool]]:
    async def read() -> list[tuple[str, str, bool]]:
        async with SqliteStore(path) as store:
            return [(k.name, k.key_hash, k.active) for k in await store.list_api_keys()]

    return asyncio.run(read())


def test_copy_carries_decisions_and_audit_and_keys_only_when_asked(
    source: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "copy.db"
    plain = CliRunner().invoke(main, ["copy", str(source), str(dest)])
    assert plain.exit_code == 0, plain.output
    assert "carried 2 merge decisions and 3 audit entries" in plain.output
    assert "API keys" not in plain.output and keys_of(dest) == []
    keyed = CliRunner().invoke(main, ["copy", str(source), str(dest), "--with-keys", "--json"])
    assert keyed.exit_code == 0, keyed.output
    report = json.loads(keyed.output)
    # two keys and the grant for every scope (those of one scope came with the first copy)
    assert (report["keys"], report["copied"], report["matches"]) == (3, 0, True)
    assert [(s["decisions"], s["audit"]) for s in report["scopes"]] == [(0, 0), (0, 0)]
    assert keys_of(dest) == keys_of(source) == [("ci", "a" * 64, True), ("old", "b" * 64, False)]


def test_copy_refuses_a_key_name_held_with_another_hash(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "keyed.db"

    async def other_key() -> None:
        async with SqliteStore(dest) as store:
            await store.add_api_key(ApiKey("ci", "c" * 64, {"default": Role.ADMIN}))

    asyncio.run(other_key())
    refused = CliRunner().invoke(main, ["copy", str(source), str(dest), "--with-keys"])
    assert refused.exit_code == 8
    assert "another API key named 'ci'" in refused.output
    assert keys_of(dest) == [("ci", "c" * 64, True)]

    async def scopes() -> list[str]:
        async with SqliteStore(dest) as store:
            return await store.scopes()

    assert asyncio.run(scopes()) == []  # refused before any document was written


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["missing.db", "b.db"], 4, "no store at"),
        (["SRC", "mongodb://h/x"], 2, "unsupported store URL scheme"),
        (["SRC", "SRC"], 2, "same store"),
        (["SRC", "b.db", "--scope", "nowhere"], 5, "nowhere"),
    ],
)
def test_copy_errors(
    source: Path, tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    argv = [str(source) if a == "SRC" else a for a in args]
    argv = [str(tmp_path / a) if a.endswith(".db") and "/" not in a else a for a in argv]
    result = CliRunner().invoke(main, ["copy", *argv])
    assert result.exit_code == code, result.output
    assert message in result.output

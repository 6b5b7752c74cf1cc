"""Bad input gets one clear message, a non-zero exit, and leaves the store unchanged."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from loregraph.cli import support
from loregraph.cli.app import main
from loregraph.errors import LoregraphError, NotAllowedError


def run(db: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


def snapshot(db: Path, tmp: Path) -> tuple[str, str]:
    out = tmp / "snap.json"
    stats = run(db, "stats", "--json")
    assert stats.exit_code == 0, stats.output
    exported = run(db, "export", str(out))
    assert exported.exit_code == 0, exported.output
    data = json.loads(out.read_text(encoding="utf-8"))
    return stats.output, json.dumps(data, sort_keys=True)


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("cli")
    doc = root / "note.txt"
    doc.write_text(
        "Mina Harker wrote to Lucy Westenra from Exeter. Lucy Westenra lived in Whitby "
        "with her mother. Arthur Holmwood proposed to Lucy Westenra in London.",
        encoding="utf-8",
    )
    db = root / "store.db"
    result = run(db, "ingest", str(doc))
    assert result.exit_code == 0, result.output
    yield db


def check_unchanged(
    db: Path, tmp_path: Path, args: list[str], code: int, words: list[str], stdin: str | None = None
) -> None:
    before = snapshot(db, tmp_path)
    result = run(db, *args, stdin=stdin)
    assert result.exit_code == code, result.output
    message = result.output.lower()
    assert message.startswith("error:"), result.output
    for word in words:
        assert word.lower() in message, (word, result.output)
    assert snapshot(db, tmp_path) == before


def test_missing_path(populated: Path, tmp_path: Path) -> None:
    check_unchanged(
        populated, tmp_path, ["ingest", str(tmp_path / "nope.txt")], 2, ["no such file", "nope.txt"]
    )


def test_missing_path_creates_no_database(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    result = run(db, "ingest", str(tmp_path / "missing.md"))
    assert result.exit_code == 2
    assert not db.exists()


@pytest.mark.parametrize("content", [b"caf\xe9", b"\x89PNG\r\n\x1a\n\x00", b"  \n"])
def test_unreadable_input_creates_no_database(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "bad.txt").write_bytes(content)
    for target in (bad, folder):
        db = tmp_path / "fresh.db"
        result = run(db, "ingest", str(target))
        assert result.exit_code == 2, result.output
        assert not db.exists()


def test_directory_with_nothing_readable(populated: Path, tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    check_unchanged(populated, tmp_path, ["ingest", str(folder)], 2, ["empty"])


def test_binary_file(populated: Path, tmp_path: Path) -> None:
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"abc\x00\x01\x02" * 100)
    check_unchanged(populated, tmp_path, ["ingest", str(binary)], 2, ["blob.txt", "binary"])


def test_empty_document(populated: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n\n  ", encoding="utf-8")
    check_unchanged(populated, tmp_path, ["ingest", str(empty)], 2, ["empty.txt", "empty"])


def test_invalid_utf8(populated: Path, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Caf\u00e9 society in Bistritz.".encode("latin-1"))
    check_unchanged(populated, tmp_path, ["ingest", str(bad)], 2, ["latin1.txt", "utf-8"])


def test_empty_stdin(populated: Path, tmp_path: Path) -> None:
    check_unchanged(populated, tmp_path, ["ingest", "-"], 2, ["empty"], stdin="  \n")


def test_query_against_empty_store(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    result = run(db, "ask", "Who is Dracula?")
    assert result.exit_code == 4
    assert "ingest" in result.output.lower()
    assert not db.exists()


def test_query_against_empty_scope(populated: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["--db", str(populated), "--scope", "elsewhere", "ask", "Who is Lucy?"]
    )
    assert result.exit_code == 4, result.output
    assert "ingest" in result.output.lower()


def test_unknown_entity_suggests(populated: Path) -> None:
    result = run(populated, "entity", "Lucy Westenraa")
    # a close misspelling resolves; a far one is a clear not-found error
    assert result.exit_code == 0, result.output
    far = run(populated, "entity", "Zzyzx Qwerty")
    assert far.exit_code == 5
    assert "no entity" in far.output.lower()


def test_newer_schema_is_refused_and_left_alone(populated: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    copy = tmp_path / "future.db"
    shutil.copy(populated, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    before = copy.read_bytes()
    result = run(copy, "stats")
    assert result.exit_code == 3, result.output
    assert result.output.lower().startswith("error:")
    assert "999" in result.output and "upgrade" in result.output.lower()
    assert copy.read_bytes() == before


def test_search_documents_json_ranks_records(tmp_path: Path, records_file: Path) -> None:
    db = tmp_path / "records.db"
    assert run(db, "ingest", str(records_file)).exit_code == 0
    result = run(db, "search", "--documents", "--json", "Where was Nicki Minaj born?")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)["hits"]
    assert hits[0]["title"] == "Nicki Minaj"
    assert all(h["kind"] == "document" and h["score"] > 0 for h in hits)
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"id": "q1", "question": "Who married Teutberga?"}) + "\n", encoding="utf-8"
    )
    lines = run(db, "search", "--batch", str(batch), "-k", "3").output.strip().splitlines()
    assert len(lines) == 1
    row = json.loads(lines[0])
    assert row["id"] == "q1" and len(row["results"]) == 3


def test_unknown_database_scheme(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--db", "mongodb://localhost/kg", "stats"])
    assert result.exit_code == 2, result.output
    assert "mongodb" in result.output


def _exit_codes_of(error: type[LoregraphError]) -> set[int]:
    return {error.exit_code}.union(*(_exit_codes_of(sub) for sub in error.__subclasses__()))


def test_the_readme_lists_every_exit_code_the_command_line_returns() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("stderr with their own exit code:")
    paragraph = readme[start : readme.index("\n\n", start)]
    listed = {int(code) for code in re.findall(r"(?<![\w-])(\d+)\b", paragraph)}
    returned = _exit_codes_of(LoregraphError) | {
        support.PERMISSION_EXIT,
        support.INTERNAL_EXIT,
        support.INTERRUPTED_EXIT,
        support.PIPE_CLOSED_EXIT,
        click.UsageError.exit_code,
    }
    assert NotAllowedError.exit_code == 9
    assert listed == returned

"""Every command answers bad paths and bad options with one message and its own exit code;
folders never stop at one bad file; progress shows when nobody watches a terminal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from loregraph.cli.app import main
from loregraph.cli.progress import PlainProgress
from loregraph.ingest.read import convert


def run(db: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("robust")
    note = root / "note.txt"
    note.write_text(
        "Mina Harker wrote to Lucy Westenra from Exeter. Arthur Holmwood proposed to Lucy.",
        encoding="utf-8",
    )
    db = root / "kg.db"
    assert run(db, "ingest", str(note)).exit_code == 0
    return db


BAD_CALLS = [
    ["ingest", "/nonexistent/file.txt"],
    ["ingest", "/nonexistent/dir/"],
    ["ingest", "--chunk-size", "0", "x.txt"],
    ["ingest", "--chunk-size", "many", "x.txt"],
    ["ask"],
    ["ask", "Who?", "--preset", "nope"],
    ["context", "Who?", "--budget", "0"],
    ["context", "Who?", "--budget", "-5"],
    ["context", "Who?", "--format", "pdf"],
    ["search", "Lucy", "-k", "-1"],
    ["search", "Lucy", "-k", "0"],
    ["search", "--batch", "/nonexistent/q.jsonl"],
    ["search"],
    ["entities", "--limit", "-3"],
    ["entity", "Nobody At All"],
    ["entity", "Lucy", "--limit", "0"],
    ["export", "/nonexistent/dir/x.json"],
    ["export", "/"],
    ["delete", "/nonexistent/doc.txt"],
    ["copy", "/nonexistent/a.db", "/nonexistent/b.db"],
    ["stats", "--bogus"],
    ["scopes", "--bogus"],
    ["documents", "--bogus"],
    ["frobnicate"],
]


@pytest.mark.parametrize("args", BAD_CALLS, ids=lambda a: " ".join(a))
def test_bad_paths_and_options_give_one_message_never_a_traceback(
    store: Path, args: list[str]
) -> None:
    result = run(store, *args)
    assert result.exit_code not in (0, 1), result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    first = result.output.strip().splitlines()[0].lower()
    assert first.startswith(("error:", "usage:")), result.output


def test_bad_database_paths_give_one_message(tmp_path: Path) -> None:
    folder_db = tmp_path / "folder.db"
    folder_db.mkdir()
    not_sqlite = tmp_path / "text.db"
    not_sqlite.write_text("hello", encoding="utf-8")
    for db, args in (
        (folder_db, ["stats"]),
        (folder_db, ["ingest", "-"]),
        (not_sqlite, ["stats"]),
        (tmp_path / "missing.db", ["ask", "Who?"]),
    ):
        result = run(db, *args, stdin="Some words.")
        assert result.exit_code not in (0, 1), result.output
        assert result.output.lower().startswith("error:"), result.output
        assert "Traceback" not in result.output


def test_global_options_may_follow_the_command(store: Path) -> None:
    result = run(store, "ingest", "-", "--scope", "work", stdin="Quincey Morris rode west.")
    assert result.exit_code == 0, result.output
    listed = run(store, "scopes", "--json")
    assert set(json.loads(listed.stdout)) == {"default", "work"}
    assert run(store, "stats", "--scope", "work", "--json").exit_code == 0


def test_stats_of_an_empty_scope_points_at_the_scopes_with_data(store: Path) -> None:
    result = run(store, "--scope", "empty", "stats")
    assert result.exit_code == 0
    assert "scopes with data: default" in result.stderr


def test_export_dash_writes_to_standard_output(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run(store, "export", "-")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["entities"]
    assert not (tmp_path / "-").exists()


def test_a_folder_skips_and_lists_undecodable_pdf_and_other_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Jonathan Harker reached Bistritz.", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("Café Müller".encode("latin-1"))
    (folder / "blank.md").write_text("  \n", encoding="utf-8")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    monkeypatch.setattr(convert, "_converter", lambda: None)  # the docs extra is absent
    db = tmp_path / "kg.db"
    result = run(db, "ingest", str(folder), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ingested"] == 1
    reasons = {Path(s["where"]).name: s["why"] for s in report["skipped_inputs"]}
    assert set(reasons) == {"latin1.txt", "blank.md", "scan.pdf", "photo.png"}
    assert "not valid UTF-8" in reasons["latin1.txt"]
    assert "loregraph[docs]" in reasons["scan.pdf"]
    summary = run(db, "ingest", str(folder))
    assert "Skipped 4 inputs:" in summary.stdout and "scan.pdf" in summary.stdout


def test_whitespace_or_punctuation_only_file_is_refused(tmp_path: Path) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text(" ... !!! ---\n", encoding="utf-8")
    result = run(tmp_path / "kg.db", "ingest", str(blank))
    assert result.exit_code == 2
    assert "no words" in result.output


def test_plain_progress_lines_at_most_every_interval() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = PlainProgress(out, interval=5.0, clock=lambda: now[0])
    progress.start("documents", None)
    progress.start("embed", 100)
    for _ in range(10):
        now[0] += 1.0
        progress.advance("embed", 5)
    progress.advance("documents")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # at 5 s and at 10 s, not on every event
    assert "embedding chunks 25/100" in lines[0]
    assert "5.0/s" in lines[0] and "left" in lines[0]
    assert lines[1].startswith("ingest [0:10]")


def test_ingest_prints_progress_on_stderr_off_a_terminal_unless_quiet(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Lucy Westenra walked in Whitby. " * 200, encoding="utf-8")
    env = {**os.environ, "LOREGRAPH_PROGRESS_SECONDS": "0"}
    base = [sys.executable, "-m", "loregraph.cli", "--db", str(tmp_path / "kg.db")]
    loud = subprocess.run(
        [*base, "ingest", str(note)], capture_output=True, text=True, env=env, check=True
    )
    assert "ingest [" in loud.stderr and "documents done" in loud.stderr
    (tmp_path / "kg.db").unlink()
    quiet = subprocess.run(
        [*base, "ingest", str(note), "--quiet"], capture_output=True, text=True, env=env, check=True
    )
    assert quiet.stderr == ""


def test_search_says_plainly_when_nothing_is_relevant(store: Path) -> None:
    """The closest matches are still listed, each marked "?", after a line saying that
    none looks relevant; the JSON says so in ``relevant`` and each hit's flag."""
    result = run(store, "search", "zzzzqqq xyzzy")
    assert result.exit_code == 0
    assert "nothing in the store looks relevant" in result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(" ? " in line for line in lines)
    found = json.loads(run(store, "search", "zzzzqqq xyzzy", "--json").stdout)
    assert found["relevant"] is False and found["relevance"] < found["threshold"]
    assert found["hits"] and not any(hit["relevant"] for hit in found["hits"])


@pytest.mark.parametrize("command", [["ask", "Who proposed to Lucy?"], ["search", "Lucy"]])
def test_a_closed_standard_output_ends_quietly(store: Path, command: list[str]) -> None:
    """``loregraph ask ... | head -1``: the reader leaves; no message, exit 141 (SIGPIPE's)."""
    args = [sys.executable, "-m", "loregraph.cli", "--db", str(store), *command]
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before a line is written
    try:
        done = subprocess.run(args, stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (141, "")

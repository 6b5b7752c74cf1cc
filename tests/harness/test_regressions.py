"""Defects the fuzz targets found, each pinned by the smallest input that showed it.

Before the fixes these inputs crashed with an unexpected ``ValueError``, ``RecursionError``,
``UnicodeEncodeError`` or ``TypeError`` (the CLI's "this is a defect" exit 70), silently
replaced a record by another of the same file, or were stored with an empty title.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from loregraph.errors import InputError
from loregraph.ingest.read.readers import read_path, read_stdin
from loregraph.ingest.read.records import read_records
from loregraph.ingest.read.textio import BinaryFileError, NotUtf8Error


def _records(tmp_path: Path, name: str, body: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(body, str):
        path.write_text(body, encoding="utf-8")
    else:
        path.write_bytes(body)
    return path


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        ("big.jsonl", '{"text": "hello world", "n": ' + "1" * 5000 + "}\n", "too long"),
        ("big.json", '[{"text": "hello world", "n": ' + "1" * 5000 + "}]", "too long"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (
            "deep.jsonl",
            '{"text": "hi there", "m": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
            "deep",
        ),
        ("nan.jsonl", '{"text": "hello there", "m": NaN}\n', "NaN"),
        ("inf.json", '[{"text": "hello there", "id": -Infinity}]', "Infinity"),
        ("surrogate.jsonl", '{"text": "\\ud800 hello there"}\n', "lone surrogate"),
        ("surrogate-title.jsonl", '{"text": "hello there", "title": "\\udfff"}\n', "surrogate"),
        ("surrogate-id.json", '[{"text": "hello there", "id": "\\udfff"}]', "surrogate"),
        ("surrogate-key.jsonl", '{"text": "hello there", "\\ud800": 1}\n', "surrogate"),
        ("nul.jsonl", '{"text": "hello\\u0000 there"}\n', "NUL"),
        ("nul-meta.json", '[{"text": "hello there", "m": ["a\\u0000b"]}]', "NUL"),
        (
            "same-id.jsonl",
            '{"id": "a", "text": "Mina wrote to Lucy."}\n{"id": "a", "text": "Harker left."}\n',
            'two records have the id "a"',
        ),
        ("same-id-number.json", '[{"id": 7, "text": "one"}, {"id": "7", "text": "two"}]', '"7"'),
    ],
)
def test_records_no_store_could_keep_are_refused_by_name(
    tmp_path: Path, name: str, body: str, message: str
) -> None:
    path = _records(tmp_path, name, body)
    with pytest.raises(InputError, match=message):
        list(read_records(path))
    with pytest.raises(InputError, match=message):
        list(read_records(io.BytesIO(path.read_bytes())))


def test_a_record_with_a_blank_title_is_titled_by_its_id_or_position(tmp_path: Path) -> None:
    path = _records(
        tmp_path,
        "t.jsonl",
        '{"id": "x1", "title": " ", "text": "one"}\n{"title": "", "text": "two"}\n',
    )
    assert [d.title for d in read_records(path)] == ["x1", "t.jsonl#1"]


def test_stdin_with_lone_surrogates_or_nul_is_refused() -> None:
    with pytest.raises(NotUtf8Error, match="stdin is not valid UTF-8"):
        read_stdin(io.StringIO("hello \ud800 there"))
    with pytest.raises(NotUtf8Error, match="document id"):
        read_stdin(io.StringIO("hello there"), doc_id="note-\udcff")
    with pytest.raises(NotUtf8Error, match="title"):
        read_stdin(io.StringIO("hello there"), "\udcff")
    with pytest.raises(BinaryFileError, match="NUL"):
        read_stdin(io.BytesIO(b"hello\x00 there"))


def test_a_text_file_with_nul_past_the_sniffed_start_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "late-nul.txt"
    path.write_bytes(b"word " * 4000 + b"\x00 more words")
    with pytest.raises(BinaryFileError, match="NUL"):
        list(read_path(path))


def test_a_file_whose_name_is_not_utf8_is_read_with_an_escaped_name(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "caf\udce9.txt").write_text("Mina wrote to Lucy.", encoding="utf-8")
    [document] = read_path(folder)
    assert document.source == str(folder.resolve() / "caf\\xe9.txt")
    assert document.title == "caf\\xe9"
    document.source.encode("utf-8")


def _cli(
    db: Path, *args: str | bytes, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "loregraph.cli", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        check=False,
    )


@pytest.mark.slow
def test_cli_refuses_these_inputs_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    bad = [
        _records(tmp_path, "big.jsonl", '{"text": "hello", "n": ' + "1" * 5000 + "}\n"),
        _records(tmp_path, "sur.jsonl", '{"text": "\\ud800 hello there"}\n'),
        _records(tmp_path, "dup.jsonl", '{"id": 1, "text": "one"}\n{"id": 1, "text": "two"}\n'),
    ]
    for path in bad:
        done = _cli(db, "ingest", str(path))
        assert done.returncode == 2, done.stderr
        assert b"Traceback" not in done.stderr and b"defect" not in done.stderr
        assert len(done.stderr.decode().strip().splitlines()) == 1
    # an --id argument that is not UTF-8 (Python hands it over with a lone surrogate)
    done = _cli(db, "ingest", "-", "--id", b"bad-\xff", stdin=b"hello there")
    assert done.returncode == 2, done.stderr
    assert not db.exists()
    # a folder holding a file whose name is not UTF-8 is ingested, not a crash
    folder = tmp_path / "latin1"
    folder.mkdir()
    (folder / "caf\udce9.txt").write_text("Jonathan Harker went to Bistritz.", encoding="utf-8")
    done = _cli(db, "ingest", str(folder))
    assert done.returncode == 0, done.stderr


def test_no_empty_chunk_after_a_hard_cut_at_the_end_of_the_text() -> None:
    from loregraph.ingest.chunk.chunker import chunk_text
    from loregraph.settings import ChunkSettings

    # one character of two tokens, with one token allowed: it is cut on its own, and the
    # loop used to go on and yield an empty chunk at the end of the text
    chunks = list(chunk_text("\x81", ChunkSettings(size=1, overlap=0, unit="tokens")))
    assert [(c.start, c.end, c.text) for c in chunks] == [(0, 1, "\x81")]


async def test_a_question_that_is_not_valid_unicode_is_an_input_error(tmp_path: Path) -> None:
    from .tiny import build_tiny

    # search $'Harker \xff' reached the embedder's tokenizer: "unexpected TypeError"
    graph = await build_tiny(str(tmp_path / "tiny.db"), tmp_path / "tiny.jsonl")
    try:
        for question in ("Harker \udcff", "\ud800"):
            with pytest.raises(InputError, match="not valid UTF-8"):
                await graph.search(question)
            with pytest.raises(InputError, match="not valid UTF-8"):
                await graph.ask(question)
    finally:
        await graph.close()


@pytest.mark.slow
def test_one_bad_input_after_a_full_batch_of_good_ones_writes_nothing(tmp_path: Path) -> None:
    # the first 64 records (one ingest batch) used to be written before the bad file was
    # read, and the command still said only "error: ... is a binary file", exit 2
    records = tmp_path / "notes.jsonl"
    rows = (f'{{"id": "n{i}", "text": "Note {i} from Whitby."}}' for i in range(70))
    records.write_text("\n".join(rows) + "\n", encoding="utf-8")
    bad = tmp_path / "scan.txt"
    bad.write_bytes(b"%PDF-1.4\n...")
    db = tmp_path / "store.db"
    done = _cli(db, "ingest", str(records), str(bad))
    assert done.returncode == 2, done.stderr
    assert b"scan.txt" in done.stderr
    assert not db.exists()

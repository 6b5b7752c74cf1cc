"""Readers: files, directories, JSON records and stdin, and a clear error for each bad input."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from loregraph.errors import EmptyInputError, InputError
from loregraph.ingest.read.readers import iter_sources, read_path, read_records, read_stdin
from loregraph.ingest.read.readlog import ReadLog

CORPUS = Path("/work/shared/bench/2wikimultihopqa/corpus.json")


def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# --- single files ------------------------------------------------------------------------


def test_text_file_gives_one_document_titled_by_its_stem(tmp_path: Path) -> None:
    path = _write(tmp_path / "dracula.txt", "Count Dracula lives in a castle.\n")
    (doc,) = read_path(path)
    assert doc.title == "dracula"
    assert doc.text == "Count Dracula lives in a castle.\n"
    assert doc.source == str(path.resolve())
    assert doc.metadata == {"path": str(path.resolve()), "bytes": path.stat().st_size}
    assert doc.external_id is None


def test_markdown_title_is_the_first_level_one_heading_outside_code(tmp_path: Path) -> None:
    text = "intro\n```bash\n# not a title\n```\n## Sub\n# Harker's Journal #\n\nbody\n"
    (doc,) = read_path(_write(tmp_path / "journal.md", text))
    assert doc.title == "Harker's Journal"


def test_markdown_front_matter_title_wins(tmp_path: Path) -> None:
    text = '---\ntitle: "Mina\'s Letters"\ntags: [x]\n---\n# Heading\n'
    (doc,) = read_path(_write(tmp_path / "letters.markdown", text))
    assert doc.title == "Mina's Letters"


def test_markdown_without_heading_uses_the_stem(tmp_path: Path) -> None:
    (doc,) = read_path(_write(tmp_path / "notes.md", "just text, #not-a-heading\n"))
    assert doc.title == "notes"


def test_extensionless_text_file_given_explicitly_is_read(tmp_path: Path) -> None:
    (doc,) = read_path(_write(tmp_path / "README", "plain words"))
    assert (doc.title, doc.text) == ("README", "plain words")


def test_utf8_bom_is_accepted_and_dropped(tmp_path: Path) -> None:
    (doc,) = read_path(_write(tmp_path / "bom.txt", b"\xef\xbb\xbfWhitby abbey"))
    assert doc.text == "Whitby abbey"


def test_missing_path_is_an_input_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(InputError, match=f"no such file or directory: {missing}"):
        read_path(missing)


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b"%PDF-1.7\n...", "PDF"),
        (b"PK\x03\x04rest", "ZIP"),
        (b"\x89PNG\r\n\x1a\nrest", "PNG"),
        (b"abc\x00def", "NUL"),
        ("UTF-16 text".encode("utf-16"), "UTF-16"),
    ],
)
def test_binary_file_given_explicitly_is_an_input_error(
    tmp_path: Path, content: bytes, kind: str
) -> None:
    path = _write(tmp_path / "file.txt", content)
    with pytest.raises(InputError, match=kind) as caught:
        list(read_path(path))
    assert str(path) in str(caught.value)
    assert "binary" in str(caught.value)


def test_invalid_utf8_names_the_file_and_the_offset_of_the_first_bad_byte(tmp_path: Path) -> None:
    path = _write(tmp_path / "latin1.txt", "café au lait".encode("latin-1"))
    with pytest.raises(InputError, match=r"not valid UTF-8 \(first bad byte at offset 3\)") as e:
        list(read_path(path))
    assert str(path) in str(e.value)


def test_invalid_utf8_offset_counts_the_bom(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.txt", b"\xef\xbb\xbfab\xffc")
    with pytest.raises(InputError, match="offset 5"):
        list(read_path(path))


def test_whitespace_only_file_is_an_empty_input_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "blank.md", " \n\t\n")
    with pytest.raises(EmptyInputError, match=r"blank\.md"):
        list(read_path(path))


# --- directories -------------------------------------------------------------------------


def test_directory_is_walked_recursively_sorted_skipping_hidden_and_other_files(
    tmp_path: Path,
) -> None:
    _write(tmp_path / "b.txt", "bee")
    _write(tmp_path / "a.md", "# Alpha\nay")
    _write(tmp_path / "sub" / "c.text", "see")
    _write(tmp_path / "sub" / "deeper" / "d.markdown", "dee")
    _write(tmp_path / ".hidden.txt", "secret")
    _write(tmp_path / ".git" / "e.txt", "git internals")
    _write(tmp_path / "data.json", '[{"title": "x", "text": "y"}]')
    _write(tmp_path / "notes.xyz", "an unknown kind of file")
    _write(tmp_path / "sub" / "script.py", "print('hi')")
    log = ReadLog()
    docs = list(read_path(tmp_path, log=log))
    assert [d.title for d in docs] == ["Alpha", "b", "c", "d", "sub/script.py"]
    assert [d.text for d in docs] == ["# Alpha\nay", "bee", "see", "dee", "print('hi')"]
    assert docs[-1].metadata["language"] == "python"  # source code, named by its path
    assert docs[-1].metadata["code_path"] == "sub/script.py"
    skipped = {Path(s.where).name: s.why for s in log.skipped}
    assert set(skipped) == {"data.json", "notes.xyz"}  # hidden files are not listed
    assert "give it to ingest directly" in skipped["data.json"]
    assert "not a supported type (.xyz)" in skipped["notes.xyz"]


def test_symlink_loop_in_a_directory_is_walked_once(tmp_path: Path) -> None:
    _write(tmp_path / "sub" / "a.txt", "alpha")
    (tmp_path / "sub" / "loop").symlink_to(tmp_path, target_is_directory=True)
    assert [d.text for d in read_path(tmp_path)] == ["alpha"]


def test_binary_and_empty_files_in_a_directory_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _write(tmp_path / "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00")
    _write(tmp_path / "empty.md", "")
    _write(tmp_path / "real.txt", "words")
    with caplog.at_level(logging.WARNING):
        docs = list(read_path(tmp_path))
    assert [d.title for d in docs] == ["real"]
    assert "image.txt" in caplog.text
    assert "empty.md" in caplog.text


def test_invalid_utf8_in_a_directory_is_skipped_and_reported_like_binary(
    tmp_path: Path,
) -> None:
    _write(tmp_path / "ok.txt", "fine")
    _write(tmp_path / "zz.txt", b"caf\xe9")
    _write(tmp_path / "dots.txt", " ... !!! \n")
    log = ReadLog()
    assert [d.text for d in read_path(tmp_path, log=log)] == ["fine"]
    reasons = {Path(s.where).name: s.why for s in log.skipped}
    assert reasons["zz.txt"].startswith("not valid UTF-8 (first bad byte at offset 3)")
    assert "no words" in reasons["dots.txt"]


def test_invalid_utf8_given_directly_is_still_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "zz.txt", b"caf\xe9")
    with pytest.raises(InputError, match=r"zz\.txt is not valid UTF-8"):
        list(read_path(path))


@pytest.mark.parametrize("content", ["   \n\t", "... !!! --- ?", "\u3000\u3002"])
def test_whitespace_or_punctuation_only_file_is_refused(tmp_path: Path, content: str) -> None:
    path = _write(tmp_path / "blank.txt", content)
    with pytest.raises(EmptyInputError, match="holds no words"):
        list(read_path(path))


def test_text_in_any_script_counts_as_words(tmp_path: Path) -> None:
    (doc,) = read_path(_write(tmp_path / "zh.txt", "德古拉伯爵住在城堡里。"))
    assert doc.text.startswith("德古拉")


def test_directory_with_nothing_readable_names_it_and_the_extensions(tmp_path: Path) -> None:
    _write(tmp_path / "photo.jpg", b"\xff\xd8\xff\xe0")
    _write(tmp_path / ".notes.txt", "hidden")
    with pytest.raises(EmptyInputError) as caught:
        list(read_path(tmp_path))
    message = str(caught.value)
    assert str(tmp_path) in message
    assert ".txt" in message and ".md" in message


# --- records -----------------------------------------------------------------------------


def test_json_array_records(tmp_path: Path) -> None:
    records = [
        {"title": "Teutberga", "text": "A queen of Lotharingia.", "year": 875},
        {"id": 7, "title": "Lambert", "text": "Margrave of Tuscany."},
    ]
    path = _write(tmp_path / "corpus.json", json.dumps(records))
    first, second = read_path(path)
    assert (first.title, first.source, first.external_id) == (
        "Teutberga",
        f"{path.resolve()}#0",
        None,
    )
    assert first.metadata == {"year": 875}
    assert (second.source, second.external_id, second.metadata) == ("7", "7", {})


def test_jsonl_records_stream_and_skip_blank_lines_and_empty_text(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lines = [
        json.dumps({"title": "One", "text": "first"}),
        "",
        json.dumps({"title": "Two", "text": "   "}),
        json.dumps({"text": "third", "id": "r3"}),
    ]
    path = _write(tmp_path / "memories.jsonl", "\n".join(lines) + "\n")
    with caplog.at_level(logging.WARNING):
        docs = list(read_records(path))
    source = f"{path.resolve()}#0"
    assert [(d.title, d.source) for d in docs] == [("One", source), ("r3", "r3")]
    assert "record 1" in caplog.text


@pytest.mark.parametrize("name", ["notes.json", "notes.jsonl"])
def test_json_array_and_jsonl_treat_an_empty_record_alike(tmp_path: Path, name: str) -> None:
    records = [{"title": "A", "text": "alpha"}, {"title": "B", "text": " "}]
    if name.endswith(".jsonl"):
        content = "\n".join(json.dumps(r) for r in records)
    else:
        content = json.dumps(records)
    log = ReadLog()
    docs = list(read_records(_write(tmp_path / name, content), log=log))
    assert [d.title for d in docs] == ["A"]
    assert [s.why for s in log.skipped] == ["empty text"]
    assert "record 1" in log.skipped[0].where


def test_records_without_id_in_two_files_of_the_same_name_never_collide(
    tmp_path: Path,
) -> None:
    one = _write(tmp_path / "d1" / "notes.jsonl", json.dumps({"text": "alpha"}))
    two = _write(tmp_path / "d2" / "notes.jsonl", json.dumps({"text": "beta"}))
    (a,) = read_records(one)
    (b,) = read_records(two)
    assert a.source != b.source
    assert a.title == b.title == "notes.jsonl#0"


def test_a_bad_record_rejects_the_file_before_any_record_is_handed_on(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", '{"text": "good"}\n{"title": "no text"}\n')
    with pytest.raises(InputError, match="record 1"):
        next(iter(read_records(path)))


def test_json_file_holding_json_lines_or_a_single_object_is_accepted(tmp_path: Path) -> None:
    lines = _write(tmp_path / "lines.json", '{"text": "a"}\n{"text": "b"}\n')
    assert [d.text for d in read_path(lines)] == ["a", "b"]
    single = _write(tmp_path / "one.json", '{\n  "title": "T",\n  "text": "only"\n}\n')
    assert [d.title for d in read_path(single)] == ["T"]


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"title": "no text"}, 'has no "text" field'),
        ({"title": "t", "text": 42}, '"text" that is not a string'),
        ("just a string", "JSON string, not an object"),
        ({"title": ["x"], "text": "t"}, '"title" that is not a string'),
    ],
)
def test_bad_record_names_the_file_and_the_record_index(
    tmp_path: Path, record: object, problem: str
) -> None:
    good = {"title": "ok", "text": "fine"}
    path = _write(tmp_path / "bad.jsonl", f"{json.dumps(good)}\n{json.dumps(record)}\n")
    with pytest.raises(InputError, match=r"bad\.jsonl: record 1") as caught:
        list(read_records(path))
    assert problem in str(caught.value)


def test_invalid_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "broken.jsonl", '{"text": "a"}\n{"text": \n')
    with pytest.raises(InputError, match=r"broken\.jsonl: line 2 is not valid JSON"):
        list(read_records(path))
    array = _write(tmp_path / "broken.json", '[{"text": "a"},')
    with pytest.raises(InputError, match=r"broken\.json is not valid JSON"):
        list(read_records(array))


def test_invalid_utf8_in_jsonl_reports_the_byte_offset(tmp_path: Path) -> None:
    path = _write(tmp_path / "enc.jsonl", b'{"text": "a"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(InputError, match="offset 27"):
        list(read_records(path))


def test_record_file_with_no_usable_records_is_empty_input(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.json", "[]")
    with pytest.raises(EmptyInputError, match=r"empty\.json"):
        list(read_records(path))


def test_records_from_text_and_binary_streams() -> None:
    text_stream = io.StringIO('[{"title": "A", "text": "alpha"}]')
    assert [d.title for d in read_records(text_stream)] == ["A"]
    binary_stream = io.BytesIO(b'\n{"text": "x"}\n{"text": "y", "id": "b"}\n')
    first, second = read_records(binary_stream)
    assert first.source.startswith("stdin#sha256:") and second.source == "b"
    again = read_records(io.BytesIO(b'{"text": "x"}\n'))
    assert next(again).source == first.source  # the same text, the same identity


@pytest.mark.skipif(not CORPUS.exists(), reason="benchmark corpus not present")
def test_benchmark_corpus_smoke() -> None:
    docs = read_records(CORPUS)
    first = next(docs)
    assert first.title and first.text
    assert first.source == f"{CORPUS.resolve()}#0"


# --- stdin and dispatch ------------------------------------------------------------------


def test_read_stdin_from_text_and_binary_streams() -> None:
    doc = read_stdin(io.StringIO("Renfield eats flies."))
    assert (doc.title, doc.text) == ("Renfield eats flies.", "Renfield eats flies.")
    assert doc.source.startswith("stdin:sha256:")
    other = read_stdin(io.StringIO("Lucy walks at night."))
    assert other.source != doc.source  # two texts piped in never share an identity
    named = read_stdin(io.BytesIO("naïve".encode()), title="note", doc_id="n-1")
    assert (named.title, named.text, named.source, named.external_id) == (
        "note",
        "naïve",
        "n-1",
        "n-1",
    )


def test_read_stdin_errors() -> None:
    with pytest.raises(EmptyInputError, match="stdin"):
        read_stdin(io.StringIO("  \n"))
    with pytest.raises(InputError, match="stdin is not valid UTF-8"):
        read_stdin(io.BytesIO(b"\xff\xfe\xfa"))


def test_iter_sources_dispatches_and_reads_each_file_once(tmp_path: Path) -> None:
    text = _write(tmp_path / "docs" / "a.txt", "alpha")
    records = _write(tmp_path / "r.jsonl", '{"text": "beta"}\n')
    docs = list(
        iter_sources(
            [str(tmp_path / "docs"), str(text), str(records), "-"],
            stdin=io.StringIO("gamma"),
        )
    )
    assert [d.text for d in docs] == ["alpha", "beta", "gamma"]


def test_iter_sources_records_flag_overrides_extensions(tmp_path: Path) -> None:
    as_text = _write(tmp_path / "r.json", '[{"text": "x"}]')
    (doc,) = iter_sources([str(as_text)], records=False)
    assert doc.text == '[{"text": "x"}]'
    (record,) = iter_sources(["-"], stdin=io.StringIO('{"text": "y"}'), records=True)
    assert record.text == "y"


def test_iter_sources_checks_every_path_before_reading(tmp_path: Path) -> None:
    real = _write(tmp_path / "a.txt", "alpha")
    with pytest.raises(InputError, match=r"missing\.txt"):
        iter_sources([str(real), str(tmp_path / "missing.txt")])

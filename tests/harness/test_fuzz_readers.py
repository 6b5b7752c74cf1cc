"""Fuzz the readers: files of any bytes and extension, folders of them, and standard input.

Only loregraph's own errors may come out; text that is valid UTF-8 with words is always
read, exactly; a folder never fails because of one of its files and passes over nothing
silently (every visible file is either read or reported as skipped).
"""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from loregraph.errors import EmptyInputError, InputError, LoregraphError
from loregraph.ingest.read.convert import is_convertible
from loregraph.ingest.read.readers import read_path, read_stdin
from loregraph.ingest.read.readlog import ReadLog, has_words
from loregraph.ingest.read.textio import (
    BinaryFileError,
    NotUtf8Error,
    binary_kind,
    one_line_end,
    path_text,
)

from .fuzzing import fuzz, scratch, tally
from .strategies import EXTENSIONS, FILE_BYTES, TEXT

TEXT_EXTENSIONS = (".txt", ".md", ".markdown", ".text")


def _expected_text(data: bytes) -> str | None:
    """The text a plain-text file with these bytes must be read as (None: must be refused)."""
    if binary_kind(data) is not None:
        return None
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:  # NUL is binary content wherever it is
        return None
    return one_line_end(text) if has_words(text) else None


@fuzz(900)
@given(data=FILE_BYTES, extension=EXTENSIONS, name=st.sampled_from(["notes", "a b", "ü", "x.y"]))
def test_any_file_is_read_exactly_or_refused_with_an_input_error(
    data: bytes, extension: str, name: str
) -> None:
    tally("read_path file")
    with scratch() as tmp:
        path = tmp / f"{name}{extension}"
        path.write_bytes(data)
        try:
            documents = list(read_path(path, log=ReadLog()))
        except LoregraphError as exc:
            assert str(exc).strip(), "an error must say what is wrong"
            documents = None
        lowered = extension.lower()
        if lowered in (".json", ".jsonl") or is_convertible(path):
            for document in documents or []:
                assert has_words(document.text)
            return
        expected = _expected_text(data)
        if expected is None:
            assert documents is None, f"{data[:40]!r} should have been refused"
            return
        assert documents is not None, f"{data[:40]!r} is text and should have been read"
        [document] = documents
        assert document.text == expected
        assert document.source == str(path.resolve())
        assert document.metadata["path"] == str(path.resolve())
        assert isinstance(document.title, str) and document.title


@fuzz(500)
@given(data=FILE_BYTES)
def test_refusals_say_why(data: bytes) -> None:
    """A refused text file raises the error class that names its problem."""
    tally("read_path refusal")
    with scratch() as tmp:
        path = tmp / "doc.txt"
        path.write_bytes(data)
        expected = _expected_text(data)
        try:
            list(read_path(path))
        except BinaryFileError:
            assert binary_kind(data) is not None or b"\x00" in data
        except NotUtf8Error:
            assert binary_kind(data) is None and expected is None
        except EmptyInputError:
            assert expected is None
        else:
            assert expected is not None


FOLDER_FILE = st.tuples(
    # "caf\udce9" is the name whose bytes are b"caf\xe9" (Latin-1, not UTF-8)
    st.sampled_from(["a", "b", "sub/d", "sub/deeper/e", ".hidden", "sub/.f", "g h", "caf\udce9"]),
    EXTENSIONS,
    FILE_BYTES,
)


@fuzz(300)
@given(files=st.lists(FOLDER_FILE, max_size=5, unique_by=lambda f: (f[0], f[1].lower())))
def test_a_folder_reads_or_reports_every_visible_file(
    files: list[tuple[str, str, bytes]],
) -> None:
    tally("read_path folder")
    with scratch() as tmp:
        root = tmp / "folder"
        root.mkdir()
        visible: set[str] = set()
        for stem, extension, data in files:
            path = root / f"{stem}{extension}"
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():  # names differing only in case on a case-folding file system
                continue
            path.write_bytes(data)
            if not any(part.startswith(".") for part in path.relative_to(root).parts):
                visible.add(path_text(path))
        log = ReadLog()
        try:
            documents = list(read_path(root, log=log))
        except EmptyInputError:
            documents = []
        except InputError as exc:  # one file must never stop a folder
            raise AssertionError(f"a folder failed because of one file: {exc}") from exc
        read = {str(Path(d.metadata["path"])) for d in documents}
        skipped = [s.where for s in log.skipped]
        assert len(read) == len(documents), "a file was read twice"
        assert len(set(skipped)) == len(skipped), "a file was reported twice"
        resolved = {path_text(Path(p).resolve()): p for p in visible}
        read_as_given = {resolved.get(p, p) for p in read}
        assert read_as_given.isdisjoint(skipped), "a file was both read and skipped"
        assert read_as_given | set(skipped) == visible, "a file was passed over silently"
        for document in documents:
            assert has_words(document.text)
            for value in (document.source, document.title, document.metadata["path"]):
                value.encode("utf-8")  # storable: no lone surrogate from a file name
            assert all(s.why.strip() for s in log.skipped)


STREAM_KIND = st.sampled_from(["bytes", "text", "wrapped"])


@fuzz(700)
@given(
    content=st.one_of(FILE_BYTES, TEXT),
    kind=STREAM_KIND,
    doc_id=st.one_of(st.none(), st.just(""), st.just("  "), TEXT),
    title=st.one_of(st.none(), TEXT),
)
def test_stdin_is_one_document_or_an_input_error(
    content: bytes | str, kind: str, doc_id: str | None, title: str | None
) -> None:
    tally("read_stdin")
    data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    assume(kind != "text" or isinstance(content, str))

    def stream() -> io.IOBase:
        if kind == "text":
            assert isinstance(content, str)
            return io.StringIO(content)
        if kind == "wrapped":
            return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        return io.BytesIO(data)

    try:
        document = read_stdin(stream(), title, doc_id=doc_id)  # type: ignore[arg-type]
    except LoregraphError as exc:
        assert str(exc).strip()
        return
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    expected = one_line_end(body.decode("utf-8"))
    assert document.text == expected and "\x00" not in document.text
    assert document.text.encode("utf-8")  # valid Unicode, storable anywhere
    assert document.title.encode("utf-8") and document.source.encode("utf-8")
    if doc_id is not None:
        assert doc_id.strip() and document.source == doc_id
    else:
        assert document.source.startswith("stdin:sha256:")
    again = read_stdin(stream(), title, doc_id=doc_id)  # type: ignore[arg-type]
    assert again.source == document.source and again.text == document.text
    assert isinstance(document.title, str) and document.title

"""Turn user input (files, directories, JSON records, stdin) into :class:`SourceDocument`\\ s.

Text must be UTF-8 (a byte-order mark is fine); it is decoded strictly, so a file in another
encoding is reported with the offset of its first bad byte instead of being silently garbled.

* A file given explicitly is read if it is text, whatever its extension; ``.json`` and
  ``.jsonl`` files are record files (one document per record). A binary file, invalid UTF-8
  or an empty file is an error naming the file.
* A directory is walked recursively in sorted order for ``.txt``, ``.md``, ``.markdown`` and
  ``.text`` files, skipping hidden files and directories. Binary and empty files inside it
  are skipped with a warning (a notes folder often holds a stray image or an empty draft);
  invalid UTF-8 is still an error, since skipping it would silently lose a document.
* In a record file, a record with empty text is skipped with a warning; a record that is not
  an object or lacks a string ``text`` is an error naming the file and the record index.
"""

from __future__ import annotations

import io
import itertools
import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

from loregraph.errors import EmptyInputError, InputError
from loregraph.ingest.types import SourceDocument

logger = logging.getLogger(__name__)

TEXT_EXTENSIONS = (".txt", ".md", ".markdown", ".text")
MARKDOWN_EXTENSIONS = (".md", ".markdown")
RECORD_EXTENSIONS = (".json", ".jsonl")

_SNIFF_BYTES = 8192
_BOM = b"\xef\xbb\xbf"
# leading bytes of common binary formats, with a name users recognise
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "ZIP archive (also DOCX, XLSX, EPUB)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office document"),
    (b"{\\rtf", "RTF document"),
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)
_BINARY_HINT = (
    "convert it to plain text or Markdown first (for example with markitdown) or leave it out"
)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_H1 = re.compile(r"^\s{0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FRONT_MATTER_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.MULTILINE)


class BinaryFileError(InputError):
    """A binary file where text was expected (an :class:`InputError`)."""


def _missing(path: str | Path) -> InputError:
    return InputError(f"no such file or directory: {path}; check the path and try again.")


def read_path(path: str | Path) -> Iterator[SourceDocument]:
    """Documents from a file or a directory (see the module docstring for the rules).

    A missing path raises :class:`InputError` at once; other errors are raised while
    iterating, when the offending file is reached.
    """
    path = Path(path)
    if not path.exists():
        raise _missing(path)
    if path.is_dir():
        return _read_directory(path)
    if path.suffix.lower() in RECORD_EXTENSIONS:
        return read_records(path)
    return iter([_read_file(path)])


def read_stdin(stream: IO[str] | IO[bytes], title: str = "stdin") -> SourceDocument:
    """One document from a text or binary stream (UTF-8, strictly decoded)."""
    data = _byte_stream(stream).read()
    text = _decode(data, "stdin")
    if not text.strip():
        raise EmptyInputError("stdin is empty or contains only whitespace; pipe some text in.")
    return SourceDocument(title=title, text=text, source="stdin", metadata={"bytes": len(data)})


def read_records(source: str | Path | IO[str] | IO[bytes]) -> Iterator[SourceDocument]:
    """Documents from a JSON array or JSON Lines of ``{"title", "text", "id"?, ...}`` objects.

    ``source`` is a path or an open stream. JSON Lines is read one line at a time; a JSON
    array (or a single object) is loaded whole. Keys other than ``title``, ``text`` and ``id``
    go to the document's metadata; ``source`` is the record's id if it has one, otherwise
    ``<file name>#<index>``.
    """
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.exists():
            raise _missing(path)
        return _records_from_file(path)
    name = Path(str(getattr(source, "name", "stdin"))).name or "stdin"
    return _records_from_stream(source, name)


def iter_sources(
    paths: Sequence[str],
    *,
    stdin: IO[str] | IO[bytes] | None = None,
    records: bool | None = None,
) -> Iterator[SourceDocument]:
    """Documents from several inputs: ``-`` is stdin, ``.json``/``.jsonl`` are record files.

    ``records=True`` reads every input (stdin included) as records, ``records=False`` reads
    every file as plain text, ``None`` decides by extension. A document whose source was
    A text file reached twice (given and inside a given directory) is read once. Missing
    paths are reported before anything is read.
    """
    for raw in paths:
        if raw != "-" and not Path(raw).exists():
            raise _missing(raw)
    return _dedupe(_iter_each(paths, stdin, records))


def _iter_each(
    paths: Sequence[str], stdin: IO[str] | IO[bytes] | None, records: bool | None
) -> Iterator[SourceDocument]:
    for raw in paths:
        if raw == "-":
            stream = stdin if stdin is not None else sys.stdin
            if records:
                yield from read_records(stream)
            else:
                yield read_stdin(stream)
            continue
        path = Path(raw)
        if path.is_file() and records is not None:
            yield from read_records(path) if records else iter([_read_file(path)])
        else:
            yield from read_path(path)


def _dedupe(documents: Iterable[SourceDocument]) -> Iterator[SourceDocument]:
    """Drop a text file read a second time (records are never dropped here)."""
    seen: set[str] = set()
    for document in documents:
        path = document.metadata.get("path")
        if path in seen:
            continue
        if path is not None:
            seen.add(path)
        yield document


# --- files and directories ---------------------------------------------------------------


def _read_file(path: Path) -> SourceDocument:
    data = path.read_bytes()
    kind = _binary_kind(data)
    if kind is not None:
        raise BinaryFileError(f"{path} is a binary file ({kind}), not text; {_BINARY_HINT}.")
    text = _decode(data, str(path))
    if not text.strip():
        raise EmptyInputError(
            f"{path} is empty or contains only whitespace; add text to it or leave it out."
        )
    resolved = str(path.resolve())
    return SourceDocument(
        title=_title(path, text),
        text=text,
        source=resolved,
        metadata={"path": resolved, "bytes": len(data)},
    )


def _read_directory(directory: Path) -> Iterator[SourceDocument]:
    found = 0
    for path in _text_files(directory):
        try:
            yield _read_file(path)
            found += 1
        except EmptyInputError:
            logger.warning("skipping %s: empty or whitespace only", path)
        except BinaryFileError:
            logger.warning("skipping %s: binary file", path)
    if not found:
        looked_for = ", ".join(TEXT_EXTENSIONS)
        raise EmptyInputError(
            f"no readable documents in directory {directory} (looked for {looked_for} files, "
            "skipping hidden ones); add text files to it or pass files directly."
        )


def _text_files(directory: Path, seen: set[Path] | None = None) -> Iterator[Path]:
    """Non-hidden text files under ``directory``, recursively, in sorted order."""
    seen = seen if seen is not None else set()
    real = directory.resolve()
    if real in seen:  # a symbolic link back up the tree
        return
    seen.add(real)
    for entry in sorted(directory.iterdir(), key=lambda p: p.name):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            yield from _text_files(entry, seen)
        elif entry.is_file() and entry.suffix.lower() in TEXT_EXTENSIONS:
            yield entry


def _title(path: Path, text: str) -> str:
    """A Markdown file's front-matter title or first ``# heading``; otherwise the stem."""
    if path.suffix.lower() in MARKDOWN_EXTENSIONS:
        body = text.lstrip("\ufeff")
        if body.startswith("---"):
            end = body.find("\n---", 3)
            if end != -1:
                match = _FRONT_MATTER_TITLE.search(body[3:end])
                if match:
                    return match.group(1).strip("\"'")
                body = body[end + 4 :]
        fenced = False
        for line in body.splitlines():
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and (heading := _H1.match(line)):
                return heading.group(1)
    return path.stem


# --- bytes to text -----------------------------------------------------------------------


def _binary_kind(data: bytes) -> str | None:
    """What kind of binary file ``data`` starts like, or None for text."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if b"\x00" in data[:_SNIFF_BYTES]:
        return "contains NUL bytes"
    return None


def _decode(data: bytes, name: str, offset: int = 0) -> str:
    """Strict UTF-8 decoding; a leading BOM is dropped. ``offset`` shifts reported offsets."""
    skip = len(_BOM) if data.startswith(_BOM) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as error:
        position = offset + skip + error.start
        raise InputError(
            f"{name} is not valid UTF-8 (first bad byte at offset {position}); "
            "re-save it as UTF-8 (for example with iconv -t utf-8) and try again."
        ) from None


# --- records -----------------------------------------------------------------------------


def _records_from_file(path: Path) -> Iterator[SourceDocument]:
    name = path.name
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
        kind = _binary_kind(head)
        if kind is not None:
            raise BinaryFileError(f"{path} is a binary file ({kind}), not JSON; {_BINARY_HINT}.")
        handle.seek(0)
        if path.suffix.lower() == ".jsonl":
            yield from _check_nonempty(_jsonl(handle, name), name)
        else:
            text = _decode(handle.read(), name)
            yield from _check_nonempty(_json_document(text, name), name)


def _records_from_stream(stream: IO[str] | IO[bytes], name: str) -> Iterator[SourceDocument]:
    raw = _byte_stream(stream)
    lines = iter(raw)
    pending: list[bytes] = []
    for line in lines:  # look at the first non-blank line to tell an array from JSONL
        pending.append(line)
        if line.strip():
            break
    head = b"".join(pending)
    if _starts_like_array(head):
        text = _decode(head + raw.read(), name)
        yield from _check_nonempty(_json_document(text, name), name)
    else:
        yield from _check_nonempty(_jsonl(itertools.chain(pending, lines), name), name)


def _byte_stream(stream: IO[str] | IO[bytes]) -> IO[bytes]:
    """The bytes behind a stream (a text stream without a buffer is encoded as UTF-8)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return cast(IO[bytes], buffer)
    if isinstance(stream.read(0), str):
        return io.BytesIO(cast(IO[str], stream).read().encode("utf-8"))
    return cast(IO[bytes], stream)


def _starts_like_array(head: bytes) -> bool:
    return head.removeprefix(_BOM).lstrip().startswith(b"[")


def _check_nonempty(documents: Iterator[SourceDocument], name: str) -> Iterator[SourceDocument]:
    found = False
    for document in documents:
        found = True
        yield document
    if not found:
        raise EmptyInputError(
            f'{name} holds no records with text; add records with a non-empty "text" field.'
        )


def _json_document(text: str, name: str) -> Iterator[SourceDocument]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":  # several objects: JSON Lines in a .json file
            yield from _jsonl(text.encode("utf-8").splitlines(keepends=True), name)
            return
        raise InputError(
            f"{name} is not valid JSON ({error.msg} at line {error.lineno}, column "
            f"{error.colno}); fix the file or use one JSON object per line (.jsonl)."
        ) from None
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        document = _record(item, name, index)
        if document is not None:
            yield document


def _jsonl(lines: Iterable[bytes], name: str) -> Iterator[SourceDocument]:
    offset = 0
    index = 0
    for line_number, line in enumerate(lines, start=1):
        text = _decode(line, name, offset)
        offset += len(line)
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                f"{name}: line {line_number} is not valid JSON ({error.msg}); "
                "a .jsonl file needs one JSON object per line."
            ) from None
        document = _record(item, name, index)
        index += 1
        if document is not None:
            yield document


def _record(item: Any, name: str, index: int) -> SourceDocument | None:
    where = f"{name}: record {index} (counting from 0)"
    if not isinstance(item, dict):
        raise InputError(
            f"{where} is a JSON {_json_type(item)}, not an object; "
            'each record must look like {"title": ..., "text": ...}.'
        )
    text = item.get("text")
    if not isinstance(text, str):
        problem = 'has no "text" field' if text is None else 'has a "text" that is not a string'
        raise InputError(f"{where} {problem}; give every record its text as a string.")
    raw_id = item.get("id")
    if raw_id is not None and not isinstance(raw_id, str | int):
        raise InputError(f'{where} has an "id" that is not a string or a number; fix the id.')
    external_id = None if raw_id is None else str(raw_id)
    source = external_id if external_id is not None else f"{name}#{index}"
    if not text.strip():
        logger.warning("skipping %s: empty text", where)
        return None
    title = item.get("title")
    if title is None:
        title = source
    elif not isinstance(title, str):
        raise InputError(f'{where} has a "title" that is not a string; fix the title.')
    metadata = {k: v for k, v in item.items() if k not in ("title", "text", "id")}
    return SourceDocument(
        title=title, text=text, source=source, external_id=external_id, metadata=metadata
    )


def _json_type(value: Any) -> str:
    if isinstance(value, bool | int | float):
        return "boolean" if isinstance(value, bool) else "number"
    return {str: "string", list: "array", type(None): "null"}.get(type(value), "value")

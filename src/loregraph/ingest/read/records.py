"""JSON arrays and JSON Lines of ``{"title", "text", "id"?, ...}`` records as documents.

A record's identity is its ``id`` when it has one: the same id ingested again (from any
file) replaces it. A record without an ``id`` is identified by where it is: the absolute
path of its file and its position (``/data/notes.jsonl#3``), or, read from a stream, by the
hash of its text. Two files that share a name therefore never replace each other's records.

A file is checked whole before any of its records is handed on: a malformed record rejects
the file with an error naming the file and the record, and nothing of it is written. A
record whose text is empty (or holds no letter or digit) is skipped and reported, in JSON
arrays and JSON Lines alike.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from loregraph.errors import EmptyInputError, InputError
from loregraph.ingest.read.readlog import ReadLog, default_log, has_words
from loregraph.ingest.read.textio import (
    BinaryFileError,
    NotUtf8Error,
    binary_kind,
    decode,
    has_surrogates,
    missing,
    path_text,
)
from loregraph.ingest.types import SourceDocument
from loregraph.models import content_hash

_SNIFF_BYTES = 8192
_BOM = b"\xef\xbb\xbf"
RECORD_HINT = "convert it to plain text or Markdown first, or leave it out"


def read_records(
    source: str | Path | IO[str] | IO[bytes],
    *,
    log: ReadLog | None = None,
    where: str | None = None,
) -> Iterator[SourceDocument]:
    """Documents from a JSON array or JSON Lines of ``{"title", "text", "id"?, ...}`` objects.

    ``source`` is a path or an open stream. Keys other than ``title``, ``text`` and ``id`` go
    to the document's metadata. Skipped records (empty text) are recorded in ``log``. A
    stream's records without an ``id`` are identified by ``where`` and their position
    (``upload:notes.jsonl#3``) when it is given, else by the hash of their text.
    """
    log = default_log(log)
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.exists():
            raise missing(path)
        _check_record_file(path)
        # checked whole first, then read again: a bad record rejects the file before any
        # of its records is written, without holding a large file in memory
        for _ in _records_from_file(path, ReadLog()):
            pass
        return _records_from_file(path, log)
    name = Path(str(getattr(source, "name", "stdin"))).name or "stdin"
    if name.startswith("<"):  # sys.stdin is called "<stdin>"
        name = "stdin"
    documents = list(_records_from_stream(source, name, where, log))
    return iter(documents)


def _check_record_file(path: Path) -> None:
    with path.open("rb") as handle:
        kind = binary_kind(handle.read(_SNIFF_BYTES))
    if kind is not None:
        raise BinaryFileError(f"{path} is a binary file ({kind}), not JSON; {RECORD_HINT}.")


def _records_from_file(path: Path, log: ReadLog) -> Iterator[SourceDocument]:
    name, where = path_text(path.name), path_text(path.resolve())
    with path.open("rb") as handle:
        if path.suffix.lower() == ".jsonl":
            yield from _check_nonempty(_jsonl(handle, name, where, log), name)
        else:
            text = decode(handle.read(), name)
            yield from _check_nonempty(_json_document(text, name, where, log), name)


def _records_from_stream(
    stream: IO[str] | IO[bytes], name: str, where: str | None, log: ReadLog
) -> Iterator[SourceDocument]:
    raw = byte_stream(stream)
    lines = iter(raw)
    pending: list[bytes] = []
    for line in lines:  # look at the first non-blank line to tell an array from JSONL
        pending.append(line)
        if line.strip():
            break
    head = b"".join(pending)
    if head.removeprefix(_BOM).lstrip().startswith(b"["):
        text = decode(head + raw.read(), name)
        yield from _check_nonempty(_json_document(text, name, where, log), name)
    else:
        yield from _check_nonempty(_jsonl(itertools.chain(pending, lines), name, where, log), name)


def byte_stream(stream: IO[str] | IO[bytes]) -> IO[bytes]:
    """The bytes behind a stream (a text stream without a buffer is encoded as UTF-8)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return cast(IO[bytes], buffer)
    if isinstance(stream.read(0), str):
        # a lone surrogate becomes the bytes it stands for, which decoding then reports
        text = cast(IO[str], stream).read()
        return io.BytesIO(text.encode("utf-8", "surrogatepass"))
    return cast(IO[bytes], stream)


def _check_nonempty(documents: Iterator[SourceDocument], name: str) -> Iterator[SourceDocument]:
    """The documents, refusing a file with none, or with two records of the same ``id``
    (the second would silently replace the first)."""
    found = False
    ids: set[str] = set()
    for document in documents:
        found = True
        if document.external_id is not None:
            if document.external_id in ids:
                raise InputError(
                    f'{name}: two records have the id "{document.external_id}"; give each '
                    "record its own id (a record replaces only an earlier ingest of itself)."
                )
            ids.add(document.external_id)
        yield document
    if not found:
        raise EmptyInputError(
            f'{name} holds no records with text; add records with a non-empty "text" field.'
        )


def _json_document(
    text: str, name: str, where: str | None, log: ReadLog
) -> Iterator[SourceDocument]:
    try:
        value = _loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":  # several objects: JSON Lines in a .json file
            lines = text.encode("utf-8").splitlines(keepends=True)
            yield from _jsonl(lines, name, where, log)
            return
        raise InputError(
            f"{name} is not valid JSON ({error.msg} at line {error.lineno}, column "
            f"{error.colno}); fix the file or use one JSON object per line (.jsonl)."
        ) from None
    except _UnreadableJson as error:
        raise InputError(f"{name} cannot be read as JSON: {error}; fix the file.") from None
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        document = _record(item, name, where, index, log)
        if document is not None:
            yield document


def _jsonl(
    lines: Iterable[bytes], name: str, where: str | None, log: ReadLog
) -> Iterator[SourceDocument]:
    offset = 0
    index = 0
    for line_number, line in enumerate(lines, start=1):
        text = decode(line, name, offset)
        offset += len(line)
        if not text.strip():
            continue
        try:
            item = _loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                f"{name}: line {line_number} is not valid JSON ({error.msg}); "
                "a .jsonl file needs one JSON object per line."
            ) from None
        except _UnreadableJson as error:
            raise InputError(
                f"{name}: line {line_number} cannot be read as JSON: {error}; fix the line."
            ) from None
        document = _record(item, name, where, index, log)
        index += 1
        if document is not None:
            yield document


def _record(
    item: Any, name: str, where: str | None, index: int, log: ReadLog
) -> SourceDocument | None:
    at = f"{name}: record {index} (counting from 0)"
    if not isinstance(item, dict):
        raise InputError(
            f"{at} is a JSON {_json_type(item)}, not an object; "
            'each record must look like {"title": ..., "text": ...}.'
        )
    text = item.get("text")
    if not isinstance(text, str):
        problem = 'has no "text" field' if text is None else 'has a "text" that is not a string'
        raise InputError(f"{at} {problem}; give every record its text as a string.")
    raw_id = item.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        raise InputError(f'{at} has an "id" that is not a string or a whole number; fix the id.')
    if isinstance(raw_id, str) and not raw_id.strip():
        raise InputError(f'{at} has an empty "id"; give it a real id or leave the field out.')
    title = item.get("title")
    if title is not None and not isinstance(title, str):
        raise InputError(f'{at} has a "title" that is not a string; fix the title.')
    _check_strings(item, at)
    if not has_words(text):
        log.skip(at, "empty text" if not text.strip() else "the text holds no words")
        return None
    external_id = None if raw_id is None else str(raw_id)
    if external_id is not None:
        source = external_id
    elif where is not None:
        source = f"{where}#{index}"
    else:
        source = f"{name}#sha256:{content_hash(text)[:16]}"
    metadata = {k: v for k, v in item.items() if k not in ("title", "text", "id")}
    return SourceDocument(
        title=title if title and title.strip() else (external_id or f"{name}#{index}"),
        text=text,
        source=source,
        external_id=external_id,
        metadata=metadata,
        former_source=None if external_id is not None else f"{name}#{index}",
    )


class _UnreadableJson(ValueError):
    """JSON the parser accepts in form but that is not data: NaN, too deep, too long."""


def _reject_constant(name: str) -> Any:
    raise _UnreadableJson(f"{name} is not a JSON value (JSON has no NaN or Infinity)")


def _loads(text: str) -> Any:
    """``json.loads``, strict about what Python's parser lets through: ``NaN`` and
    ``Infinity``, nesting too deep for the parser, integers too long to convert."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _UnreadableJson("it is nested too deeply") from None
    except _UnreadableJson:
        raise
    except ValueError:  # Python refuses integers of more than 4,300 digits
        raise _UnreadableJson("a number is too long (more than 4,300 digits)") from None


def _check_strings(item: dict[str, Any], at: str) -> None:
    """Refuse a record holding a string no store can keep: a lone surrogate (a ``\\ud800``
    escape) or a NUL character (``\\u0000``), in any field or key."""
    stack: list[Any] = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            if has_surrogates(value):
                raise NotUtf8Error(
                    f"{at} holds a lone surrogate escape (such as \\ud800), which is not "
                    "text; fix the record."
                )
            if "\x00" in value:
                raise InputError(f"{at} holds a NUL character (\\u0000); remove it.")


def _json_type(value: Any) -> str:
    if isinstance(value, bool | int | float):
        return "boolean" if isinstance(value, bool) else "number"
    return {str: "string", list: "array", type(None): "null"}.get(type(value), "value")

"""Turn user input (files, directories, JSON records, stdin) into :class:`SourceDocument`\\ s.

* A file given explicitly is read if it is text, whatever its extension; ``.json`` and
  ``.jsonl`` files are record files (one document per record, see :mod:`.records`); PDF,
  Word, PowerPoint and HTML files go through the optional converter
  (:mod:`.convert`). A binary file, invalid UTF-8, or a file with no words is an error
  naming the file.
* A directory is walked recursively in sorted order, skipping hidden files and directories.
  Text files (``.txt``, ``.md``, ``.markdown``, ``.text``) are read, convertible documents
  converted, and source files (Python, JavaScript, TypeScript, Go, Rust, Java; see
  :mod:`loregraph.ingest.code`) read as code, named by their path inside the directory
  (with the ``code`` extra installed; without it they are skipped, saying so); manifests
  and lockfiles are read for their dependencies (a lockfile kept as one line a locked
  package, :mod:`loregraph.ingest.code.lockfiles`), settings files for their settings
  (kept with their secrets masked, :mod:`loregraph.ingest.code.masking`). Hidden files are
  never read: dotenv files (``.env``) hold secrets. Every other file, and every file that
  cannot be read (binary content, invalid UTF-8, no words, a converter that is missing or
  fails), is skipped and recorded in the :class:`~loregraph.ingest.read.readlog.ReadLog`
  with the reason, so one bad file never stops a folder and nothing is passed over
  silently.
* Standard input is one document identified by its ``id`` when the caller gives one, else by
  the hash of its text: two different texts piped in never replace each other.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

from loregraph.errors import EmptyInputError, InputError
from loregraph.ingest.code.languages import DECLARED, LOCKFILE, SETTINGS, available, language_of
from loregraph.ingest.code.lockfiles import summarise
from loregraph.ingest.code.masking import stored_settings
from loregraph.ingest.code.stage import CODE_PATH, INDEXED, LANGUAGE, index_repository
from loregraph.ingest.read.convert import (
    CONVERTIBLE,
    convert_file,
    is_convertible,
)
from loregraph.ingest.read.readlog import ReadLog, default_log, has_words
from loregraph.ingest.read.records import byte_stream, read_records
from loregraph.ingest.read.textio import (
    BinaryFileError,
    binary_kind,
    check_unicode,
    decode,
    missing,
    path_text,
)
from loregraph.ingest.read.titles import file_title, first_line_title
from loregraph.ingest.types import CodeIndex, SourceDocument
from loregraph.models import content_hash

__all__ = ["iter_sources", "read_path", "read_records", "read_stdin"]

TEXT_EXTENSIONS = (".txt", ".md", ".markdown", ".text")
RECORD_EXTENSIONS = (".json", ".jsonl")
_BINARY_HINT = (
    "convert it to plain text or Markdown first, or install loregraph[docs] for PDF, Word, "
    "PowerPoint and HTML files, or leave it out"
)


def read_path(path: str | Path, *, log: ReadLog | None = None) -> Iterator[SourceDocument]:
    """Documents from a file or a directory (see the module docstring for the rules).

    A missing path raises :class:`InputError` at once; other errors of a file given directly
    are raised while iterating. Files skipped inside a directory are recorded in ``log``
    (logged as warnings when no log is given).
    """
    path = Path(path)
    if not path.exists():
        raise missing(path)
    log = default_log(log)
    if path.is_dir():
        return _read_directory(path, log, _code_index(path))
    if path.suffix.lower() in RECORD_EXTENSIONS:
        return read_records(path, log=log)
    return iter([_read_file(path)])


def read_stdin(
    stream: IO[str] | IO[bytes], title: str | None = None, *, doc_id: str | None = None
) -> SourceDocument:
    """One document from a text or binary stream (UTF-8, strictly decoded).

    With ``doc_id`` the document is identified by it (ingesting the same id again replaces
    it); without, by the hash of its text. The title defaults to the first line of text.
    """
    data = byte_stream(stream).read()
    text = decode(data, "stdin")
    if "\x00" in text:
        raise BinaryFileError("stdin holds NUL bytes: it is binary data, not text; pipe text in.")
    if not has_words(text):
        raise EmptyInputError(
            "stdin is empty or holds no words (only whitespace or punctuation); pipe some text in."
        )
    if doc_id is not None and not doc_id.strip():
        raise InputError("the document id given for stdin is empty; give a real id.")
    if doc_id is not None:
        check_unicode(doc_id, "the document id given for stdin")
    if title is not None:
        check_unicode(title, "the title given for stdin")
    source = doc_id if doc_id is not None else f"stdin:sha256:{content_hash(text)[:16]}"
    return SourceDocument(
        title=title or first_line_title(text) or "stdin",
        text=text,
        source=source,
        external_id=doc_id,
        metadata={"bytes": len(data), "from": "stdin"},
        former_source=None if doc_id is not None else "stdin",
    )


def iter_sources(
    paths: Sequence[str],
    *,
    stdin: IO[str] | IO[bytes] | None = None,
    records: bool | None = None,
    stdin_id: str | None = None,
    stdin_title: str | None = None,
    log: ReadLog | None = None,
) -> Iterator[SourceDocument]:
    """Documents from several inputs: ``-`` is stdin, ``.json``/``.jsonl`` are record files.

    ``records=True`` reads every input (stdin included) as records, ``records=False`` reads
    every file as plain text, ``None`` decides by extension. ``stdin_id`` and ``stdin_title``
    name a document piped in. A text file reached twice (given and inside a given directory)
    is read once. Skipped files and records are recorded in ``log``.

    Every input is checked before the first document is handed on: a missing path, a bad
    file given directly, a record file with a bad record, bad stdin or a folder with nothing
    readable raises :class:`InputError` here, so a command with one bad input writes nothing
    (text files are read again when their turn comes; nothing large is held).
    """
    for raw in paths:
        if raw != "-" and not Path(raw).exists():
            raise missing(raw)
    log = default_log(log)
    inputs = [_check_input(raw, stdin, records, stdin_id, stdin_title, log) for raw in paths]
    return _dedupe(document for documents in inputs for document in documents())


def _check_input(
    raw: str,
    stdin: IO[str] | IO[bytes] | None,
    records: bool | None,
    stdin_id: str | None,
    stdin_title: str | None,
    log: ReadLog,
) -> Callable[[], Iterable[SourceDocument]]:
    """Check one input (raising :class:`InputError` if it is bad); returns how to read it."""
    if raw == "-":
        stream = stdin if stdin is not None else sys.stdin
        if records:
            piped = list(read_records(stream, log=log))
        else:
            piped = [read_stdin(stream, stdin_title, doc_id=stdin_id)]
        return lambda: piped
    path = Path(raw)
    if path.is_dir():
        index = _code_index(path)  # read once, for the check and the reading
        next(iter(_read_directory(path, ReadLog(), index)), None)  # raises if nothing is readable
        return lambda: _read_directory(path, log, index)
    as_records = path.suffix.lower() in RECORD_EXTENSIONS if records is None else records
    if as_records:
        checked = read_records(path, log=log)  # the whole file is checked here
        return lambda: checked
    document = _read_file(path)
    if is_convertible(path):
        return lambda: [document]  # converting again would cost as much again
    return lambda: [_read_file(path)]


def _dedupe(documents: Iterable[SourceDocument]) -> Iterator[SourceDocument]:
    """Drop a file read a second time (records are never dropped here)."""
    seen: set[str] = set()
    for document in documents:
        path = document.metadata.get("path")
        if path in seen:
            continue
        if path is not None:
            seen.add(path)
        yield document


# --- files and directories ---------------------------------------------------------------


def _read_file(path: Path, root: Path | None = None) -> SourceDocument:
    resolved = path_text(path.resolve())
    if is_convertible(path):
        text, declared = convert_file(path)
        kind = CONVERTIBLE[path.suffix.lower()]
        if not has_words(text):
            raise EmptyInputError(f"{path} ({kind}) holds no text that could be extracted.")
        return SourceDocument(
            title=file_title(path_text(path.name), text, converted=True, declared=declared),
            text=text,
            source=resolved,
            metadata={"path": resolved, "bytes": path.stat().st_size, "converted_from": kind},
        )
    try:
        data = path.read_bytes()
    except PermissionError:
        raise InputError(f"{path} cannot be read: permission denied.") from None
    binary = binary_kind(data)
    if binary is not None:
        raise BinaryFileError(f"{path} is a binary file ({binary}), not text; {_BINARY_HINT}.")
    text = decode(data, str(path))
    if "\x00" in text:  # past the bytes binary_kind looks at
        raise BinaryFileError(
            f"{path} is a binary file (contains NUL bytes), not text; {_BINARY_HINT}."
        )
    if not has_words(text):
        raise EmptyInputError(
            f"{path} is empty or holds no words (only whitespace or punctuation); "
            "add text to it or leave it out."
        )
    metadata: dict[str, object] = {"path": resolved, "bytes": len(data)}
    relative = path_text((path.relative_to(root) if root else Path(path.name)).as_posix())
    in_folder = relative if root else f"{path.resolve().parent.name}/{relative}"
    language = language_of(in_folder)
    if language is not None:
        metadata |= {LANGUAGE: language, CODE_PATH: relative}
        if language == LOCKFILE:  # megabytes of checksums: one line a package is kept
            text = summarise(relative, text)
        elif language == SETTINGS:  # a password is not kept
            text = stored_settings(relative, text)
    return SourceDocument(
        title=relative if language is not None else file_title(path_text(path.name), text),
        text=text,
        source=resolved,
        metadata=metadata,
    )


def _code_index(directory: Path) -> CodeIndex | None:
    """The names of the folder's Python, JavaScript and TypeScript files and those its
    settings files set, read first so that each file's calls resolve across files and the
    environment variables it reads find their settings (``None`` without the ``code`` extra
    or such files)."""
    if not available():
        return None
    code: list[tuple[str, str]] = []
    settings: list[tuple[str, str]] = []
    for path in _files(directory, ReadLog()):
        relative = path_text(path.relative_to(directory).as_posix())
        language = language_of(relative)
        if language in INDEXED or language == SETTINGS:
            try:
                text = decode(path.read_bytes(), str(path))
            except (OSError, InputError):
                continue
            (settings if language == SETTINGS else code).append((relative, text))
    return index_repository(code, settings) if code else None


def _read_directory(
    directory: Path, log: ReadLog, index: CodeIndex | None
) -> Iterator[SourceDocument]:
    found = 0
    for path in _files(directory, log):
        suffix = path.suffix.lower()
        language = language_of(path.relative_to(directory).as_posix())
        code = language is not None
        if suffix in RECORD_EXTENSIONS and not code:
            log.skip(
                path_text(path), "JSON record file: give it to ingest directly to read its records"
            )
            continue
        if code and language not in DECLARED and not available():
            log.skip(path_text(path), "source code: install loregraph[code] to index it")
            continue
        if suffix not in TEXT_EXTENSIONS and not code and not is_convertible(path):
            log.skip(path_text(path), f"not a supported type ({suffix or 'no extension'})")
            continue
        try:
            document = _read_file(path, directory)
        except InputError as exc:
            log.skip(path_text(path), _reason(exc, path))
            continue
        if language in INDEXED:
            document.code_index = index
        found += 1
        yield document
    if not found:
        looked_for = ", ".join((*TEXT_EXTENSIONS, *CONVERTIBLE))
        raise EmptyInputError(
            f"no readable documents in directory {directory} (looked for {looked_for} files, "
            "skipping hidden ones); add text files to it or pass files directly."
        )


def _reason(exc: InputError, path: Path) -> str:
    """The error's message without the path it starts with (the log names the file)."""
    text = str(exc)
    for prefix in (str(path), path.name):
        if text.startswith(prefix):
            return text[len(prefix) :].lstrip(" :").removeprefix("is ").strip()
    return text


def _files(directory: Path, log: ReadLog, seen: set[Path] | None = None) -> Iterator[Path]:
    """Non-hidden files under ``directory``, recursively, in sorted order (a subdirectory
    that cannot be listed is skipped and recorded)."""
    top = seen is None
    seen = seen if seen is not None else set()
    real = directory.resolve()
    if real in seen:  # a symbolic link back up the tree
        return
    seen.add(real)
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except PermissionError:
        if top:
            raise InputError(f"{directory} cannot be listed: permission denied.") from None
        log.skip(path_text(directory), "folder cannot be listed: permission denied")
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            yield from _files(entry, log, seen)
        elif entry.is_file():
            yield entry

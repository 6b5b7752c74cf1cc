"""Documents sent as bytes (an upload, or a request's text), read and checked before
anything is stored.

* Text (a request's text, or an uploaded ``.txt``/``.md``/... file) is read the way text
  piped to ``loregraph ingest -`` is: strict UTF-8, no binary data, some words.
* An uploaded ``.json`` or ``.jsonl`` file is a file of records, as ``ingest`` reads it.
* An uploaded PDF, Word, PowerPoint or HTML file is converted as ``ingest`` converts it
  (with the ``docs`` extra; without it, :class:`~loregraph.errors.DependencyError`).

An uploaded file is identified in its scope by its name (``upload:note1.md``), as a file
given to ``ingest`` is by its path: uploading ``note1.md`` again with new text replaces it.
An ``id`` given with it overrides the name; a record's own ``id`` names the record (else
the file's name and the record's position). A request's text is identified by its ``id``,
else by the hash of its text. Files are titled as ``ingest`` titles them
(:func:`~loregraph.ingest.read.titles.file_title`): a Markdown file by its first heading.

In an upload of several files, a file that is not text (binary, not UTF-8), holds no
words, or cannot be converted (damaged, or needing a converter this machine lacks) is
skipped and reported, as ``ingest`` skips such a file in a folder, and the others are read.
"""

from __future__ import annotations

import dataclasses
import io
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePath

from loregraph.errors import DependencyError, EmptyInputError, InputError
from loregraph.ingest.read.convert import (
    CONVERTIBLE,
    ConversionError,
    ConverterMissingError,
    convert_file,
)
from loregraph.ingest.read.readers import RECORD_EXTENSIONS, read_stdin
from loregraph.ingest.read.readlog import SkippedInput
from loregraph.ingest.read.records import read_records
from loregraph.ingest.read.textio import BinaryFileError, NotUtf8Error, binary_kind
from loregraph.ingest.read.titles import file_title
from loregraph.ingest.types import SourceDocument
from loregraph.models import content_hash

BODY = "the request body"
"""The name of a document sent as a JSON body's text."""
SKIPPABLE = (BinaryFileError, NotUtf8Error, EmptyInputError, ConversionError, DependencyError)
"""What makes a file of a several-file upload skipped rather than the upload refused."""


def upload_source(name: str) -> str:
    """The identity of the uploaded file called ``name`` in its scope."""
    return f"upload:{name}"


def _hashed(text: str) -> str:
    return f"upload:sha256:{content_hash(text)[:16]}"


def body_document(data: bytes, *, title: str | None, doc_id: str | None) -> SourceDocument:
    """The text document a request's body holds; raises
    :class:`~loregraph.errors.InputError` for what is not text."""
    return text_document(data, name=BODY, title=title, doc_id=doc_id)


def text_document(
    data: bytes, *, name: str, title: str | None, doc_id: str | None
) -> SourceDocument:
    """The text document ``data`` holds (``name``: the uploaded file's name, or
    :data:`BODY`); raises :class:`~loregraph.errors.InputError` for what is not text."""
    kind = binary_kind(data)
    if kind is not None:
        raise BinaryFileError(
            f"{name} is a binary file ({kind}), not text; send plain text or Markdown"
        )
    try:
        document = read_stdin(io.BytesIO(data), title, doc_id=doc_id)
    except InputError as exc:
        raise type(exc)(str(exc).replace("stdin", name)) from None
    if name == BODY:
        source, title, former = doc_id or _hashed(document.text), document.title, None
    else:  # an earlier loregraph named an upload by the hash of its text
        source, former = doc_id or upload_source(name), None if doc_id else _hashed(document.text)
        title = title or file_title(name, document.text)
    return dataclasses.replace(
        document,
        title=title,
        source=source,
        metadata={"bytes": len(data), "from": "request" if name == BODY else "upload"},
        former_source=former,
    )


def upload_documents(
    data: bytes, *, name: str, title: str | None, doc_id: str | None
) -> list[SourceDocument]:
    """The documents of an uploaded file called ``name``, by its extension (blocking: run
    it in a worker thread)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in RECORD_EXTENSIONS:
        if title or doc_id:
            raise InputError(f"{name} holds records, which carry their own titles and ids")
        kind = binary_kind(data)
        if kind is not None:
            raise BinaryFileError(f"{name} is a binary file ({kind}), not JSON records")
        stream = io.BytesIO(data)
        stream.name = name
        return list(read_records(stream, where=upload_source(name)))
    if suffix in CONVERTIBLE:
        return [_converted(data, name, suffix, title, doc_id)]
    return [text_document(data, name=name, title=title, doc_id=doc_id)]


def read_uploads(
    files: Sequence[tuple[str, bytes]], *, title: str | None, doc_id: str | None
) -> tuple[list[SourceDocument], list[SkippedInput]]:
    """The documents of uploaded files (name and content each) and the files skipped, with
    the reason (blocking: run it in a worker thread). One file that cannot be read is
    refused; of several, those :data:`SKIPPABLE` are skipped, unless none is left."""
    names = [name for name, _ in files]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InputError(
            f"two files are called {twice[0]}: a file's name is its identity in the scope, "
            "so send each name once"
        )
    documents: list[SourceDocument] = []
    skipped: list[SkippedInput] = []
    for name, data in files:
        try:
            documents += upload_documents(data, name=name, title=title, doc_id=doc_id)
        except SKIPPABLE as exc:
            if len(files) == 1:
                raise
            skipped.append(SkippedInput(name, _reason(str(exc), name)))
    if not documents:
        reasons = "; ".join(f"{s.where}: {s.why}" for s in skipped)
        raise EmptyInputError(f"no file of the upload could be read ({reasons})")
    return documents, skipped


def _reason(message: str, name: str) -> str:
    """``message`` without the file name it starts with (the report names the file)."""
    return message.removeprefix(name).lstrip(" :").removeprefix("is ").strip()


def _converted(
    data: bytes, name: str, suffix: str, title: str | None, doc_id: str | None
) -> SourceDocument:
    with tempfile.TemporaryDirectory(prefix="loregraph-upload-") as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            text, declared = convert_file(path)
        except ConverterMissingError as exc:
            raise DependencyError(str(exc).replace(str(path), name)) from None
        except InputError as exc:
            raise type(exc)(str(exc).replace(str(path), name)) from None
    if not text.strip():
        raise EmptyInputError(f"{name} holds no text that could be extracted")
    return SourceDocument(
        title=title or file_title(name, text, converted=True, declared=declared),
        text=text,
        source=doc_id or upload_source(name),
        external_id=doc_id,
        metadata={"bytes": len(data), "from": "upload", "converted_from": CONVERTIBLE[suffix]},
        former_source=None if doc_id else _hashed(text),
    )

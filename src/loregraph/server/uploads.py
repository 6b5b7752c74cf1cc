"""Documents sent to the server, read and checked before anything is stored.

* Text (a JSON body's ``text``, or an uploaded ``.txt``/``.md``/... file) is read the way
  text piped to ``loregraph ingest -`` is: strict UTF-8, no binary data, some words.
* An uploaded ``.json`` or ``.jsonl`` file is a file of records, as ``ingest`` reads it.
* An uploaded PDF, Word, PowerPoint or HTML file is converted as ``ingest`` converts it
  (with the ``docs`` extra; without it, 501).

Paths on the server's machine (``POST /ingest/paths``) are read only inside the folders
the server was started with (``--ingest-root``), as ``ingest`` reads them.

A document's identity is the ``id`` given (ingesting the same id again replaces it), a
record's own ``id``, else the hash of its text. Anything unreadable is refused (422) before
a job starts, so a bad upload leaves the store unchanged.
"""

from __future__ import annotations

import dataclasses
import io
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePath

from loregraph.errors import DependencyError, InputError
from loregraph.ingest.convert import CONVERTIBLE, ConverterMissingError, convert_file
from loregraph.ingest.readers import RECORD_EXTENSIONS, read_stdin
from loregraph.ingest.records import read_records
from loregraph.ingest.textio import BinaryFileError, binary_kind
from loregraph.ingest.titles import markdown_title
from loregraph.ingest.types import SourceDocument
from loregraph.models import content_hash
from loregraph.server.problems import forbidden

BODY = "the request body"
"""The name of a document sent as a JSON body's text."""


def _identity(text: str, doc_id: str | None) -> str:
    return doc_id if doc_id is not None else f"upload:sha256:{content_hash(text)[:16]}"


def text_document(
    data: bytes, *, name: str, title: str | None, doc_id: str | None
) -> SourceDocument:
    """The text document ``data`` holds (``name``: where it came from, for messages);
    raises :class:`~loregraph.errors.InputError` for what is not text."""
    kind = binary_kind(data)
    if kind is not None:
        raise BinaryFileError(
            f"{name} is a binary file ({kind}), not text; send plain text or Markdown"
        )
    stem = PurePath(name).stem if name != BODY else None
    try:
        document = read_stdin(io.BytesIO(data), title or stem or None, doc_id=doc_id)
    except InputError as exc:
        raise type(exc)(str(exc).replace("stdin", name)) from None
    return dataclasses.replace(
        document,
        source=_identity(document.text, doc_id),
        metadata={"bytes": len(data), "from": "upload" if stem else "request"},
        former_source=None,
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
        stream = io.BytesIO(data)
        stream.name = name
        return list(read_records(stream))
    if suffix in CONVERTIBLE:
        return [_converted(data, name, suffix, title, doc_id)]
    return [text_document(data, name=name, title=title, doc_id=doc_id)]


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
        raise InputError(f"{name} holds no text that could be extracted")
    return SourceDocument(
        title=title or declared or markdown_title(text) or PurePath(name).stem,
        text=text,
        source=_identity(text, doc_id),
        external_id=doc_id,
        metadata={"bytes": len(data), "from": "upload", "converted_from": CONVERTIBLE[suffix]},
    )


def allowed_paths(paths: Sequence[str], roots: Sequence[Path]) -> list[Path]:
    """``paths`` resolved, each inside one of ``roots`` (403 otherwise, and when there are
    no roots) and existing (422 otherwise)."""
    if not roots:
        raise forbidden("this server ingests no paths; start it with --ingest-root DIR")
    allowed = [root.expanduser().resolve() for root in roots]
    found = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            raise InputError(f"{raw!r} is not an absolute path")
        resolved = path.resolve()
        if not any(resolved.is_relative_to(root) for root in allowed):
            raise forbidden(f"{raw} is outside the folders this server ingests from")
        if not resolved.exists():
            raise InputError(f"no such file or directory: {raw}")
        found.append(resolved)
    return found

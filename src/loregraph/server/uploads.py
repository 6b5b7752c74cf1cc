"""Documents sent to the server, read and checked before anything is stored.

A body or an uploaded file becomes a :class:`~loregraph.ingest.types.SourceDocument` the
way text piped to ``loregraph ingest -`` does: strict UTF-8, no binary data, some words.
Its identity is the ``id`` given (ingesting the same id again replaces the document), else
the hash of its text. Anything unreadable is refused (422) before a job starts, so a bad
upload leaves the store unchanged.
"""

from __future__ import annotations

import dataclasses
import io
from pathlib import PurePath

from loregraph.errors import InputError
from loregraph.ingest.readers import read_stdin
from loregraph.ingest.textio import BinaryFileError, binary_kind
from loregraph.ingest.types import SourceDocument

BODY = "the request body"
"""The name of a document sent as a JSON body's text."""


def text_document(
    data: bytes, *, name: str, title: str | None, doc_id: str | None
) -> SourceDocument:
    """The document ``data`` holds (``name``: where it came from, for messages and
    metadata); raises :class:`~loregraph.errors.InputError` for what is not text."""
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
        metadata={"bytes": len(data), "from": "upload" if stem else "request"},
        former_source=None,
    )

"""The pipeline's code stage: a source file's chunks and graph in one step (it replaces
chunking and extraction for a document the reader marked as source code)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from loregraph.ingest.code.graph import (
    CHUNK_CHARS,
    code_chunks,
    code_extraction,
    manifest_extraction,
)
from loregraph.ingest.code.index import RepoIndex
from loregraph.ingest.code.languages import MANIFEST
from loregraph.ingest.code.manifests import parse_manifest
from loregraph.ingest.code.model import CodeFile
from loregraph.ingest.code.python import parse_python
from loregraph.ingest.code.tags import parse_tagged
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.models import Document

LANGUAGE = "language"
"""Metadata key: the programming language of a source file."""
CODE_PATH = "code_path"
"""Metadata key: a source file's path relative to the folder ingested (what names it)."""
CODE_LINKS = "code_links"
"""Metadata key: a digest of the relations a source file's graph holds. A file read again
unchanged is processed again when its digest changed: a name it uses now resolves
elsewhere, or no longer resolves (another file renamed or removed what it calls)."""


def parse_code(path: str, text: str, language: str) -> CodeFile:
    """Parse one source file."""
    if language == "python":
        return parse_python(path, text)
    return parse_tagged(path, text, language)


def is_code(source: SourceDocument) -> bool:
    """Whether the reader marked ``source`` as source code."""
    return isinstance(source.metadata.get(LANGUAGE), str)


def read_code(
    source: SourceDocument, size: int = CHUNK_CHARS
) -> tuple[list[TextChunk], ExtractionResult]:
    """A source file's chunks (at most ``size`` characters) and its entities and
    relations."""
    path = str(source.metadata.get(CODE_PATH) or source.title)
    language = str(source.metadata[LANGUAGE])
    if language == MANIFEST:
        chunks = code_chunks(CodeFile(path, language, path), source.text, size)
        return chunks, manifest_extraction(parse_manifest(path, source.text), source.text, chunks)
    code = parse_code(path, source.text, language)
    chunks = code_chunks(code, source.text, size)
    return chunks, code_extraction(code, source.text, chunks, source.code_index)


def index_repository(files: Iterable[tuple[str, str]]) -> RepoIndex:
    """The Python names of a repository's files, given as ``(path, text)`` (paths as
    :data:`CODE_PATH` names them)."""
    index = RepoIndex()
    for path, text in files:
        index.add(parse_python(path, text))
    return index


def links_of(extracted: ExtractionResult) -> str:
    """The digest of an extraction's relations (:data:`CODE_LINKS`)."""
    lines = sorted(f"{r.source}\t{r.type}\t{r.target}\t{r.confidence}" for r in extracted.relations)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def same_links(stored: Document | None, source: SourceDocument) -> bool:
    """Whether a stored document's graph links what ``source``'s would (always, for a
    document that is not source code)."""
    if not is_code(source) or stored is None:
        return True
    return bool(stored.metadata.get(CODE_LINKS) == source.metadata.get(CODE_LINKS))

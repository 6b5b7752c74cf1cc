"""The pipeline's code stage: a source file's chunks and graph in one step (it replaces
chunking and extraction for a document the reader marked as source code)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable

from loregraph.ingest.code.graph import (
    CHUNK_CHARS,
    code_chunks,
    code_extraction,
    lockfile_extraction,
    manifest_extraction,
    settings_extraction,
)
from loregraph.ingest.code.index import RepoIndex
from loregraph.ingest.code.languages import LOCKFILE, MANIFEST, SETTINGS, language_of
from loregraph.ingest.code.lockfiles import read_summary
from loregraph.ingest.code.manifests import parse_manifest
from loregraph.ingest.code.model import CodeFile
from loregraph.ingest.code.python import parse_python
from loregraph.ingest.code.settings_files import parse_settings
from loregraph.ingest.code.tags import parse_tagged
from loregraph.ingest.types import CodeIndex, ExtractionResult, SourceDocument, TextChunk
from loregraph.models import CODE_LINES, Document

LANGUAGE = "language"
"""Metadata key: the programming language of a source file."""
CODE_PATH = "code_path"
"""Metadata key: a source file's path relative to the folder ingested (what names it)."""
CODE_USES = "code_uses"
"""Metadata key: the names from other files a source file's graph resolved through the
repository's index (set when the file was read in its folder). A file read again unchanged
is processed again when one of them now resolves elsewhere or no longer resolves (another
file renamed, moved or removed what it uses); see :func:`still_current`."""
CODE_LINKS = "code_links"
"""Metadata key: the digest of what each of :data:`CODE_USES` resolved to."""


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
    relations; notes in its metadata the line each chunk starts on (:data:`CODE_LINES`)
    and what it resolved through the repository's index (:data:`CODE_USES`,
    :data:`CODE_LINKS`)."""
    path = str(source.metadata.get(CODE_PATH) or source.title)
    language = str(source.metadata[LANGUAGE])
    if language in (MANIFEST, LOCKFILE, SETTINGS):
        text = source.text  # from the reader: a lockfile's summary, settings masked
        chunks = code_chunks(CodeFile(path, language, path), text, size)
        source.metadata[CODE_LINES] = first_lines(text, chunks)
        if language == LOCKFILE:
            return chunks, lockfile_extraction(read_summary(text), path, text, chunks)
        if language == SETTINGS:
            return chunks, settings_extraction(parse_settings(path, text), path, text, chunks)
        return chunks, manifest_extraction(parse_manifest(path, text), text, chunks)
    code = parse_code(path, source.text, language)
    chunks = code_chunks(code, source.text, size)
    source.metadata[CODE_LINES] = first_lines(source.text, chunks)
    index = None if source.code_index is None else _Recorder(source.code_index)
    extracted = code_extraction(code, source.text, chunks, index)
    if index is not None:
        names = sorted(index.seen)
        source.metadata |= {CODE_USES: names, CODE_LINKS: _digest(index.index, names)}
    return chunks, extracted


def first_lines(text: str, chunks: list[TextChunk]) -> list[int]:
    """The line (from 1) each chunk starts on."""
    lines, line, at = [], 1, 0
    for chunk in chunks:
        line += text.count("\n", at, chunk.start)
        at = chunk.start
        lines.append(line)
    return lines


def index_repository(
    files: Iterable[tuple[str, str]], settings: Iterable[tuple[str, str]] = ()
) -> RepoIndex:
    """The names of a repository's files (Python, JavaScript, TypeScript: :data:`INDEXED`)
    and those its settings files set, each given as ``(path, text)`` (paths as
    :data:`CODE_PATH` names them; Python function bodies are not read). A file read
    before in this process with the same text is not parsed again (a folder watched, or
    read again by a long-running program, costs the files that changed)."""
    index = RepoIndex()
    for path, text in files:
        index.add(_names_of(path, text))
    for path, text in settings:
        index.add_settings(s.name for s in parse_settings(path, text))
    return index


INDEXED = frozenset({"python", "javascript", "typescript", "tsx"})
"""The languages whose files the repository's index reads (:mod:`.index`)."""
NAMES_KEPT = 20_000
"""Files whose names-only parse is kept in a process, the latest read (:func:`_names_of`)."""
_NAMES: OrderedDict[str, tuple[str, CodeFile]] = OrderedDict()


def _names_of(path: str, text: str) -> CodeFile:
    """The parse of a file for the index (a Python file's names only), kept while its text
    stays the same."""
    kept = _NAMES.get(path)
    if kept is not None and kept[0] == text:
        _NAMES.move_to_end(path)
        return kept[1]
    language = language_of(path) or "python"
    if language == "python":
        code = parse_python(path, text, bodies=False)
    else:
        code = parse_tagged(path, text, language)
    _NAMES[path] = (text, code)
    _NAMES.move_to_end(path)
    while len(_NAMES) > NAMES_KEPT:
        _NAMES.popitem(last=False)
    return code


def still_current(stored: Document | None, source: SourceDocument) -> bool:
    """Whether a stored source file's graph still links what ``source``, the same text
    read again, would: each name it resolved through the repository's index resolves as
    it did (always, for a document that is not source code). Nothing is parsed."""
    if not is_code(source) or stored is None:
        return True
    names = stored.metadata.get(CODE_USES)
    if source.code_index is None:
        return names is None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return False
    return bool(stored.metadata.get(CODE_LINKS) == _digest(source.code_index, names))


def _digest(index: CodeIndex, names: list[str]) -> str:
    said = "\n".join(f"{name}\t{_looked_up(index, name)}" for name in names)
    return hashlib.sha256(said.encode("utf-8")).hexdigest()[:16]


def _looked_up(index: CodeIndex, name: str) -> object:
    if name.startswith(_METHODS):
        return index.methods_named(name.removeprefix(_METHODS))
    if name.startswith(_SETTINGS):
        return index.settings_named(name.removeprefix(_SETTINGS))
    return index.resolve(name)


_METHODS = "methods named "
"""How :data:`CODE_USES` notes a look-up of methods by name."""
_SETTINGS = "settings named "
"""How :data:`CODE_USES` notes a look-up of the settings an environment variable names."""


class _Recorder:
    """An index that notes each name it is asked about."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.seen: set[str] = set()

    def resolve(self, name: str) -> tuple[str, str] | None:
        """What the index resolves ``name`` to."""
        self.seen.add(name)
        return self.index.resolve(name)

    def methods_named(self, name: str) -> list[str]:
        """The methods the index knows by ``name``."""
        self.seen.add(_METHODS + name)
        return self.index.methods_named(name)

    def settings_named(self, variable: str) -> list[str]:
        """The settings the index knows by the environment variable ``variable``."""
        self.seen.add(_SETTINGS + variable)
        return self.index.settings_named(variable)

"""Which files are source code, and the tree-sitter grammar of each language.

The grammars come from their own wheels (the ``code`` extra): nothing is downloaded at run
time. A language's tags query (``tags.scm``, shipped in its wheel; TypeScript's extends
JavaScript's) names its definitions and references.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from loregraph.errors import DependencyError
from loregraph.ingest.code.lockfiles import is_lockfile
from loregraph.ingest.code.manifests import is_manifest
from loregraph.ingest.code.settings_files import is_settings

SUFFIXES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}
"""The file suffixes read as source code, and their language."""

_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}


MANIFEST = "manifest"
"""The language of a manifest (:mod:`.manifests`; read without tree-sitter)."""
LOCKFILE = "lockfile"
"""The language of a lockfile (:mod:`.lockfiles`; read without tree-sitter)."""
SETTINGS = "settings"
"""The language of a settings file (:mod:`.settings_files`; read without tree-sitter)."""
DECLARED = (MANIFEST, LOCKFILE, SETTINGS)
"""The languages read without tree-sitter (and without the ``code`` extra)."""


def language_of(path: str) -> str | None:
    """The language of a file by its suffix, or :data:`MANIFEST`, :data:`LOCKFILE` or
    :data:`SETTINGS` by its name (and, for settings, its folder: give the path inside the
    folder read; ``None``: not source code)."""
    if is_manifest(path):
        return MANIFEST
    if is_lockfile(path):
        return LOCKFILE
    if is_settings(path):
        return SETTINGS
    return SUFFIXES.get(PurePosixPath(path).suffix.lower())


@cache
def available() -> bool:
    """Whether the ``code`` extra (tree-sitter) is installed."""
    return importlib.util.find_spec("tree_sitter") is not None


@dataclass(frozen=True, slots=True)
class Grammar:
    """A language's parser and tags query."""

    language: str
    parser: Any
    tags: Any

    def parse(self, text: str) -> Any:
        """The syntax tree of ``text`` (tree-sitter recovers from syntax errors)."""
        return self.parser.parse(text.encode("utf-8"))

    def matches(self, node: Any) -> list[tuple[int, dict[str, list[Any]]]]:
        """The tags query's matches under ``node``."""
        import tree_sitter

        return list(tree_sitter.QueryCursor(self.tags).matches(node))


@cache
def grammar(language: str) -> Grammar:
    """The grammar of ``language``; raises :class:`DependencyError` when the ``code`` extra
    is not installed."""
    module_name, function = _GRAMMARS[language]
    try:
        import tree_sitter

        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise DependencyError(
            f"reading {language} source needs tree-sitter and its grammars: "
            "pip install 'loregraph[code]'"
        ) from exc
    lang = tree_sitter.Language(getattr(module, function)())
    query = module.TAGS_QUERY
    if module_name == "tree_sitter_typescript":
        query = importlib.import_module("tree_sitter_javascript").TAGS_QUERY + "\n" + query
    return Grammar(language, tree_sitter.Parser(lang), tree_sitter.Query(lang, query))


def text_of(node: Any) -> str:
    """A node's source text."""
    return (node.text or b"").decode("utf-8", "replace")

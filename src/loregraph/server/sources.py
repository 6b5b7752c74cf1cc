"""Where documents came from, as a caller may see it.

A document read from the server's own files is identified by its absolute path
(``/home/ann/notes/diary.md``), which tells a caller about the server's file system. Only
administrators of the scope see it whole; every other caller sees it relative: to the
``--ingest-root`` folder holding it (``2025/diary.md`` under the root ``/home/ann/notes``),
else as its file name (``diary.md``). A record keeps its
position (``people.jsonl#3``); sources that are no path (an uploaded file's
``upload:note1.md``, a record's id, a URL) are shown as they are.

Every response carrying a source passes through a :class:`SourceView`: the documents, the
search hits, the JSON export and the reports of ingest jobs. (Citations and passages name
their document by id and title, never by source.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from loregraph import Principal, Role


def relative_source(source: str, roots: Sequence[Path]) -> str:
    """``source`` without the server's folders: an absolute path relative to the first of
    ``roots`` holding it, else its file name (a record's ``#n`` kept); other sources as
    they are."""
    path, mark, position = source.rpartition("#")
    if not (mark and position.isdigit()):
        path, mark, position = source, "", ""
    pure = PurePath(path)
    if not pure.is_absolute():
        return source
    for root in roots:
        if pure.is_relative_to(root) and pure != PurePath(root):
            return f"{pure.relative_to(root).as_posix()}{mark}{position}"
    return f"{pure.name}{mark}{position}"


@dataclass(frozen=True, slots=True)
class SourceView:
    """How sources are shown to one caller: whole (``full``) or relative to ``roots``."""

    roots: tuple[Path, ...]
    full: bool

    def source(self, source: str) -> str:
        """``source`` as this caller sees it."""
        return source if self.full else relative_source(source, self.roots)

    def document(self, data: dict[str, Any]) -> dict[str, Any]:
        """A document's (or a search hit's ``extra``) JSON with its ``source`` as shown."""
        if isinstance(data.get("source"), str):
            return {**data, "source": self.source(data["source"])}
        return data

    def report(self, data: dict[str, Any] | None) -> dict[str, Any] | None:
        """An ingest or backfill report's JSON with the sources it names as shown."""
        if data is None or self.full:
            return data
        shown = dict(data)
        for field in ("failed", "replaced_documents"):
            if isinstance(data.get(field), list):
                shown[field] = [self.document(item) for item in data[field]]
        if isinstance(data.get("skipped_inputs"), list):
            shown["skipped_inputs"] = [
                {**item, "where": self.source(item["where"])} for item in data["skipped_inputs"]
            ]
        return shown

    def export(self, data: dict[str, Any]) -> dict[str, Any]:
        """A JSON export with its documents' sources as shown."""
        if self.full or not isinstance(data.get("documents"), list):
            return data
        return {**data, "documents": [self.document(d) for d in data["documents"]]}


def source_view(principal: Principal, scope: str, roots: Sequence[Path]) -> SourceView:
    """How ``principal`` sees sources in ``scope``: whole for its administrators."""
    resolved = tuple(root.expanduser().resolve() for root in roots)
    return SourceView(resolved, principal.may(scope, Role.ADMIN))

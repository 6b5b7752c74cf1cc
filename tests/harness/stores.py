"""Where the harness's runs write, and what a store holds afterwards.

A :class:`Backend` hands out fresh store locations (a new SQLite file, or a new schema of
one PostgreSQL server) given to the CLI as ``--db``. :func:`committed_documents` is a quick
read of the documents table used right before a kill (it must not disturb the run, so it
never creates anything); :func:`store_state` reads everything through the public store API
after a run and reports every duplicate and every partly written document it finds.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loregraph.models import DocStatus, name_key
from loregraph.store.urls import store_for_url

SCOPE = "default"


class Backend:
    """A kind of store the harness writes to; subclasses say where and how to peek."""

    name = "?"

    def fresh(self, label: str) -> str:
        """A new, empty store location (the CLI creates the store on first write)."""
        raise NotImplementedError

    def exists(self, location: str) -> bool:
        """Whether a run has created the store at ``location`` yet."""
        raise NotImplementedError

    def committed(self, location: str) -> dict[str, str]:
        """``{document id: content hash}`` of the committed documents (empty if none)."""
        raise NotImplementedError


class SqliteBackend(Backend):
    """One SQLite file per location, in ``directory``."""

    name = "sqlite"

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._count = itertools.count()

    def fresh(self, label: str) -> str:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{label}-{next(self._count)}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return str(path)

    def exists(self, location: str) -> bool:
        return Path(location).exists()

    def committed(self, location: str) -> dict[str, str]:
        if not Path(location).exists():
            return {}
        try:
            conn = sqlite3.connect(f"file:{location}?mode=ro", uri=True, timeout=5)
        except sqlite3.Error:
            return {}
        try:
            rows = conn.execute("SELECT id, content_hash FROM documents").fetchall()
        except sqlite3.Error:  # the schema is not created yet
            return {}
        finally:
            conn.close()
        return dict(rows)


class PostgresBackend(Backend):
    """One schema per location on a running PostgreSQL server at ``url``."""

    name = "postgres"

    def __init__(self, url: str, prefix: str = "h") -> None:
        self.url = url
        self.prefix = prefix
        self._count = itertools.count()

    def fresh(self, label: str) -> str:
        schema = f"{self.prefix}_{label}_{next(self._count)}".lower()
        with self._connect() as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        joiner = "&" if "?" in self.url else "?"
        return f"{self.url}{joiner}schema={schema}"

    @staticmethod
    def schema_of(location: str) -> str:
        """The schema a location's URL names."""
        return location.rsplit("schema=", 1)[1].split("&", 1)[0]

    def _connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.url, autocommit=True)

    def exists(self, location: str) -> bool:
        schema = self.schema_of(location)
        with self._connect() as conn:
            row = conn.execute("SELECT to_regclass(%s)", (f'"{schema}".documents',)).fetchone()
        return row is not None and row[0] is not None

    def committed(self, location: str) -> dict[str, str]:
        import psycopg

        schema = self.schema_of(location)
        try:
            with self._connect() as conn:
                rows = conn.execute(f'SELECT id, content_hash FROM "{schema}".documents')
                return {str(i): str(h) for i, h in rows.fetchall()}
        except psycopg.errors.UndefinedTable:
            return {}


@dataclass
class StoreState:
    """What a store holds, and every inconsistency found in it."""

    documents: dict[str, str] = field(default_factory=dict)
    """document id -> content hash."""
    chunks: dict[str, int] = field(default_factory=dict)
    """document id -> number of chunks."""
    entities: int = 0
    relations: int = 0
    duplicate_documents: list[str] = field(default_factory=list)
    duplicate_chunks: list[str] = field(default_factory=list)
    duplicate_entities: list[str] = field(default_factory=list)
    duplicate_relations: list[str] = field(default_factory=list)
    unfinished_documents: list[str] = field(default_factory=list)

    @property
    def duplicates(self) -> int:
        """Documents, chunks, entities and relations stored more than once."""
        return (
            len(self.duplicate_documents)
            + len(self.duplicate_chunks)
            + len(self.duplicate_entities)
            + len(self.duplicate_relations)
        )


def _repeated(values: list[Any]) -> list[str]:
    return sorted(str(value) for value, n in Counter(values).items() if n > 1)


async def _read_state(location: str, scope: str) -> StoreState:
    state = StoreState()
    async with store_for_url(location, read_only=True) as store:
        documents = await store.list_documents(scope)
        state.duplicate_documents = _repeated([d.id for d in documents]) + _repeated(
            [d.source for d in documents]
        )
        for document in documents:
            state.documents[document.id] = document.content_hash
            if document.status != DocStatus.DONE:
                state.unfinished_documents.append(document.id)
            bundle = await store.read_bundle(document.id)
            chunks = [] if bundle is None else bundle.chunks
            state.chunks[document.id] = len(chunks)
            state.duplicate_chunks += _repeated([c.id for c in chunks])
            state.duplicate_chunks += _repeated([(document.id, c.seq) for c in chunks])
        entities = [e async for e in store.iter_entities(scope)]
        state.entities = len(entities)
        state.duplicate_entities = _repeated([e.id for e in entities]) + _repeated(
            [(e.scope, name_key(e.name)) for e in entities]
        )
        relations = [r async for r in store.iter_relations(scope)]
        state.relations = len(relations)
        state.duplicate_relations = _repeated([r.id for r in relations]) + _repeated(
            [(r.source_id, r.type, r.target_id) for r in relations]
        )
    return state


def store_state(location: str, scope: str = SCOPE) -> StoreState:
    """Read a store (no run may be writing it) and check it for duplicates."""
    return asyncio.run(_read_state(location, scope))


VOLATILE_RELATION_FIELDS = ("created_at",)
"""Export fields that record when a run wrote something, not what it wrote."""


def normalised_export(path: Path) -> dict[str, Any]:
    """An export JSON with its lists sorted by id and volatile fields removed.

    Only relations' ``created_at`` (the wall-clock time the relation was first written) is
    removed; every other field, floats included, is kept exactly as exported.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    for relation in data["relations"]:
        for name in VOLATILE_RELATION_FIELDS:
            relation.pop(name, None)
    for key in ("documents", "entities", "relations"):
        data[key] = sorted(data[key], key=lambda item: str(item["id"]))
    return dict(data)


def export_differences(got: dict[str, Any], want: dict[str, Any], limit: int = 5) -> list[str]:
    """A few human-readable differences between two normalised exports (empty if equal)."""
    out: list[str] = []
    for key in ("documents", "entities", "relations"):
        mine = {str(item["id"]): item for item in got.get(key, [])}
        theirs = {str(item["id"]): item for item in want.get(key, [])}
        for missing in sorted(theirs.keys() - mine.keys())[:limit]:
            out.append(f"{key}: {missing} missing")
        for extra in sorted(mine.keys() - theirs.keys())[:limit]:
            out.append(f"{key}: {extra} not in the reference")
        for same in sorted(mine.keys() & theirs.keys()):
            if mine[same] != theirs[same] and len(out) < 4 * limit:
                fields = sorted(
                    f
                    for f in mine[same].keys() | theirs[same].keys()
                    if mine[same].get(f) != theirs[same].get(f)
                )
                detail = ", ".join(
                    f"{f}: {mine[same].get(f)!r} != {theirs[same].get(f)!r}" for f in fields
                )
                out.append(f"{key}: {same} differs ({detail[:300]})")
    if not out and got != want:
        out.append("the exports differ outside documents, entities and relations")
    return out


def remove_sqlite(location: str) -> None:
    """Delete an SQLite store and its side files."""
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{location}{suffix}").unlink()

"""Reading everything an in-memory SQLite store holds, in one call on its worker thread.

One call, so that no other call of the store (a write from a concurrent request of a server)
runs in between: the file always gets a consistent state. And a :class:`Database` that
counts the rows its calls change, so that the memory file store knows when it has something
to write, whichever store method (present or future) made the change.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Concatenate, ParamSpec, TypeVar

from loregraph.store.access_rows import GRANT_FIELDS, LINK_FIELDS, grant_values, link_values
from loregraph.store.apikeys import KEY_FIELDS, key_values
from loregraph.store.changes import (
    AUDIT_FIELDS,
    DECISION_FIELDS,
    audit_of,
    audit_values,
    decision_of,
    decision_values,
)
from loregraph.store.jsonfile.layout import Contents
from loregraph.store.queries import Page, PageKey
from loregraph.store.rows import columns, iso
from loregraph.store.sqlite import reads
from loregraph.store.sqlite.cleanup import read_graph_version
from loregraph.store.sqlite.db import MEMORY, Database
from loregraph.store.sqlite.grants import list_grants, list_links
from loregraph.store.sqlite.keys import list_keys
from loregraph.store.sqlite.rows import CODEC

P = ParamSpec("P")
T = TypeVar("T")
Item = TypeVar("Item")

BATCH = 1000


def read_everything(conn: sqlite3.Connection) -> Contents:
    """Every scope's entities and relations (with embeddings and evidence), its documents as
    the bundles that rebuild them (oldest first) and its graph version; every merge
    decision, audit entry (oldest first), API key, grant and scope link."""
    contents = Contents()
    contents.decisions = [
        decision_of(row, CODEC)
        for row in conn.execute(
            f"SELECT {columns(DECISION_FIELDS)} FROM merge_decisions "
            "ORDER BY scope, created_at, kind, merge_id"
        )
    ]
    contents.audit = [
        audit_of(row, CODEC)
        for row in conn.execute(f"SELECT {columns(AUDIT_FIELDS)} FROM audit_log ORDER BY pk")
    ]
    contents.keys = list_keys(conn)
    contents.grants = list_grants(conn, None)
    contents.links = list_links(conn, None)
    for scope in reads.scopes(conn):
        contents.graph_versions[scope] = read_graph_version(conn, scope)
        contents.entities += _every(reads.entities_page, conn, scope)
        contents.relations += _every(reads.relations_page, conn, scope)
        for document in reads.list_documents(conn, scope, None, 0):
            bundle = reads.read_bundle(conn, document.id)
            if bundle is not None:
                contents.bundles.append(bundle)
    return contents


def insert_records(conn: sqlite3.Connection, contents: Contents) -> None:
    """Insert the merge decisions, audit entries, API keys, grants and scope links of
    ``contents`` (the caller holds the transaction; audit entries keep their order)."""

    def insert(table: str, fields: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
        marks = ", ".join("?" * len(fields))
        conn.executemany(f"INSERT INTO {table}({columns(fields)}) VALUES ({marks})", rows)

    insert(
        "merge_decisions",
        DECISION_FIELDS,
        [decision_values(decision, CODEC) for decision in contents.decisions],
    )
    insert("audit_log", AUDIT_FIELDS, [audit_values(entry, CODEC) for entry in contents.audit])
    insert("api_keys", KEY_FIELDS, [key_values(key, iso) for key in contents.keys])
    insert("grants", GRANT_FIELDS, [grant_values(grant) for grant in contents.grants])
    insert("scope_links", LINK_FIELDS, [link_values(link) for link in contents.links])


def _every(
    fetch: Callable[[sqlite3.Connection, str, PageKey, int], Page[Item]],
    conn: sqlite3.Connection,
    scope: str,
) -> list[Item]:
    found: list[Item] = []
    after: PageKey = None
    while page := fetch(conn, scope, after, BATCH):
        found += [item for _, item in page]
        after = page[-1][0]
    return found


class CountingDatabase(Database):
    """An in-memory :class:`Database` that keeps the number of rows changed so far
    (``changes``) and awaits ``on_change`` after each call that changed some."""

    def __init__(self, on_change: Callable[[], Awaitable[None]]) -> None:
        super().__init__(MEMORY)
        self.changes = 0
        self._on_change = on_change

    async def run(
        self,
        fn: Callable[Concatenate[sqlite3.Connection, P], T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Run ``fn`` on the worker thread (see :meth:`Database.run`), then count."""

        def counted(conn: sqlite3.Connection) -> tuple[T, int]:
            return fn(conn, *args, **kwargs), conn.total_changes

        result, changes = await super().run(counted)
        if changes != self.changes:
            self.changes = changes
            await self._on_change()
        return result

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

from loregraph.store import ledger
from loregraph.store.jsonfile.layout import Contents
from loregraph.store.queries import DocumentQuery, Page, PageKey
from loregraph.store.sqlite import reads
from loregraph.store.sqlite.db import MEMORY, Database
from loregraph.store.sqlite.ledger import insert_rows, rows
from loregraph.store.sqlite.versions import read_graph_version

P = ParamSpec("P")
T = TypeVar("T")
Item = TypeVar("Item")

BATCH = 1000


def read_everything(conn: sqlite3.Connection) -> Contents:
    """Every scope's entities and relations (with embeddings and evidence), its documents as
    the bundles that rebuild them (oldest first) and its graph version; every merge
    decision, audit entry (oldest first), API key, grant and scope link."""
    contents = Contents()

    def every(kind: str) -> list[ledger.LedgerRow]:
        return rows(conn, ledger.LedgerQuery(kind))

    decisions = [ledger.decision_of(row) for row in every(ledger.DECISION)]
    contents.decisions = sorted(
        decisions, key=lambda d: (d.scope, d.created_at, d.kind, d.merge_id)
    )
    contents.audit = [ledger.audit_of(row) for row in every(ledger.AUDIT)]
    contents.keys = sorted(map(ledger.key_of, every(ledger.API_KEY)), key=lambda k: k.created_at)
    grants = [ledger.grant_of(row) for row in every(ledger.GRANT)]
    contents.grants = sorted(grants, key=lambda g: (g.principal, g.scope))
    links = [ledger.link_of(row) for row in every(ledger.SCOPE_LINK)]
    contents.links = sorted(links, key=lambda link: (link.scope, link.linked))
    for scope in reads.scopes(conn):
        contents.graph_versions[scope] = read_graph_version(conn, scope)
        contents.entities += _every(reads.entities_page, conn, scope)
        contents.relations += _every(reads.relations_page, conn, scope)
        for document in reads.documents(conn, DocumentQuery(scope, {})):
            bundle = reads.read_bundle(conn, document.id)
            if bundle is not None:
                contents.bundles.append(bundle)
    return contents


def insert_records(conn: sqlite3.Connection, contents: Contents) -> None:
    """Insert the merge decisions, audit entries, API keys, grants and scope links of
    ``contents`` (the caller holds the transaction; audit entries keep their order)."""

    audit = [ledger.audit_row(entry, f"log-{n}") for n, entry in enumerate(contents.audit)]
    insert_rows(
        conn,
        [
            *map(ledger.decision_row, contents.decisions),
            *audit,
            *map(ledger.key_row, contents.keys),
            *map(ledger.grant_row, contents.grants),
            *map(ledger.link_row, contents.links),
        ],
    )


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

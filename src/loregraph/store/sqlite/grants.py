"""The SQLite store's grants and scope links (tables ``grants`` and ``scope_links``), run
on the store's worker thread; :class:`SqliteGrants` is the part of the store that calls
them."""

from __future__ import annotations

import sqlite3

from loregraph.access import Grant, ScopeLink
from loregraph.store.access_rows import (
    GRANT_FIELDS,
    LINK_FIELDS,
    grant_from_row,
    grant_values,
    link_from_row,
    link_values,
)
from loregraph.store.grants import GrantStore
from loregraph.store.rows import columns
from loregraph.store.sqlite.db import Database, transaction

_GRANTS = columns(GRANT_FIELDS)
_LINKS = columns(LINK_FIELDS)


def add_grant(conn: sqlite3.Connection, grant: Grant) -> None:
    """Insert ``grant`` or replace its principal's role in its scope."""
    with transaction(conn):
        conn.execute(
            f"INSERT INTO grants ({_GRANTS}) VALUES (?, ?, ?) "
            "ON CONFLICT (principal, scope) DO UPDATE SET role = excluded.role",
            grant_values(grant),
        )


def remove_grant(conn: sqlite3.Connection, principal: str, scope: str) -> bool:
    """Delete a grant; whether there was one."""
    with transaction(conn):
        cursor = conn.execute(
            "DELETE FROM grants WHERE principal = ? AND scope = ?", (principal, scope)
        )
    return cursor.rowcount > 0


def list_grants(conn: sqlite3.Connection, principal: str | None) -> list[Grant]:
    """The grants of ``principal`` (``None``: all), by principal and scope."""
    where, params = ("WHERE principal = ?", (principal,)) if principal is not None else ("", ())
    rows = conn.execute(
        f"SELECT {_GRANTS} FROM grants {where} ORDER BY principal, scope", params
    ).fetchall()
    return [grant_from_row(row) for row in rows]


def add_link(conn: sqlite3.Connection, link: ScopeLink) -> None:
    """Insert ``link`` or replace the link of its pair of scopes."""
    with transaction(conn):
        conn.execute(
            f"INSERT INTO scope_links ({_LINKS}) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (scope, linked) DO UPDATE SET "
            "share = excluded.share, documents = excluded.documents",
            link_values(link),
        )


def remove_link(conn: sqlite3.Connection, scope: str, linked: str) -> bool:
    """Delete a link; whether there was one."""
    with transaction(conn):
        cursor = conn.execute(
            "DELETE FROM scope_links WHERE scope = ? AND linked = ?", (scope, linked)
        )
    return cursor.rowcount > 0


def list_links(conn: sqlite3.Connection, scope: str | None) -> list[ScopeLink]:
    """The links from ``scope`` (``None``: all), by scope and linked scope."""
    where, params = ("WHERE scope = ?", (scope,)) if scope is not None else ("", ())
    rows = conn.execute(
        f"SELECT {_LINKS} FROM scope_links {where} ORDER BY scope, linked", params
    ).fetchall()
    return [link_from_row(row) for row in rows]


class SqliteGrants(GrantStore):
    """The grant and link methods of the SQLite stores (over their :class:`Database`)."""

    _db: Database

    async def add_grant(self, grant: Grant) -> None:
        await self._db.run(add_grant, grant)

    async def remove_grant(self, principal: str, scope: str) -> bool:
        return await self._db.run(remove_grant, principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        return await self._db.run(list_grants, principal)

    async def add_scope_link(self, link: ScopeLink) -> None:
        await self._db.run(add_link, link)

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        return await self._db.run(remove_link, scope, linked)

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        return await self._db.run(list_links, scope)

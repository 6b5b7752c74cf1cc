"""The PostgreSQL store's grants and scope links (tables ``grants`` and ``scope_links``,
migration 8); :class:`PostgresGrants` is the part of the store that calls them."""

from __future__ import annotations

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
from loregraph.store.postgres.connection import Conn, Database
from loregraph.store.rows import columns

_GRANTS = columns(GRANT_FIELDS)
_LINKS = columns(LINK_FIELDS)


async def add_grant(conn: Conn, grant: Grant) -> None:
    """Insert ``grant`` or replace its principal's role in its scope."""
    await conn.execute(
        f"INSERT INTO grants ({_GRANTS}) VALUES (%s, %s, %s) "
        "ON CONFLICT (principal, scope) DO UPDATE SET role = excluded.role",
        grant_values(grant),
    )


async def remove_grant(conn: Conn, principal: str, scope: str) -> bool:
    """Delete a grant; whether there was one."""
    cursor = await conn.execute(
        "DELETE FROM grants WHERE principal = %s AND scope = %s", (principal, scope)
    )
    return cursor.rowcount > 0


async def list_grants(conn: Conn, principal: str | None) -> list[Grant]:
    """The grants of ``principal`` (``None``: all), by principal and scope."""
    where, params = ("WHERE principal = %s", (principal,)) if principal is not None else ("", ())
    cursor = await conn.execute(
        f"SELECT {_GRANTS} FROM grants {where} ORDER BY principal, scope", params
    )
    return [grant_from_row(row) for row in await cursor.fetchall()]


async def add_link(conn: Conn, link: ScopeLink) -> None:
    """Insert ``link`` or replace the link of its pair of scopes."""
    await conn.execute(
        f"INSERT INTO scope_links ({_LINKS}) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (scope, linked) DO UPDATE SET "
        "share = excluded.share, documents = excluded.documents",
        link_values(link),
    )


async def remove_link(conn: Conn, scope: str, linked: str) -> bool:
    """Delete a link; whether there was one."""
    cursor = await conn.execute(
        "DELETE FROM scope_links WHERE scope = %s AND linked = %s", (scope, linked)
    )
    return cursor.rowcount > 0


async def list_links(conn: Conn, scope: str | None) -> list[ScopeLink]:
    """The links from ``scope`` (``None``: all), by scope and linked scope."""
    where, params = ("WHERE scope = %s", (scope,)) if scope is not None else ("", ())
    cursor = await conn.execute(
        f"SELECT {_LINKS} FROM scope_links {where} ORDER BY scope, linked", params
    )
    return [link_from_row(row) for row in await cursor.fetchall()]


class PostgresGrants(GrantStore):
    """The grant and link methods of :class:`~loregraph.store.postgres.PostgresStore`."""

    _db: Database

    async def add_grant(self, grant: Grant) -> None:
        await self._db.write(add_grant, grant)

    async def remove_grant(self, principal: str, scope: str) -> bool:
        return await self._db.write(remove_grant, principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        return await self._db.read(list_grants, principal)

    async def add_scope_link(self, link: ScopeLink) -> None:
        await self._db.write(add_link, link)

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        return await self._db.write(remove_link, scope, linked)

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        return await self._db.read(list_links, scope)

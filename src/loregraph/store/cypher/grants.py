"""The Cypher store's grants and scope links: one ``(:LgGrant)`` node per principal and
scope, one ``(:LgScopeLink)`` node per pair of scopes (its shared documents as JSON text);
:class:`CypherGrants` is the part of the store that calls them, one writer at a time."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from loregraph.access import Grant, ScopeLink
from loregraph.store.access_rows import (
    GRANT_FIELDS,
    LINK_FIELDS,
    grant_from_row,
    grant_values,
    link_from_row,
    link_values,
)
from loregraph.store.cypher.connection import Connection
from loregraph.store.grants import GrantStore
from loregraph.store.rows import columns

_GRANTS = columns(GRANT_FIELDS, "g")
_LINKS = columns(LINK_FIELDS, "l")


async def add_grant(conn: Connection, grant: Grant) -> None:
    """Create ``grant``'s node or set its principal's role in its scope."""
    principal, scope, role = grant_values(grant)
    await conn.write(
        "MERGE (g:LgGrant {principal: $principal, scope: $scope}) SET g.role = $role",
        {"principal": principal, "scope": scope, "role": role},
    )


async def remove_grant(conn: Connection, principal: str, scope: str) -> bool:
    """Delete a grant; whether there was one."""
    rows = await conn.write(
        "MATCH (g:LgGrant {principal: $principal, scope: $scope}) DELETE g RETURN count(*)",
        {"principal": principal, "scope": scope},
    )
    return bool(rows and rows[0][0])


async def list_grants(conn: Connection, principal: str | None) -> list[Grant]:
    """The grants of ``principal`` (``None``: all), by principal and scope."""
    where = "WHERE g.principal = $principal " if principal is not None else ""
    rows = await conn.read(
        f"MATCH (g:LgGrant) {where}RETURN {_GRANTS} ORDER BY g.principal, g.scope",
        {"principal": principal},
    )
    return [grant_from_row(row) for row in rows]


async def add_link(conn: Connection, link: ScopeLink) -> None:
    """Create ``link``'s node or replace the link of its pair of scopes."""
    scope, linked, share, documents = link_values(link)
    await conn.write(
        "MERGE (l:LgScopeLink {scope: $scope, linked: $linked}) "
        "SET l.share = $share, l.documents = $documents",
        {"scope": scope, "linked": linked, "share": share, "documents": documents},
    )


async def remove_link(conn: Connection, scope: str, linked: str) -> bool:
    """Delete a link; whether there was one."""
    rows = await conn.write(
        "MATCH (l:LgScopeLink {scope: $scope, linked: $linked}) DELETE l RETURN count(*)",
        {"scope": scope, "linked": linked},
    )
    return bool(rows and rows[0][0])


async def list_links(conn: Connection, scope: str | None) -> list[ScopeLink]:
    """The links from ``scope`` (``None``: all), by scope and linked scope."""
    where = "WHERE l.scope = $scope " if scope is not None else ""
    rows = await conn.read(
        f"MATCH (l:LgScopeLink) {where}RETURN {_LINKS} ORDER BY l.scope, l.linked",
        {"scope": scope},
    )
    return [link_from_row(row) for row in rows]


class CypherGrants(GrantStore):
    """The grant and link methods of :class:`~loregraph.store.cypher.CypherStore`."""

    _lock: asyncio.Lock

    if TYPE_CHECKING:

        def _conn(self) -> Connection: ...

    async def add_grant(self, grant: Grant) -> None:
        conn = self._conn()
        async with self._lock:
            await add_grant(conn, grant)

    async def remove_grant(self, principal: str, scope: str) -> bool:
        conn = self._conn()
        async with self._lock:
            return await remove_grant(conn, principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        return await list_grants(self._conn(), principal)

    async def add_scope_link(self, link: ScopeLink) -> None:
        conn = self._conn()
        async with self._lock:
            await add_link(conn, link)

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        conn = self._conn()
        async with self._lock:
            return await remove_link(conn, scope, linked)

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        return await list_links(self._conn(), scope)

"""The grants and scope links part of the store contract (a base of
:class:`~loregraph.store.base.Store`), written once over the ledger (:mod:`.ledger`).

A :class:`~loregraph.access.Grant` gives a principal (by name) a role in a scope; a
:class:`~loregraph.access.ScopeLink` lets questions in one scope read another's documents.
Both belong to no document. A principal has at most one role per scope and a pair of scopes
at most one link: adding another replaces it.
"""

from __future__ import annotations

from loregraph.access import Grant, ScopeLink
from loregraph.store.ledger import (
    GRANT,
    SCOPE_LINK,
    Ledger,
    LedgerQuery,
    grant_of,
    grant_row,
    link_of,
    link_row,
)


class GrantStore(Ledger):
    """What every store keeps of principals' roles and of the links between scopes."""

    async def add_grant(self, grant: Grant) -> None:
        """Store ``grant``, replacing the role its principal had in its scope."""
        await self.ledger_put(grant_row(grant))

    async def remove_grant(self, principal: str, scope: str) -> bool:
        """Remove ``principal``'s role in ``scope``; whether it had one."""
        return await self.ledger_delete(GRANT, principal, scope)

    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        """The grants of ``principal`` (``None``: of everyone), by principal, then scope."""
        grants = [grant_of(row) for row in await self.ledger_rows(LedgerQuery(GRANT, principal))]
        return sorted(grants, key=lambda g: (g.principal, g.scope))

    async def add_scope_link(self, link: ScopeLink) -> None:
        """Store ``link``, replacing the link of its ``(scope, linked)`` pair."""
        await self.ledger_put(link_row(link))

    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        """Remove the link from ``scope`` to ``linked``; whether there was one."""
        return await self.ledger_delete(SCOPE_LINK, scope, linked)

    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        """The links from ``scope`` (``None``: every link), by scope, then linked scope."""
        links = [link_of(row) for row in await self.ledger_rows(LedgerQuery(SCOPE_LINK, scope))]
        return sorted(links, key=lambda link: (link.scope, link.linked))

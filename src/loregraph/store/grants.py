"""The grants and scope links part of the store contract (a base of
:class:`~loregraph.store.base.Store`).

A :class:`~loregraph.access.Grant` gives a principal (by name) a role in a scope; a
:class:`~loregraph.access.ScopeLink` lets questions in one scope read another's documents.
Both belong to no document. A principal has at most one role per scope and a pair of scopes
at most one link: adding another replaces it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from loregraph.access import Grant, ScopeLink


class GrantStore(ABC):
    """What every store keeps of principals' roles and of the links between scopes."""

    @abstractmethod
    async def add_grant(self, grant: Grant) -> None:
        """Store ``grant``, replacing the role its principal had in its scope."""

    @abstractmethod
    async def remove_grant(self, principal: str, scope: str) -> bool:
        """Remove ``principal``'s role in ``scope``; whether it had one."""

    @abstractmethod
    async def list_grants(self, principal: str | None = None) -> list[Grant]:
        """The grants of ``principal`` (``None``: of everyone), by principal, then scope."""

    @abstractmethod
    async def add_scope_link(self, link: ScopeLink) -> None:
        """Store ``link``, replacing the link of its ``(scope, linked)`` pair."""

    @abstractmethod
    async def remove_scope_link(self, scope: str, linked: str) -> bool:
        """Remove the link from ``scope`` to ``linked``; whether there was one."""

    @abstractmethod
    async def scope_links(self, scope: str | None = None) -> list[ScopeLink]:
        """The links from ``scope`` (``None``: every link), by scope, then linked scope."""

"""Access (``graph.access``, :class:`AccessControl`): who has which role in which scope, which
scopes read which others' documents, the principal a name stands for, the keys of the
HTTP server (:mod:`loregraph.engine.keys`) and the audit log.

A grant gives a principal (a person, an agent, or the name of an API key) a role in a scope
(``*``: every scope); a link lets questions in one scope read another's documents, all of
its public and private ones or only those it lists. Every change is recorded in the audit
log of the scope it concerns. Reading rules (who sees which document) are not applied
here: these methods only keep the records they read.
"""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.access import (
    ALL_SCOPES,
    SHARE_ALL,
    SHARE_SELECTIVE,
    Grant,
    Principal,
    Role,
    ScopeLink,
    check_name,
    require,
)
from loregraph.engine.core import actor
from loregraph.engine.keys import Keys, granted_roles
from loregraph.engine.lookup import find_document
from loregraph.errors import InputError, NotFoundError
from loregraph.store.changes import AuditEntry


def scope_named(scope: str, *, every: bool = False) -> str:
    """``scope`` stripped, when it names a scope (or is ``*`` for every scope, when
    ``every``); else :class:`InputError`.

    A scope need not hold documents yet: an administrator sets up access before data
    arrives (the command line notes a scope that holds none).
    """
    if scope.strip() == ALL_SCOPES:
        if every:
            return ALL_SCOPES
        raise InputError(f"{ALL_SCOPES!r} stands for every scope; name one scope here")
    return check_name(scope, "a scope's name")


class AccessControl(Keys):
    """Who may do what (``graph.access``): roles of principals by scope, links between
    scopes and API keys, kept in the store, and the audit log of the changes."""

    async def grant(
        self, name: str, role: Role | str, scope: str | None = None, *, by: str = ""
    ) -> Grant:
        """Give the principal ``name`` the ``role`` (a :class:`Role` or its name:
        reader/viewer/admirer, writer/editor/advocate, admin, owner/creator) in ``scope``
        (default the current one; ``*``: every scope), replacing the role it had there.
        Recorded in the audit log as made ``by`` (default: who the engine acts for).

        Raises :class:`~loregraph.errors.InputError` for an unknown role or a bad name
        (by or scope). The scope need not hold documents yet (a new store works).
        """
        chosen = role if isinstance(role, Role) else Role.parse(role)
        name = check_name(name, "a principal's name")
        await self.core.open()
        where = scope_named(self.core._scope(scope), every=True)
        require(self.core.principal, where, Role.ADMIN, "grant roles")
        made = Grant(name, where, chosen)
        await self.core.store.add_grant(made)
        await self.core.store.add_audit(
            AuditEntry("grant", name, str(chosen), actor(self.core.principal, by), where)
        )
        return made

    async def revoke_grant(self, name: str, scope: str | None = None, *, by: str = "") -> Grant:
        """Take the principal ``name``'s role in ``scope`` (default the current one) away;
        returns the grant removed. Raises :class:`~loregraph.errors.NotFoundError` when it
        had none there."""
        await self.core.open()
        where = self.core._scope(scope)
        require(self.core.principal, where, Role.ADMIN, "revoke roles")
        held = [g for g in await self.core.store.list_grants(name) if g.scope == where]
        if not held or not await self.core.store.remove_grant(name, where):
            raise NotFoundError(f"{name!r} has no role in scope {where!r}")
        detail = f"was {held[0].role}"
        await self.core.store.add_audit(
            AuditEntry("revoke grant", name, detail, actor(self.core.principal, by), where)
        )
        return held[0]

    async def grants(self, name: str | None = None) -> list[Grant]:
        """The grants of the principal ``name`` (``None``: everyone's), by name and scope."""
        await self.core.open()
        return await self.core.store.list_grants(name)

    async def principal_named(self, name: str) -> Principal:
        """The principal called ``name``, with the roles granted to it.

        Raises :class:`~loregraph.errors.InputError` for an empty or blank name: no name
        stands for the operator."""
        name = check_name(name, "a principal's name")
        await self.core.open()
        return Principal(name, granted_roles(await self.core.store.list_grants(name)))

    async def link(
        self,
        scope: str,
        linked: str,
        share: str = SHARE_ALL,
        documents: Sequence[str] = (),
        *,
        by: str = "",
    ) -> ScopeLink:
        """Let questions in ``scope`` read ``linked``'s documents: its public and private
        ones (``share="all"``) or only ``documents`` (``share="selective"``: ids, paths or
        exact titles of documents of ``linked``). Replaces the link the two had.

        Raises :class:`~loregraph.errors.InputError` for a bad scope name or an unknown
        share, a selective link without documents or a full one with some, and
        :class:`~loregraph.errors.NotFoundError` for a document that is not in ``linked``.
        """
        ScopeLink(scope, linked, share, tuple(documents))  # checks the shape first
        await self.core.open()
        scope, linked = scope_named(scope), scope_named(linked)
        require(
            self.core.principal, linked, Role.ADMIN, f"share its documents with scope {scope!r}"
        )
        ids = [(await find_document(self.core.store, linked, ref)).id for ref in documents]
        made = ScopeLink(scope, linked, share, tuple(ids))
        await self.core.store.add_scope_link(made)
        shared = f": {', '.join(made.documents)}" if share == SHARE_SELECTIVE else ""
        detail = f"{linked} ({share}{shared})"
        await self.core.store.add_audit(
            AuditEntry("link", scope, detail, actor(self.core.principal, by), scope)
        )
        return made

    async def unlink(self, scope: str, linked: str, *, by: str = "") -> ScopeLink:
        """Remove the link from ``scope`` to ``linked``; returns it. Raises
        :class:`~loregraph.errors.NotFoundError` when there is none."""
        await self.core.open()
        require(self.core.principal, linked, Role.ADMIN, f"stop sharing with scope {scope!r}")
        held = [link for link in await self.core.store.scope_links(scope) if link.linked == linked]
        if not held or not await self.core.store.remove_scope_link(scope, linked):
            raise NotFoundError(f"scope {scope!r} is not linked to {linked!r}")
        await self.core.store.add_audit(
            AuditEntry("unlink", scope, linked, actor(self.core.principal, by), scope)
        )
        return held[0]

    async def links(self, scope: str | None = None) -> list[ScopeLink]:
        """The links from ``scope`` (``None``: every link), by scope and linked scope."""
        await self.core.open()
        return await self.core.store.scope_links(scope)

    async def audit(
        self, *, limit: int | None = None, scope: str | None = None
    ) -> list[AuditEntry]:
        """The scope's audit log (merges, unmerges, renames, retypes, forgotten memories),
        newest first."""
        await self.core.open()
        require(self.core.principal, self.core._scope(scope), Role.ADMIN, "read the audit log")
        return await self.core.store.list_audit(self.core._scope(scope), limit)

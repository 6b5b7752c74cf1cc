"""The API keys of ``graph.access`` (:class:`Keys`, the base of
:class:`~loregraph.engine.grants.Access`): create, list and revoke keys, and find the
principal a presented key stands for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from loregraph.access import (
    ALL_SCOPES,
    ApiKey,
    Grant,
    Principal,
    Role,
    check_name,
    hash_key,
    merged_roles,
    new_key,
    require,
)
from loregraph.engine.core import Section, actor
from loregraph.errors import InputError, NotFoundError
from loregraph.models import utcnow
from loregraph.store.changes import AuditEntry


def granted_roles(grants: Iterable[Grant]) -> dict[str, Role]:
    """Roles by scope from a principal's grants."""
    return {grant.scope: grant.role for grant in grants}


@dataclass(frozen=True, slots=True)
class NewKey:
    """A key just created: the stored record and its secret, shown this once."""

    key: ApiKey
    secret: str


class Keys(Section):
    """The keys of the HTTP server, kept (by hash) in the store."""

    async def create_key(self, name: str, roles: Mapping[str, Role], *, by: str = "") -> NewKey:
        """A new key called ``name`` giving ``roles`` (a role per scope; ``*``: every scope).

        Only the key's hash is stored; the secret is in the result and nowhere else (the
        audit log of each scope records the key's name and role, as made ``by``,
        default: who the engine acts for). Raises :class:`~loregraph.errors.InputError`
        for a taken or empty name, or no scope.
        """
        if not roles:
            raise InputError("a key needs at least one scope")
        for scope in roles:
            require(self.core.principal, scope, Role.ADMIN, "create keys")
        await self.core.open()
        secret = new_key()
        key = ApiKey(check_name(name), hash_key(secret), roles=dict(roles))
        await self.core.store.add_api_key(key)
        for scope, role in key.roles.items():
            entry = AuditEntry(
                "create key", key.name, str(role), actor(self.core.principal, by), scope
            )
            await self.core.store.add_audit(entry)
        return NewKey(key, secret)

    async def keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        await self.core.open()
        return await self.core.store.list_api_keys()

    async def revoke_key(self, name: str, *, by: str = "") -> ApiKey:
        """Revoke the key called ``name`` (at once, for good); returns it. Recorded in the
        audit log of each scope the key opened, as made ``by`` (default: who the engine
        acts for).

        Raises :class:`~loregraph.errors.NotFoundError` for an unknown name.
        """
        require(self.core.principal, ALL_SCOPES, Role.ADMIN, "revoke keys")
        await self.core.open()
        if not await self.core.store.revoke_api_key(name, utcnow()):
            raise NotFoundError(f"no key called {name!r}")
        found = next(key for key in await self.core.store.list_api_keys() if key.name == name)
        for scope, role in found.roles.items():
            entry = AuditEntry(
                "revoke key", name, f"was {role}", actor(self.core.principal, by), scope
            )
            await self.core.store.add_audit(entry)
        return found

    async def principal_for_key(self, secret: str) -> Principal | None:
        """The principal a presented key stands for, with the key's roles and those granted
        to its name (the higher of the two in a scope); ``None`` for an unknown or revoked
        key."""
        await self.core.open()
        key = await self.core.store.api_key_by_hash(hash_key(secret))
        if key is None or not key.active:
            return None
        granted = granted_roles(await self.core.store.list_grants(key.name))
        return Principal(key.name, merged_roles(key.roles, granted))

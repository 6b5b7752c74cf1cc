"""Who is asking: API keys, the principal a key stands for, and its role in each scope.

A key is ``lg_`` followed by 43 characters of 256 random bits. Only its SHA-256 hash is
stored: a key has the full entropy of its random bits, so a fast hash cannot be guessed
backwards, and a lookup by hash costs microseconds on every request (a slow password hash
such as bcrypt or scrypt protects low-entropy secrets that people choose, and would add
tens of milliseconds to each request for no gain here).

A :class:`Principal` has a :class:`Role` per scope (``*`` stands for every scope). It is
what the faces pass to the engine; document-level rules (visibility and owner) will read it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from typing import Any

from loregraph.errors import InputError, NotAllowedError
from loregraph.kinds import Visibility
from loregraph.models import utcnow
from loregraph.serial import Record

KEY_PREFIX = "lg_"
"""Every key starts with this, so that a leaked key is recognisable in logs and scanners."""
KEY_BYTES = 32
"""Random bytes in a key (256 bits)."""
ALL_SCOPES = "*"
"""The scope name a role may be given for, meaning every scope."""


class Role(IntEnum):
    """What a principal may do in a scope; each role may do what the ones below it may.

    The roles of the persona design are other names of these: ``viewer`` and ``admirer``
    read, ``editor`` and ``advocate`` write, ``creator`` owns (:meth:`parse` takes them).
    """

    READER = 1
    """Search, ask, browse and export."""
    WRITER = 2
    """And ingest, remember, forget and delete; merge, unmerge, rename and retype."""
    ADMIN = 3
    """And what is kept for administrators (debug metadata, the audit log, key management)."""
    OWNER = 4
    """And everything else: the scope is theirs."""

    @classmethod
    def parse(cls, name: str) -> Role:
        """The role called ``name``: ``reader`` (or ``viewer``, ``admirer``), ``writer``
        (``editor``, ``advocate``), ``admin`` or ``owner`` (``creator``)."""
        cleaned = name.strip().lower() if isinstance(name, str) else ""
        found = ROLE_ALIASES.get(cleaned)
        if found is None and cleaned.upper() in cls.__members__:
            found = cls[cleaned.upper()]
        if found is None:
            known = ", ".join(r.name.lower() for r in cls)
            aliases = ", ".join(f"{alias} ({role})" for alias, role in ROLE_ALIASES.items())
            raise InputError(f"unknown role {name!r}; known roles: {known} (also: {aliases})")
        return found

    def __str__(self) -> str:
        return self.name.lower()


ROLE_ALIASES: dict[str, Role] = {
    "viewer": Role.READER,
    "admirer": Role.READER,
    "editor": Role.WRITER,
    "advocate": Role.WRITER,
    "creator": Role.OWNER,
}
"""Other names of the roles (those of the persona design), for :meth:`Role.parse`."""


SHARE_ALL = "all"
"""A link that shares every public and private document of the linked scope."""
SHARE_SELECTIVE = "selective"
"""A link that shares only the documents it lists."""
SHARES = (SHARE_ALL, SHARE_SELECTIVE)


@dataclass(frozen=True, slots=True)
class ScopeLink(Record):
    """Questions asked in ``scope`` also read ``linked``'s documents: its public and private
    ones (``share="all"``), or only the ``documents`` listed (``share="selective"``)."""

    scope: str
    linked: str
    share: str = SHARE_ALL
    documents: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.share not in SHARES:
            raise InputError(f"unknown share {self.share!r}; allowed: {', '.join(SHARES)}")
        if self.scope == self.linked:
            raise InputError(f"scope {self.scope!r} cannot be linked to itself")
        documents = tuple(dict.fromkeys(self.documents))
        object.__setattr__(self, "documents", documents)
        if self.share == SHARE_SELECTIVE and not documents:
            raise InputError("a selective link needs the documents it shares")
        if self.share == SHARE_ALL and documents:
            raise InputError("a link sharing all documents lists none: use share selective")


@dataclass(frozen=True, slots=True)
class Grant(Record):
    """A stored role: ``principal`` (a name) has ``role`` in ``scope`` (``*``: every scope)."""

    principal: str
    scope: str
    role: Role


def merged_roles(*roles: Mapping[str, Role]) -> dict[str, Role]:
    """Roles by scope from several sources: the highest one given for each scope."""
    merged: dict[str, Role] = {}
    for mapping in roles:
        for scope, role in mapping.items():
            merged[scope] = max(role, merged.get(scope, role))
    return merged


def hash_key(key: str) -> str:
    """The hex SHA-256 of a key: what the store keeps and looks keys up by."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A new random key (shown once to its owner, never stored)."""
    return KEY_PREFIX + secrets.token_urlsafe(KEY_BYTES)


MAX_NAME = 200
"""The longest key or principal name."""


def check_name(name: object, what: str = "a key name") -> str:
    """``name`` stripped; raises :class:`InputError` (``what`` must be ...) for one that is
    not a string, empty, over-long or unprintable (a key's or a principal's name)."""
    cleaned = name.strip() if isinstance(name, str) else ""
    if not cleaned or len(cleaned) > MAX_NAME or any(ord(c) < 32 for c in cleaned):
        raise InputError(f"{what} must be 1 to {MAX_NAME} printable characters")
    return cleaned


@dataclass(slots=True)
class ApiKey:
    """A stored key: its unique ``name``, the hash of its secret, the role it gives in
    each scope, when it was created and, once revoked, when."""

    name: str
    key_hash: str
    roles: dict[str, Role] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        """Whether the key still opens anything."""
        return self.revoked_at is None

    def principal(self) -> Principal:
        """The principal this key stands for."""
        return Principal(self.name, dict(self.roles))

    def to_dict(self) -> dict[str, Any]:
        """The key as JSON, without its hash."""
        return {
            "name": self.name,
            "roles": {scope: str(role) for scope, role in sorted(self.roles.items())},
            "created_at": self.created_at.isoformat(),
            "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None,
        }


def roles_to_json(roles: Mapping[str, Role]) -> dict[str, str]:
    """Roles by scope as stored: role names by scope name."""
    return {scope: str(role) for scope, role in roles.items()}


def roles_from_json(data: Mapping[str, str]) -> dict[str, Role]:
    """:func:`roles_to_json` read back."""
    return {scope: Role.parse(name) for scope, name in data.items()}


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a name and the role it has in each scope (``*``: every scope)."""

    name: str
    roles: Mapping[str, Role] = field(default_factory=dict)

    def role_in(self, scope: str) -> Role | None:
        """The principal's role in ``scope`` (its own, else its role in every scope)."""
        return self.roles.get(scope, self.roles.get(ALL_SCOPES))

    def may(self, scope: str, needed: Role) -> bool:
        """Whether the principal has at least the ``needed`` role in ``scope``."""
        role = self.role_in(scope)
        return role is not None and role >= needed

    def visible_scopes(self, scopes: list[str]) -> list[str]:
        """The scopes of ``scopes`` the principal may read."""
        return [scope for scope in scopes if self.may(scope, Role.READER)]


LOCAL = Principal("local", {ALL_SCOPES: Role.ADMIN})
"""The principal of a server started without authentication (on loopback only)."""


def require(principal: Principal | None, scope: str, needed: Role, doing: str) -> None:
    """Raise :class:`NotAllowedError` when ``principal`` lacks ``needed`` in ``scope``
    (``doing``: what it tried, for the message). The store's operator (no principal, or
    :data:`LOCAL`) may do anything."""
    if principal is None or principal == LOCAL or principal.may(scope, needed):
        return
    had = principal.role_in(scope)
    raise NotAllowedError(
        f"principal {principal.name!r} may not {doing} in scope {scope!r}: that needs the "
        f"{needed} role, and it has {had if had is not None else 'none'} there "
        "(loregraph grant NAME ROLE --scope S)"
    )


__all__ = [
    "ALL_SCOPES",
    "LOCAL",
    "ROLE_ALIASES",
    "SHARES",
    "SHARE_ALL",
    "SHARE_SELECTIVE",
    "ApiKey",
    "Grant",
    "Principal",
    "Role",
    "ScopeLink",
    "Visibility",
    "hash_key",
    "merged_roles",
    "new_key",
    "require",
]

"""Who a request acts for: the key in ``Authorization: Bearer ...`` and the scope it asks.

Every route depends on :func:`reader`, :func:`writer` or :func:`admin`, which give a
:class:`Caller`: the principal of the key and the scope of the request (its ``scope``
query parameter, else the server's default scope). No key, an unknown or a revoked key is
401; a key without the role needed in that scope is 403. A server started without
authentication (loopback only: :func:`check_no_auth`) acts for the local administrator.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from loregraph import LOCAL, AsyncGraph, ConfigError, Principal, Role
from loregraph.server.problems import forbidden, unauthorized

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_no_auth(host: str) -> None:
    """Refuse (:class:`ConfigError`) a server without authentication on a non-loopback host."""
    if not is_loopback(host):
        raise ConfigError(
            f"--no-auth is only allowed on a loopback host (127.0.0.1, ::1, localhost), "
            f"not {host!r}: anyone who can reach it could read and change the store. "
            "Create a key with `loregraph keys create NAME` instead."
        )


@dataclass(frozen=True, slots=True)
class Caller:
    """The principal a request acts for and the scope it works in."""

    principal: Principal
    scope: str


ScopeParam = Annotated[
    str | None,
    Query(
        description="The scope to work in (default: the server's scope).",
        max_length=200,
    ),
]


def bearer(request: Request) -> str:
    """The key of the request's ``Authorization: Bearer`` header (401 without one)."""
    header = request.headers.get("authorization", "")
    kind, _, token = header.partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        raise unauthorized("send an API key as 'Authorization: Bearer <key>'")
    return token.strip()


KEY_SCHEME = HTTPBearer(
    scheme_name="apiKey",
    description="An API key (`loregraph keys create NAME`), sent as "
    "`Authorization: Bearer <key>`; its roles decide what it may do in each scope.",
    auto_error=False,
)
"""The key scheme, as the OpenAPI document declares it for every route that needs a key
(the key itself is read by :func:`bearer`, which names what is wrong with it)."""


async def principal_of(
    request: Request,
    _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(KEY_SCHEME)] = None,
) -> Principal:
    """The principal the request's key stands for (the local one without authentication)."""
    found: Principal | None = LOCAL
    if request.app.state.auth:
        graph: AsyncGraph = request.app.state.graph
        found = await graph.access.principal_for_key(bearer(request))
    if found is None:
        raise unauthorized("this key is unknown or revoked")
    request.state.principal = found.name  # for the request's log line
    return found


Anyone = Annotated[Principal, Depends(principal_of)]
"""Any authenticated principal (for routes that filter by scope themselves)."""


def _needing(role: Role) -> Callable[[Request, Principal, str | None], Awaitable[Caller]]:
    async def caller(request: Request, principal: Anyone, scope: ScopeParam = None) -> Caller:
        graph: AsyncGraph = request.app.state.graph
        chosen = scope or graph.settings.scope
        if not principal.may(chosen, role):
            raise forbidden(f"key {principal.name!r} may not {_verb(role)} scope {chosen!r}")
        return Caller(principal, chosen)

    return caller


def _verb(role: Role) -> str:
    return {Role.READER: "read", Role.WRITER: "write to", Role.ADMIN: "administer"}[role]


Reader = Annotated[Caller, Depends(_needing(Role.READER))]
"""A caller that may read the scope."""
Writer = Annotated[Caller, Depends(_needing(Role.WRITER))]
"""A caller that may write to the scope."""
Admin = Annotated[Caller, Depends(_needing(Role.ADMIN))]
"""A caller that administers the scope."""

"""Grant and scope link records to and from stored rows, the same for every backend.

A grant is stored as ``principal``, ``scope``, ``role`` (its name); a link as ``scope``,
``linked``, ``share`` and ``documents`` (JSON text: the list of shared document ids), in
the order of :data:`GRANT_FIELDS` and :data:`LINK_FIELDS`.
"""

from __future__ import annotations

import json
from typing import Any

from loregraph.access import Grant, Role, ScopeLink
from loregraph.store.rows import Row

GRANT_FIELDS = ("principal", "scope", "role")
"""The stored fields of a grant, in the order a backend selects them."""
LINK_FIELDS = ("scope", "linked", "share", "documents")
"""The stored fields of a scope link, in the order a backend selects them."""


def grant_values(grant: Grant) -> tuple[Any, ...]:
    """The stored values of ``grant``, in field order."""
    return grant.principal, grant.scope, str(grant.role)


def grant_from_row(row: Row) -> Grant:
    """The grant a row of :data:`GRANT_FIELDS` holds."""
    principal, scope, role = row
    return Grant(principal, scope, Role.parse(role))


def link_values(link: ScopeLink) -> tuple[Any, ...]:
    """The stored values of ``link``, in field order."""
    return link.scope, link.linked, link.share, json.dumps(list(link.documents))


def link_from_row(row: Row) -> ScopeLink:
    """The scope link a row of :data:`LINK_FIELDS` holds."""
    scope, linked, share, documents = row
    shared = json.loads(documents) if isinstance(documents, str) else documents
    return ScopeLink(scope, linked, share, tuple(shared or ()))

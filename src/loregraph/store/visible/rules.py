"""Which documents a principal may read in a scope.

* a principal with the writer role or above in the scope (editor, advocate, admin, owner,
  creator) reads its ``public`` and ``private`` documents and its own ``personal`` ones;
* a reader (viewer, admirer) reads the ``public`` documents and its own ``personal`` ones;
* a link from a scope the principal has any role in to this one adds this scope's
  ``public`` and ``private`` documents (share ``all``) or only the documents it lists
  (share ``selective``);
* nothing else: a personal document is read by its owner only, and a scope the principal
  has no role in and no link to shows nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from loregraph.access import SHARE_ALL, Principal, Role, ScopeLink
from loregraph.models import Document

SHARED = frozenset({"public", "private"})
"""Visibilities a writer, or a link sharing ``all``, reads."""


def readable_documents(
    principal: Principal, scope: str, documents: Iterable[Document], links: Iterable[ScopeLink]
) -> frozenset[str]:
    """The ids of ``documents`` (those of ``scope``) that ``principal`` may read, given every
    link into ``scope``."""
    role = principal.role_in(scope)
    shares = [
        link
        for link in links
        if link.linked == scope and link.scope != scope and principal.role_in(link.scope)
    ]
    shared_all = any(link.share == SHARE_ALL for link in shares)
    listed = {doc_id for link in shares if link.share != SHARE_ALL for doc_id in link.documents}
    readable: set[str] = set()
    for doc in documents:
        visibility = str(doc.visibility)
        own = visibility == "personal" and doc.owner == principal.name and role is not None
        if (
            own
            or (role is not None and visibility == "public")
            or (role is not None and role >= Role.WRITER and visibility in SHARED)
            or (shared_all and visibility in SHARED)
            or doc.id in listed
        ):
            readable.add(doc.id)
    return frozenset(readable)

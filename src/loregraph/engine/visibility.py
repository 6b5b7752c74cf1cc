"""Who may read what is ingested or remembered: the visibility and owner given to the
documents and memories the engine writes.

A document is ``public`` unless told otherwise (``private``: its scope's writers;
``personal``: only its owner, a principal's name). A personal document needs an owner:
when none is given, the principal the engine acts for owns it; without one it is refused.
Reading rules themselves are applied where documents are read, not here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from loregraph.access import LOCAL, Principal, Role, Visibility, require
from loregraph.errors import InputError
from loregraph.ingest.types import SourceDocument


@dataclasses.dataclass(frozen=True, slots=True)
class Access:
    """A checked visibility (``None``: leave as it is, public for a new document) and owner."""

    visibility: Visibility | None = None
    owner: str | None = None

    def apply(self, source: SourceDocument) -> SourceDocument:
        """``source`` with this visibility and owner (unchanged when none is given)."""
        if self.visibility is None and self.owner is None:
            return source
        visibility = self.visibility if self.visibility is not None else source.visibility
        return dataclasses.replace(source, visibility=visibility, owner=self.owner)


def document_access(
    visibility: Visibility | str | None, owner: str | None, acting: Principal | None = None
) -> Access:
    """The checked visibility and owner of documents to write.

    Raises :class:`~loregraph.errors.InputError` for an unknown visibility, an empty owner,
    or a personal document with no owner and no principal ``acting`` (who owns it then).
    """
    if owner is not None:
        owner = owner.strip() if isinstance(owner, str) else ""
        if not owner:
            raise InputError("an owner must be a principal's name, not empty")
    if visibility is None:
        return Access(None, owner)
    chosen = Visibility.parse(visibility)
    if chosen is Visibility.PERSONAL and owner is None:
        if acting is None:
            raise InputError("a personal document needs an owner: give the principal it belongs to")
        owner = acting.name
    return Access(chosen, owner)


def check_owner(owner: str | None, scope: str, acting: Principal | None) -> None:
    """Raise :class:`~loregraph.errors.NotAllowedError` when ``owner`` is another principal
    than ``acting`` and ``acting`` does not administer ``scope``: only an administrator
    writes what belongs to someone else (the store's operator, ``None``, may)."""
    if owner is None or acting is None or acting == LOCAL or owner == acting.name:
        return
    require(acting, scope, Role.ADMIN, f"write documents owned by {owner!r}")


def with_access(
    sources: Iterable[SourceDocument], access: Access, scope: str, acting: Principal | None
) -> Iterator[SourceDocument]:
    """``sources`` with ``access`` applied, read as they come, each owner checked
    (:func:`check_owner`)."""
    for source in sources:
        chosen = access.apply(source)
        check_owner(chosen.owner, scope, acting)
        yield chosen

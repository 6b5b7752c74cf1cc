"""What an agent remembers (``graph.memories``, :class:`Memories`): memories written,
listed, searched (:mod:`loregraph.engine.recall`) and forgotten."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from loregraph.access import Role, require
from loregraph.engine.core import actor
from loregraph.engine.memories import (
    Memory,
    MemoryFilter,
    NewMemory,
    is_memory,
    memory_document,
    memory_of,
    read_memories,
)
from loregraph.engine.queries import Explore
from loregraph.engine.recall import MemorySearch
from loregraph.engine.visibility import check_owner
from loregraph.errors import LoregraphError, NotFoundError
from loregraph.ingest.facts.supersede import delete_and_recheck
from loregraph.kinds import Visibility
from loregraph.models import DeleteReport, Document
from loregraph.retrieve.graph.graphindex import SHARED_CACHE
from loregraph.settings import check_limit
from loregraph.store.changes import AuditEntry

if TYPE_CHECKING:
    pass


class Memories(MemorySearch):
    """What an agent remembers (``graph.memories``): memories written, listed, searched and
    forgotten.

    A memory is searchable (``search`` here; the graph's ``search``, ``context`` and
    ``ask``) as soon as ``remember`` returns, is linked to the entities it mentions, and
    never becomes an entity itself.
    """

    async def remember(
        self,
        text: str,
        *,
        at: datetime | None = None,
        source: str | None = None,
        tags: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
        scope: str | None = None,
        visibility: Visibility | str | None = None,
        owner: str | None = None,
        planned: bool = False,
    ) -> Memory:
        """Remember ``text``: what happened ``at`` (default now; a naive time is UTC), from
        ``source``, with ``tags`` and ``metadata``; readable as ``visibility`` says
        (public, private or personal; default public), owned by ``owner`` (a personal
        memory's default: the principal the engine acts for). Returns the stored memory.
        A time after now is a plan, refused unless ``planned``: a planned memory's facts
        hold from its time on (not now; at an ``as_of`` after it).

        Raises :class:`~loregraph.errors.InputError` for an empty text, a bad tag, an
        unknown visibility, a personal memory nobody owns or a future time not planned.
        """
        new = NewMemory(
            text,
            at=at,
            source=source,
            tags=tags,
            metadata=metadata,
            visibility=visibility,
            owner=owner,
            planned=planned,
        )
        return (await self.remember_many([new], scope=scope))[0]

    async def remember_many(
        self, memories: Iterable[NewMemory], *, scope: str | None = None
    ) -> list[Memory]:
        """Remember several memories (each checked before any is written); returns them
        stored, in order. Each memory is written in its own transaction: when one cannot
        be, the others still are and :class:`~loregraph.errors.LoregraphError` says which
        failed."""
        documents = [memory_document(new, self.core.principal) for new in memories]
        if not documents:
            return []
        where = self.core._scope(scope)
        require(self.core.principal, where, Role.WRITER, "remember")
        for document in documents:  # before any is written
            check_owner(document.owner, where, self.core.principal)
        report = await self.core.ingest_documents(documents, scope=where)
        if report.failed:
            reasons = "; ".join(f"{f.source}: {f.error}" for f in report.failed)
            raise LoregraphError(
                f"{len(report.failed)} of {len(documents)} memories could not be stored "
                f"(the others are): {reasons}"
            )
        # what was just written, even someone else's (an administrator's): as the operator
        store = self.core.operator_store
        stored = [await store.get_document(i) for i in report.document_ids]
        return await read_memories(store, [d for d in stored if d is not None])

    async def all(
        self,
        *,
        tags: Sequence[str] = (),
        source: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        about: str | None = None,
        limit: int | None = None,
        scope: str | None = None,
    ) -> list[Memory]:
        """The memories of the scope, oldest first (by when they happened): those with every
        tag of ``tags``, from ``source``, happened between ``since`` and ``until``
        (inclusive; a naive time is UTC) and mentioning the entity ``about`` (by its name
        or an alias; the closest name if none is exact, and
        :class:`~loregraph.errors.NotFoundError` when no entity is close); with ``limit``,
        only the latest ``limit`` of them."""
        check_limit(limit)
        wanted = MemoryFilter(tuple(tags), source, since, until)
        documents = [
            d for d in await self._memory_documents(scope) if wanted.accepts(memory_of(d, ""))
        ]
        if about is not None:
            entity = await Explore(self.core).find_entity(about, scope=scope)
            index, _ = await SHARED_CACHE.get(self.core.store, self.core._scope(scope))
            mentioning = index.documents_mentioning([entity.id])
            documents = [d for d in documents if d.id in mentioning]
        documents.sort(key=lambda d: (memory_of(d, "").at, d.created_at, d.id))
        if limit is not None:
            documents = documents[-limit:]
        return await read_memories(self.core.store, documents)

    async def forget(
        self, memory_id: str, *, by: str = "", scope: str | None = None
    ) -> DeleteReport:
        """Forget a memory (by id) and exactly what only it supported, as ``delete`` does
        for a document; recorded in the audit log as made ``by`` (a name; default: who the
        engine acts for).

        Raises :class:`~loregraph.errors.NotFoundError` for an id that is no memory of the
        scope (a document's id included: documents are deleted with ``delete``).
        """
        await self.core.open()
        scope = self.core._scope(scope)
        require(self.core.principal, scope, Role.WRITER, "forget memories")
        by = actor(self.core.principal, by)
        document = await self.core.store.get_document(memory_id)
        if document is None or document.scope != scope:
            raise NotFoundError(f"no memory {memory_id!r} in scope {scope!r}")
        if not is_memory(document):
            raise NotFoundError(f"{memory_id!r} is a document, not a memory: use delete")
        report = await delete_and_recheck(
            self.core.store, document.id, self.core.settings.extraction
        )
        await self.core.store.add_audit(AuditEntry.removal("forget", document, by))
        return report

    async def _memory_documents(self, scope: str | None) -> list[Document]:
        await self.core.open()
        return [
            d for d in await self.core.store.list_documents(self.core._scope(scope)) if is_memory(d)
        ]

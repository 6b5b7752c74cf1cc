"""Memories: what an agent remembers, stored as documents of kind ``memory``.

A memory is a :class:`~loregraph.models.Document` with ``kind=memory``; nothing in the
schema is its own. Its time (when it happened) is the document's ``valid_at``; its tags,
its source (who or what it came from) and the caller's metadata are kept in the document's
metadata under ``tags``, ``source`` and ``metadata``. The document's own ``source`` is its
identity, ``memory:<random hex>``, so two memories never replace each other. Its title is
the start of its text and never becomes an entity. Its text is read back from its chunks.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from loregraph.access import Principal
from loregraph.engine.visibility import document_access
from loregraph.errors import InputError
from loregraph.ingest.types import SourceDocument
from loregraph.kinds import Visibility
from loregraph.models import Chunk, DocKind, Document, aware, chunk_id, utcnow
from loregraph.serial import Record
from loregraph.store.base import Store

TITLE_CHARS = 80
"""A memory's title: its first line, cut to this many characters."""
CHUNKS_ASKED = 8
"""Chunks of each memory asked for at once when reading memories' texts back."""


@dataclass(slots=True)
class Memory(Record):
    """A stored memory: its ``id`` (for ``forget``), ``text``, when it happened (``at``),
    ``tags``, ``source`` and the caller's ``metadata``."""

    id: str
    text: str
    at: datetime
    tags: list[str] = field(default_factory=list)
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    scope: str = ""
    created_at: datetime = field(default_factory=utcnow)
    visibility: Visibility = Visibility.PUBLIC
    owner: str | None = None
    planned: bool = False
    """Remembered as a plan: its time was after when it was remembered."""


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Which memories to list: all of ``tags`` (none: any), this ``source``, and a time
    (``at``) in ``[since, until]``."""

    tags: tuple[str, ...] = ()
    source: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            object.__setattr__(self, name, aware(getattr(self, name)))

    def everything(self) -> bool:
        """Whether no criterion is given (every memory passes)."""
        return not self.tags and self.source is None and self.since is None and self.until is None

    def accepts(self, memory: Memory) -> bool:
        """Whether ``memory`` passes every criterion given."""
        if any(tag not in memory.tags for tag in self.tags):
            return False
        if self.source is not None and memory.source != self.source:
            return False
        if self.since is not None and memory.at < self.since:
            return False
        return self.until is None or memory.at <= self.until


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory to remember: its text, when it happened (``at``; default: now), where it
    came from (``source``), its ``tags`` and any ``metadata``; who may read it
    (``visibility``, default public) and whose it is (``owner``). A time after now is a
    plan: refused unless ``planned`` (then its facts hold from that time on)."""

    text: str
    at: datetime | None = None
    source: str | None = None
    tags: Sequence[str] = ()
    metadata: Mapping[str, Any] | None = None
    visibility: Visibility | str | None = None
    owner: str | None = None
    planned: bool = False


PLANNED_SKEW = timedelta(minutes=5)
"""How far after now a memory's time may be without being a plan (clocks differ)."""


def memory_time(new: NewMemory) -> datetime:
    """When ``new`` happened (default now). Raises :class:`~loregraph.errors.InputError`
    for a time after now unless the memory is marked planned."""
    now = utcnow()
    at = aware(new.at) or now
    if at > now + PLANNED_SKEW and not new.planned:
        raise InputError(
            f"the memory's time {at.isoformat()} is in the future: mark it planned "
            "(--planned, or planned=true) to remember a plan"
        )
    return at


def memory_document(new: NewMemory, acting: Principal | None = None) -> SourceDocument:
    """The document a memory is stored as (see the module docstring); the text is kept
    without the blank space around it.

    Raises :class:`~loregraph.errors.InputError` for an empty text, a tag that is not a
    non-empty string, an unknown visibility, a personal memory nobody owns or a time in
    the future of a memory not marked planned. A personal memory with no owner belongs to
    ``acting``.
    """
    at = memory_time(new)
    access = document_access(new.visibility, new.owner, acting)
    if not isinstance(new.text, str) or not new.text.strip():
        raise InputError("a memory needs a non-empty text")
    text, tags = new.text.strip(), new.tags
    clean_tags = list(dict.fromkeys([tags] if isinstance(tags, str) else tags))
    if any(not isinstance(tag, str) or not tag.strip() for tag in clean_tags):
        raise InputError(f"tags must be non-empty strings, not {list(clean_tags)!r}")
    if new.source is not None and not isinstance(new.source, str):
        raise InputError(f"a memory's source must be a string, not {new.source!r}")
    first_line = text.splitlines()[0].strip()
    title = first_line if len(first_line) <= TITLE_CHARS else first_line[:TITLE_CHARS] + "…"
    metadata: dict[str, Any] = {
        "tags": clean_tags,
        "source": new.source,
        "metadata": dict(new.metadata or {}),
    }
    if new.planned:
        metadata["planned"] = True
    return SourceDocument(
        title=title,
        text=text,
        source=f"memory:{uuid.uuid4().hex}",
        metadata=metadata,
        kind=DocKind.MEMORY,
        valid_at=at,
        visibility=access.visibility,
        owner=access.owner,
    )


def is_memory(document: Document) -> bool:
    """Whether a stored document is a memory."""
    return document.kind == DocKind.MEMORY


def memory_of(document: Document, text: str) -> Memory:
    """The memory a stored document of kind ``memory`` holds, with its ``text``."""
    meta = document.metadata
    return Memory(
        id=document.id,
        text=text,
        at=document.valid_at or document.created_at,
        tags=[str(tag) for tag in meta.get("tags") or []],
        source=meta.get("source"),
        metadata=dict(meta.get("metadata") or {}),
        scope=document.scope,
        created_at=document.created_at,
        visibility=document.visibility,
        owner=document.owner,
        planned=bool(meta.get("planned")),
    )


def stitch(document: Document, chunks: Iterable[Chunk]) -> str:
    """A document's stored text from its chunks (which may overlap; blank space the chunks
    left out between them comes back as spaces)."""
    text = ""
    for chunk in sorted(chunks, key=lambda c: c.seq):
        if chunk.start > len(text):
            text += " " * (chunk.start - len(text))
        if chunk.end > len(text):
            text += chunk.text[len(text) - chunk.start :]
    return text[: document.char_count] if document.char_count else text


async def read_memories(store: Store, documents: Sequence[Document]) -> list[Memory]:
    """The memories of these stored documents, in order, their texts read from their chunks
    (a few chunks of every memory at once, then more for the long ones)."""
    chunks: dict[str, list[Chunk]] = {d.id: [] for d in documents}
    wanted = list(documents)
    asked = 0
    while wanted:
        ids = [chunk_id(d.id, seq) for d in wanted for seq in range(asked, asked + CHUNKS_ASKED)]
        for chunk in await store.get_chunks(ids):
            chunks[chunk.document_id].append(chunk)
        asked += CHUNKS_ASKED
        wanted = [d for d in wanted if len(chunks[d.id]) == asked]
    return [memory_of(d, stitch(d, chunks[d.id])) for d in documents]

"""Reading one passage by its id (``graph.explore.passage``): what a citation's ``chunk_id``
points to, with its document's title, so a reader can open the passage an answer cites."""

from __future__ import annotations

from dataclasses import dataclass

from loregraph.errors import NotFoundError
from loregraph.retrieve.results.sections import section_index
from loregraph.serial import Record
from loregraph.store.base import Store


@dataclass(frozen=True, slots=True)
class PassageView(Record):
    """A stored passage: its text and where it is (``start``/``end`` are character offsets
    into its document's text, as a citation's are; ``section`` is the heading path at its
    start, ``""`` when its document has none)."""

    id: str
    document_id: str
    document_title: str
    seq: int
    start: int
    end: int
    text: str
    section: str = ""


async def read_passage(store: Store, passage_id: str, scope: str) -> PassageView:
    """The passage ``passage_id`` (a citation's ``chunk_id``) of ``scope``, with its
    document's title; :class:`~loregraph.errors.NotFoundError` when the scope has none."""
    chunks = await store.get_chunks([passage_id])
    document = await store.get_document(chunks[0].document_id) if chunks else None
    if not chunks or document is None or document.scope != scope:
        raise NotFoundError(f"no passage {passage_id!r}")
    chunk = chunks[0]
    section = section_index(document).path(chunk.start)
    return PassageView(
        chunk.id,
        document.id,
        document.title,
        chunk.seq,
        chunk.start,
        chunk.end,
        chunk.text,
        section,
    )

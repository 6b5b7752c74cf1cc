"""Memories found by text, each with the entities it mentions (``graph.memories.search``,
written in :class:`MemorySearch`, the base of :class:`~loregraph.engine.remember.Memories`).

The question's words (BM25) and its embedding (cosine) are searched over the chunks of
memories only (the stores' ``kind=`` filter), the two rankings fused by reciprocal rank, and
each memory ranked by its best chunk. The entities a memory mentions come from the in-memory
graph index of the scope (mentions by chunk), most mentioned first. A memory that does not
cover enough of the query's weighted terms is left out, by the relevance measure of
document search (:class:`~loregraph.retrieve.question.relevance.TextJudge`): a search about
something no memory holds finds nothing, not the nearest unrelated memories.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from loregraph.engine.core import Section
from loregraph.engine.memories import Memory, MemoryFilter, memory_of, read_memories
from loregraph.errors import InputError
from loregraph.models import DocKind, Document, Entity, Scored
from loregraph.retrieve.graph.graphindex import SHARED_CACHE, GraphIndex
from loregraph.retrieve.question.relevance import text_judge
from loregraph.settings import check_limit
from loregraph.store.base import Store
from loregraph.store.scripts import fuse_rankings

if TYPE_CHECKING:
    pass

CHUNKS_PER_HIT = 4
"""Chunks asked of each search per memory wanted (a memory may have several)."""
FILTERED_MORE = 5
"""How many times more chunks are asked when tags, source or times filter the memories."""


@dataclass(slots=True)
class MemoryHit:
    """A memory found by text: the memory, its fused rank ``score`` (higher is better),
    the entities it mentions, most mentioned first, the share of the query's weighted terms
    it holds (``relevance``) and whether that is enough to be about the query
    (``relevant``)."""

    memory: Memory
    score: float
    entities: list[Entity] = field(default_factory=list)
    relevance: float = 0.0
    relevant: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON: the memory's fields, ``score``, ``relevance``, ``relevant`` and
        ``entities``."""
        return self.memory.to_dict() | {
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 4),
            "relevant": self.relevant,
            "entities": [{"id": e.id, "name": e.name, "type": e.type} for e in self.entities],
        }


class MemorySearch(Section):
    """``search``: memories found by text, joined with the entities they mention."""

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        tags: Sequence[str] = (),
        source: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        scope: str | None = None,
    ) -> list[MemoryHit]:
        """The memories that best match ``query`` (its words and its meaning), best first,
        each with the entities it mentions and whether it is about the query (never
        withheld: a hit that is not says so), with every tag of ``tags``, from ``source``
        and happened between ``since`` and ``until`` when given. Documents are never
        returned.

        Raises :class:`~loregraph.errors.InputError` for a blank query.
        """
        check_limit(limit)
        if not query.strip():
            raise InputError("the query is empty; say what to look for in the memories")
        wanted = MemoryFilter(tuple(tags), source, since, until)
        await self.core.open()
        scope = self.core._scope(scope)
        vector = await asyncio.to_thread(self.core.embedder.embed, [query])
        ranked = await ranked_memories(
            self.core.store, scope, query, np.asarray(vector[0], dtype=np.float32), limit, wanted
        )
        if not ranked:
            return []
        judge = await text_judge(query, self.core.store, scope)
        documents = [d for d, _ in ranked]
        read = await read_memories(self.core.store, documents)
        index, _ = await SHARED_CACHE.get(self.core.store, scope)
        mentioned = await mentioned_entities(self.core.store, index, documents)
        hits = []
        for memory, (_, score) in zip(read, ranked, strict=True):
            share = judge.share(memory.text)
            entities = mentioned.get(memory.id, [])
            hits.append(MemoryHit(memory, score, entities, share, share >= judge.threshold))
        return hits


async def ranked_memories(
    store: Store,
    scope: str,
    query: str,
    vector: np.ndarray[Any, Any],
    limit: int,
    wanted: MemoryFilter,
) -> list[tuple[Document, float]]:
    """The best ``limit`` memories ``wanted`` accepts, by their best chunk in the fused text
    and vector rankings."""
    asked = limit * CHUNKS_PER_HIT * (1 if wanted.everything() else FILTERED_MORE)
    text, near = await asyncio.gather(
        store.search_chunks_text(scope, query, asked, kind=DocKind.MEMORY),
        store.search_chunks_vector(scope, vector, asked, kind=DocKind.MEMORY)
        if float(np.linalg.norm(vector)) > 0
        else _nothing(),
    )
    fused = fuse_rankings([text, near], asked)
    chunks = {c.id: c for c in await store.get_chunks([hit.id for hit in fused])}
    best: dict[str, float] = {}
    for hit in fused:
        chunk = chunks.get(hit.id)
        if chunk is not None and chunk.document_id not in best:
            best[chunk.document_id] = hit.score
    out: list[tuple[Document, float]] = []
    for document_id, score in best.items():
        document = await store.get_document(document_id)
        if document is None or document.kind != DocKind.MEMORY:
            continue
        if wanted.accepts(memory_of(document, "")):
            out.append((document, score))
            if len(out) == limit:
                break
    return out


async def mentioned_entities(
    store: Store, index: GraphIndex, documents: list[Document]
) -> dict[str, list[Entity]]:
    """Document id → the entities its chunks mention, most mentioned first."""
    chunks = index.document_chunks([d.id for d in documents])
    by_chunk = index.entities_in([c for ids in chunks.values() for c in ids])
    ordered: dict[str, list[str]] = {}
    for document_id, chunk_ids in chunks.items():
        ids = [e for c in chunk_ids for e in by_chunk.get(c, [])]
        ordered[document_id] = list(dict.fromkeys(ids))
    wanted = list({e for ids in ordered.values() for e in ids})
    entities = {e.id: e for e in await store.get_entities(wanted)}
    return {d: [entities[e] for e in ids if e in entities] for d, ids in ordered.items()}


async def _nothing() -> list[Scored]:
    return []

"""Passages: chunks ranked by entity mentions (and PageRank), fused with BM25 and vector hits.

Mention ranking scores a chunk ``sum(entity_score × (1 + ½ ln count) / log2(2 + df))`` over
the ranked entities it mentions, where ``df`` is how many chunks mention the entity: a chunk
naming several of the question's entities ranks high, one naming only the protagonist of a
novel (mentioned everywhere) does not.

Rank fusion keeps only ranks, so a mention ranking built from entities mentioned everywhere
would count as much as one built from entities named in two chunks. The graph's rankings
(mentions and the evidence of their relations) are therefore weighed by their
*selectivity* (:func:`mention_selectivity`): the entities' rarity, weighed like terms, so
that in a long book where the question's people appear in hundreds of chunks the question's
own words decide, while on short titled records the entities' pages still lead.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from loregraph.models import Chunk, Document
from loregraph.models import chunk_id as nth_chunk
from loregraph.retrieve.results.result import Passage, RankedDocument, RankedRelation
from loregraph.retrieve.results.sections import add_lines, add_sections
from loregraph.retrieve.search.fuse import Fused, reciprocal_rank_fusion
from loregraph.store.base import Store
from loregraph.text.lists import ends_in_list

PASSAGE_WEIGHTS = {
    "pages": 20.0,
    "bridges": 6.0,
    "mentions": 1.0,
    "facts": 1.0,
    "ppr": 1.0,
    "bm25": 2.0,
    "vector": 1.0,
}
"""RRF weight of each passage ranking: the pages of the entities a question names count
most, then the pages those pages lead to (see :mod:`loregraph.retrieve.graph.pages`). Among the
rest, the question's own words (BM25) count twice as much as any other signal (its meaning,
the mentions of the entities around it, which in a long document are everywhere, or the
evidence of their relations): measured on the long-document questions of
``bench/longdoc.py`` and checked on 2Wiki."""

SELECTIVE_DF = 4
"""An entity mentioned in at most this many chunks makes a fully selective mention ranking;
one mentioned in ``df`` chunks weighs ``log2(2 + SELECTIVE_DF) / log2(2 + df)`` (measured
on the long-document questions of ``bench/longdoc.py`` and checked on 2Wiki)."""

GRAPH_RANKINGS = ("mentions", "facts")
"""The rankings weighed by :func:`mention_selectivity`."""

OTHER_PASSAGES = 0.05
"""How much a document's passages after its best one add to its rank."""


def mention_ranking(
    rows: Sequence[tuple[str, str, int]], entity_scores: Mapping[str, float]
) -> list[str]:
    """Chunk ids ranked by the entities they mention (see module docstring)."""
    df = Counter(entity_id for entity_id, _, _ in rows)
    scores: dict[str, float] = {}
    for entity_id, chunk_id, count in rows:
        weight = entity_scores.get(entity_id, 0.0)
        if weight <= 0:
            continue
        gain = weight * (1.0 + 0.5 * math.log(max(count, 1))) / math.log2(2 + df[entity_id])
        scores[chunk_id] = scores.get(chunk_id, 0.0) + gain
    return [c for c, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def mention_selectivity(
    rows: Sequence[tuple[str, str, int]], entity_scores: Mapping[str, float]
) -> float:
    """How selective the mentions of the ranked entities are, from 0 to 1: the
    score-weighted mean of ``min(1, log2(2 + SELECTIVE_DF) / log2(2 + df))``."""
    df = Counter(entity_id for entity_id, _, _ in rows)
    total = weighted = 0.0
    for entity_id, count in df.items():
        score = entity_scores.get(entity_id, 0.0)
        if score <= 0:
            continue
        total += score
        weighted += score * min(1.0, math.log2(2 + SELECTIVE_DF) / math.log2(2 + count))
    return weighted / total if total > 0 else 1.0


def evidence_ranking(relations: Sequence[RankedRelation]) -> list[str]:
    """Chunk ids ranked by the relations they are evidence for.

    A chunk scores ``sum(relation_score / log2(1 + n_evidence))``: evidence of a relation
    stated in few places counts more than one of a pair seen together everywhere.
    """
    scores: dict[str, float] = {}
    for ranked in relations:
        chunk_ids = list(dict.fromkeys(ev.chunk_id for ev in ranked.relation.evidence))
        if not chunk_ids:
            continue
        gain = ranked.score / math.log2(1 + len(chunk_ids))
        for chunk_id in chunk_ids:
            scores[chunk_id] = scores.get(chunk_id, 0.0) + gain
    return [c for c, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def fuse_passages(
    rankings: Mapping[str, Sequence[str]], k: int, limit: int, selectivity: float = 1.0
) -> list[Fused]:
    """RRF over the passage rankings, the graph's weighed by ``selectivity``
    (:func:`mention_selectivity`); the best ``limit`` chunk ids with their finders."""
    present = {name: ids for name, ids in rankings.items() if ids}
    weights = {
        name: weight * selectivity if name in GRAPH_RANKINGS else weight
        for name, weight in PASSAGE_WEIGHTS.items()
    }
    fused = reciprocal_rank_fusion(present, k=k, weights=weights)
    return fused[: max(0, limit)]


async def load_passages(store: Store, fused: Sequence[Fused]) -> list[Passage]:
    """Turn fused chunk ids into passages with text and document titles (batched loads)."""
    if not fused:
        return []
    chunks = {c.id: c for c in await store.get_chunks([f.id for f in fused])}
    doc_ids = list(dict.fromkeys(c.document_id for c in chunks.values()))
    docs = await load_documents(store, doc_ids)
    passages: list[Passage] = []
    for f in fused:
        chunk = chunks.get(f.id)
        if chunk is None:
            continue
        doc = docs.get(chunk.document_id)
        title, source = (doc.title, doc.source) if doc else (chunk.document_id, "")
        passage = Passage.of_chunk(chunk, title, source, f.score, f.found_by)
        passage.document_at = doc.valid_at if doc else None
        passages.append(passage)
    add_sections(passages, docs)
    add_lines(passages, docs)
    await add_following(store, passages)
    return passages


FOLLOWING_CHUNKS = 2
"""How many of the next chunks a passage ending inside a list reads on into."""


async def add_following(store: Store, passages: Sequence[Passage]) -> None:
    """Set the ``following`` text of each passage that ends inside a list: the document's
    text after it, from its next :data:`FOLLOWING_CHUNKS` chunks (one batched load)."""
    cut = [p for p in passages if ends_in_list(p.text)]
    if not cut:
        return
    wanted = [
        nth_chunk(p.document_id, p.seq + k) for p in cut for k in range(1, FOLLOWING_CHUNKS + 1)
    ]
    loaded = {(c.document_id, c.seq): c for c in await store.get_chunks(wanted)}
    for passage in cut:
        after = [
            loaded.get((passage.document_id, passage.seq + k))
            for k in range(1, FOLLOWING_CHUNKS + 1)
        ]
        passage.following = stitched_text(passage.end, [c for c in after if c is not None])


def stitched_text(end: int, chunks: Sequence[Chunk | Passage]) -> str:
    """The text of ``chunks`` (in order) from document offset ``end`` on. Chunks overlap,
    or are apart only by the whitespace the chunker cut at (without overlap), which is
    kept as line breaks so that the offsets stay exact."""
    parts: list[str] = []
    for chunk in chunks:
        if chunk.end <= end:
            break
        parts.append("\n" * max(chunk.start - end, 0) + chunk.text[max(end - chunk.start, 0) :])
        end = chunk.end
    return "".join(parts)


async def load_documents(store: Store, document_ids: Sequence[str]) -> dict[str, Document]:
    """Documents by id, fetched concurrently."""
    found = await asyncio.gather(*(store.get_document(d) for d in document_ids))
    return {doc.id: doc for doc in found if doc is not None}


def rank_documents(passages: Sequence[Passage], k: int) -> list[RankedDocument]:
    """Documents ranked by their best passage, then by their other passages.

    A document scores its best passage's fused score plus ``OTHER_PASSAGES`` times the
    scores of its other passages: a long document with many middling passages does not
    outrank a short one holding the best passage. Passages without a score count by rank.
    """
    out: dict[str, RankedDocument] = {}
    for rank, passage in enumerate(passages, start=1):
        gain = passage.score if passage.score > 0 else 1.0 / (k + rank)
        doc = out.get(passage.document_id)
        if doc is None:
            out[passage.document_id] = RankedDocument(
                document_id=passage.document_id,
                title=passage.document_title,
                source=passage.document_source,
                score=gain,
                best_chunk_id=passage.chunk_id,
            )
        else:
            doc.score += OTHER_PASSAGES * gain
    return sorted(out.values(), key=lambda d: -d.score)

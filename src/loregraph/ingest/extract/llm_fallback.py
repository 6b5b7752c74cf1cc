"""The offline fallback of the LLM extractor: a batch the model cannot do is done by spaCy.

When a mega-batch's reply is still unusable after the corrective retry (a weak model that
writes JSON without names, an empty object, prose), that batch is extracted by the offline
extractor the LLM extractor was given, so a weak model never makes a document fail for
ever. Transient failures (the server down, rate limits, timeouts) are not covered: the
document fails and the next run tries again.

* The batch is extracted as a document of its own (its text is the exact slice of the
  document its chunks cover, its chunks keep their sequence numbers), so occurrences and
  evidence refer to the document's chunks as the LLM's do.
* **Entities** of a batch whose entity pass fell back join the model's: a name the model
  listed elsewhere (same name key) keeps the model's entry, whose mentions were already
  counted in the whole document.
* **Relations** of a batch whose relationship pass fell back are the offline ones whose
  two ends name entities of the document (:class:`~.llm_locate.EndpointResolver`); the
  others are dropped and counted as ``relations_offline_unknown_entity``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from loregraph.ingest.extract.llm_locate import EndpointResolver
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    ExtractionResult,
    SourceDocument,
    TextChunk,
)
from loregraph.models import name_key


class BatchExtractor(Protocol):
    """What the fallback needs of an extractor (the offline one has it)."""

    name: str

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        """Extract candidates from ``chunks``."""
        ...


def batch_document(
    document: SourceDocument,
    chunks: Sequence[TextChunk],
    text: str,
    offset: int,
    seqs: Sequence[int],
) -> tuple[SourceDocument, list[TextChunk]]:
    """A mega-batch as a document of its own: its text, and its chunks re-based on it."""
    wanted = set(seqs)
    rebased = [
        TextChunk(
            seq=c.seq,
            start=c.start - offset,
            end=c.end - offset,
            text=c.text,
            token_count=c.token_count,
        )
        for c in chunks
        if c.seq in wanted
    ]
    part = SourceDocument(
        title=document.title,
        text=text,
        source=document.source,
        external_id=document.external_id,
        metadata=document.metadata,
        kind=document.kind,
    )
    return part, rebased


class OfflineBatches:
    """Runs the offline extractor on the batches that need it, each at most once."""

    def __init__(self, extractor: BatchExtractor) -> None:
        self.extractor = extractor
        self._done: dict[int, ExtractionResult] = {}

    async def extract(
        self,
        index: int,
        document: SourceDocument,
        chunks: Sequence[TextChunk],
        text: str,
        offset: int,
        seqs: Sequence[int],
    ) -> ExtractionResult:
        """The offline result for batch ``index`` (computed on first use)."""
        if index not in self._done:
            part, rebased = batch_document(document, chunks, text, offset, seqs)
            self._done[index] = await self.extractor.extract(part, rebased)
        return self._done[index]


def merge_entities(
    found: list[CandidateEntity], offline: Sequence[ExtractionResult], stats: Counter[str]
) -> list[CandidateEntity]:
    """The model's entities plus the offline ones of fallen-back batches (module doc)."""
    out = list(found)
    index = {name_key(c.name): c for c in out}
    from_model = set(index)
    for result in offline:
        for cand in result.entities:
            key = name_key(cand.name)
            if not key:
                continue
            known = index.get(key)
            if known is None:
                index[key] = cand
                out.append(cand)
                stats["entities_offline"] += 1
            elif key in from_model:
                continue  # the model's entry already counts every mention in the document
            else:  # the same name from two fallen-back batches: add its occurrences
                known.occurrences.extend(cand.occurrences)
                known.mentions += cand.mentions
                known.salience = max(known.salience, cand.salience)
    return out


def map_relations(
    relations: Sequence[CandidateRelation],
    entities: Sequence[CandidateEntity],
    stats: Counter[str],
) -> list[CandidateRelation]:
    """Offline relations with their ends mapped to the document's entities (module doc)."""
    resolver = EndpointResolver(entities)
    out: list[CandidateRelation] = []
    for rel in relations:
        source, _ = resolver.resolve(rel.source)
        target, _ = resolver.resolve(rel.target)
        if source is None or target is None:
            stats["relations_offline_unknown_entity"] += 1
            continue
        if source == target:
            stats["relations_offline_self"] += 1
            continue
        stats["relations_offline"] += 1
        out.append(
            dataclasses.replace(rel, source=source, target=target, evidence=list(rel.evidence))
        )
    return out

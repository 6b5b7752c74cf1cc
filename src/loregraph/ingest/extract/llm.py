"""The LLM extractor: two passes over mega-batches, keeping entities above a confidence threshold.

1. **Entities**, one call per mega-batch (≤ ``mega_batch_chars``, default 50K): name,
   type, description, aliases, salience (1-5), mentions, confidence. Each must be found
   in its batch's text (exactly, by an alias, ignoring case, or fuzzily:
   :mod:`.llm_ground`); the others are dropped and counted as ungrounded. Entities named
   in several batches are merged by name key, those with confidence below
   ``min_confidence`` (default 0.7) or a name that cannot be a proper name are dropped and
   counted, and mentions are found in the text (:mod:`.llm_entities`).
2. **Core entities** are chosen exactly as the pipeline will choose them (type
   normalisation, in-document clustering, :func:`~loregraph.ingest.extract.select.select_entities`).
3. **Relationships**, one call per mega-batch, restricted to the core entity names. Ends
   that name no core entity are resolved against the known names or dropped and counted,
   and so are ends the batch's text does not mention (ungrounded); relations below
   ``min_confidence`` and self-relations are dropped and counted; each kept relation gets
   verbatim evidence (:func:`~.llm_locate.locate_evidence`).

``gleaning`` (default 0) adds rounds in which the model is asked, in the same
conversation, for what it missed. The result goes through the same normalisation,
selection and resolution as the offline extractor's.

A batch whose reply is still unusable after the corrective retry is extracted by the
``fallback`` extractor (the offline one) instead, and counted as a ``fallback`` of its
stage (:mod:`.llm_fallback`); so is a batch whose reply holds nothing grounded in its text
(every entity, or every relation, dropped). A call that fails otherwise (server errors,
timeouts after the client's retries, an open circuit breaker), or an unusable reply with no
fallback, makes the whole document fail with :class:`~loregraph.llm.errors.LLMExtractionError` (the
pipeline reports it as a failed document and the next run tries it again; the calls that
succeeded are cached).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from loregraph.errors import LoregraphError
from loregraph.ingest.extract.batches import mega_batches
from loregraph.ingest.extract.llm_entities import core_entities, merge_listings
from loregraph.ingest.extract.llm_fallback import (
    BatchExtractor,
    OfflineBatches,
    map_relations,
    merge_entities,
)
from loregraph.ingest.extract.llm_ground import ground_listing
from loregraph.ingest.extract.llm_locate import BatchSpan, ground_relations
from loregraph.ingest.extract.llm_schema import (
    ENTITY_SCHEMA,
    RELATION_SCHEMA,
    Items,
    validate_entities,
    validate_relations,
)
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    ExtractionResult,
    MegaBatch,
    SourceDocument,
    TextChunk,
)
from loregraph.llm.base import Message
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMError, LLMExtractionError, LLMOutputError
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.stage import LLMStage
from loregraph.llm.structured import JsonOutcome, Validate
from loregraph.settings import ExtractionSettings
from loregraph.text.entity_types import normalize_type

ENTITY_STAGE = "extract.entities"
RELATION_STAGE = "extract.relations"
GLEAN_STAGE = "extract.glean"
T = TypeVar("T")
Item = tuple[SourceDocument, list[TextChunk]]


@dataclass(slots=True)
class _Batch:
    """A mega-batch with its offset in the document."""

    batch: MegaBatch
    offset: int
    count: int


@dataclass(frozen=True, slots=True)
class _Pass:
    """One of the two passes: ``kind`` names its list (in the schema, the reply and the
    gleaning prompt); ``prompt`` is its prompt's name."""

    kind: str
    prompt: str
    schema: dict[str, Any]
    check: Validate[Items]
    stage: str


ENTITY_PASS = _Pass("entities", "extract_entities", ENTITY_SCHEMA, validate_entities, ENTITY_STAGE)
RELATION_PASS = _Pass(
    "relationships", "extract_relationships", RELATION_SCHEMA, validate_relations, RELATION_STAGE
)


class LLMExtractor(LLMStage):
    """Extracts entities and relations with a language model (module docstring).

    Args:
        client: the model client (cache, concurrency, retries, usage).
        settings: limits per batch and the core-entity selection (shared with the pipeline).
        mega_batch_chars: characters per call (default 50,000).
        prompts: prompt library (``extract_entities``, ``extract_relationships``, ``glean``).
        min_confidence: the confidence threshold (0.7).
        gleaning: extra rounds asking for missed entities and relationships.
        structured: send JSON schemas as response formats where the provider can.
        max_tokens: reply limit per call.
        fallback: the extractor for batches whose reply stays unusable (the offline one);
            ``None``: such a batch fails the document.
    """

    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        settings: ExtractionSettings | None = None,
        *,
        mega_batch_chars: int = 50_000,
        prompts: PromptLibrary | None = None,
        min_confidence: float = 0.7,
        gleaning: int = 0,
        structured: bool = True,
        max_tokens: int = 4096,
        fallback: BatchExtractor | None = None,
    ) -> None:
        super().__init__(client, prompts=prompts, structured=structured)
        self.fallback = fallback
        self.settings = settings or ExtractionSettings()
        self.mega_batch_chars = mega_batch_chars
        self.min_confidence = min_confidence
        self.gleaning = gleaning
        self.max_tokens = max_tokens
        self.name = f"llm:{client.model_name}"

    # ------------------------------------------------------------------ public
    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        """Extract one document; raises :class:`LLMExtractionError` when a call fails."""
        stats: Counter[str] = Counter()
        if not chunks:
            return ExtractionResult(stats={"chars": len(document.text), "batches": 0})
        batches = self._batches(document, chunks)
        stats["batches"] = len(batches)
        offline = OfflineBatches(self.fallback) if self.fallback is not None else None
        raw = await self._all(
            document, "entities", [self._entity_pass(document, b) for b in batches]
        )
        listed = [
            None if items is None else ground_listing(b.batch.text, items, stats)
            for b, items in zip(batches, raw, strict=True)
        ]
        entities = merge_listings(
            document, chunks, [b.batch for b in batches], listed, self.min_confidence, stats
        )
        fell = [b for b, found in zip(batches, listed, strict=True) if found is None]
        if fell and offline is not None:
            done = [await self._offline(offline, document, chunks, b, ENTITY_STAGE) for b in fell]
            entities = merge_entities(entities, done, stats)
        core = core_entities(entities, self.settings)
        relations: list[CandidateRelation] = []
        if len(core) >= 2:
            raw_rel = await self._all(
                document,
                "relationships",
                [self._relation_pass(document, b, core) for b in batches],
            )
            for b, items in zip(batches, raw_rel, strict=True):
                kept = (
                    []
                    if items is None
                    else self._relations(document, chunks, b, items, core, stats)
                )
                relations.extend(kept)
                if (items is None or (items.relations and not kept)) and offline is not None:
                    # unusable, or nothing of it holds: this batch's relations come offline
                    done_rel = await self._offline(offline, document, chunks, b, RELATION_STAGE)
                    relations.extend(map_relations(done_rel.relations, entities, stats))
        self._report(stats)
        stats["chars"] = len(document.text)
        stats["entities"] = len(entities)
        stats["relations"] = len(relations)
        return ExtractionResult(entities=entities, relations=relations, stats=dict(stats))

    async def aextract_many(self, items: Sequence[Item]) -> list[ExtractionResult | BaseException]:
        """Extract several documents concurrently (the client bounds the calls in flight).

        A document that fails is returned as its exception, in its place, so the others
        are still ingested.
        """
        results = await asyncio.gather(
            *(self.extract(doc, chunks) for doc, chunks in items), return_exceptions=True
        )
        out: list[ExtractionResult | BaseException] = []
        for result in results:
            if isinstance(result, BaseException) and not isinstance(
                result, LoregraphError | ValueError | RuntimeError
            ):
                raise result
            out.append(result)
        return out

    # ------------------------------------------------------------------ calls
    def _batches(self, document: SourceDocument, chunks: list[TextChunk]) -> list[_Batch]:
        by_seq = {c.seq: c for c in chunks}
        batches = mega_batches(chunks, self.mega_batch_chars, source=document.text)
        return [_Batch(b, by_seq[b.chunk_seqs[0]].start, len(batches)) for b in batches]

    async def _all(
        self, document: SourceDocument, what: str, calls: Sequence[Awaitable[T]]
    ) -> list[T | None]:
        """Await every call (so the successful ones are cached), then fail if any failed;
        with a fallback, a batch whose reply stayed unusable is ``None`` instead."""
        results = await asyncio.gather(*calls, return_exceptions=True)
        errors = [(i, r) for i, r in enumerate(results) if isinstance(r, BaseException)]
        for _, error in errors:
            if not isinstance(error, LLMError):
                raise error
        failed = [
            (i, r) for i, r in errors if self.fallback is None or not isinstance(r, LLMOutputError)
        ]
        if failed:
            index, error = failed[0]
            raise LLMExtractionError(
                f"LLM extraction failed ({what} pass, {len(failed)} of {len(results)} calls; "
                f"batch {index + 1}: {error}); the document was not written and will be "
                "retried on the next run"
            )
        return [None if isinstance(r, BaseException) else r for r in results]

    async def _offline(
        self,
        offline: OfflineBatches,
        document: SourceDocument,
        chunks: list[TextChunk],
        b: _Batch,
        stage: str,
    ) -> ExtractionResult:
        """The fallback extractor's result for one batch, counted as a fallback of ``stage``."""
        self.client.usage.count(stage, fallbacks=1)
        return await offline.extract(
            b.batch.index, document, chunks, b.batch.text, b.offset, b.batch.chunk_seqs
        )

    async def _ask(
        self, document: SourceDocument, b: _Batch, step: _Pass, **fields: object
    ) -> Items:
        """One pass's call for batch ``b``, then the gleaning rounds."""
        messages = self.prompts.messages(
            step.prompt,
            title=document.title,
            batch=b.batch.index + 1,
            batches=b.count,
            text=b.batch.text,
            **fields,
        )
        outcome = await self._complete(messages, step, step.stage)
        items = outcome.value
        convo = [*messages, Message("assistant", outcome.completions[-1].text)]
        for _ in range(self.gleaning):
            convo = [*convo, *self.prompts.messages("glean", kind=step.kind)]
            try:
                more = await self._complete(convo, step, GLEAN_STAGE)
            except LLMOutputError:
                break  # an unusable gleaning reply: keep what the first reply gave
            added = more.value.entities if step is ENTITY_PASS else more.value.relations
            if not added:
                break
            items.entities.extend(more.value.entities)
            items.relations.extend(more.value.relations)
            items.malformed += more.value.malformed
            convo = [*convo, Message("assistant", more.completions[-1].text)]
        return items

    async def _complete(
        self, messages: list[Message], step: _Pass, stage: str
    ) -> JsonOutcome[Items]:
        return await self.ask_json(
            messages,
            schema=step.schema,
            schema_name=step.kind,
            validate=step.check,
            stage=stage,
            max_tokens=self.max_tokens,
        )

    async def _entity_pass(self, document: SourceDocument, b: _Batch) -> Items:
        return await self._ask(
            document, b, ENTITY_PASS, max_entities=self.settings.max_entities_per_batch
        )

    async def _relation_pass(
        self, document: SourceDocument, b: _Batch, core: list[CandidateEntity]
    ) -> Items:
        listing = "\n".join(f"- {c.name} ({normalize_type(c.type)})" for c in core)
        return await self._ask(
            document,
            b,
            RELATION_PASS,
            entities=listing,
            max_relationships=self.settings.max_relationships_per_batch,
        )

    # ------------------------------------------------------------------ assembly
    def _relations(
        self,
        document: SourceDocument,
        chunks: list[TextChunk],
        b: _Batch,
        items: Items,
        core: list[CandidateEntity],
        stats: Counter[str],
    ) -> list[CandidateRelation]:
        """One batch's reply as relations between core entities, grounded in its text."""
        span = BatchSpan(b.batch.text, b.offset, b.batch.chunk_seqs)
        return ground_relations(
            document.text, chunks, [span], [items], core, stats, min_confidence=self.min_confidence
        )

    def _report(self, stats: Counter[str]) -> None:
        """Count what was listed, dropped or repaired in the usage tracker (for the ingest
        report)."""
        entity_notes = {k: v for k, v in stats.items() if k.startswith("entities_") and v}
        relation_notes = {k: v for k, v in stats.items() if k.startswith("relations_") and v}
        if entity_notes:
            self.client.usage.count(ENTITY_STAGE, **entity_notes)
        if relation_notes:
            self.client.usage.count(RELATION_STAGE, **relation_notes)

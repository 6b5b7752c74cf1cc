"""The offline extractor: spaCy NER and dependency parse, no network, no LLM.

Each document's text is parsed once, in pieces of about
:data:`~loregraph.ingest.extract.spacy_nlp.PIECE_CHARS` characters cut at paragraph or
sentence ends; mentions and sentences are then mapped to the chunk that contains them most
centrally (so the chunks' overlap never counts a mention twice). What is extracted and how
it is scored is described in :mod:`.assemble` (entities, title entity, salience,
relations), :mod:`.spacy_ner` (mentions, title references), :mod:`.typing_rules` (types
from the sentence around a name: ships, works, code) and :mod:`.dependency` (typed
relations).

Entity labels kept by default: PERSON, ORG, GPE, LOC, FAC, NORP, PRODUCT, EVENT,
WORK_OF_ART, LAW, LANGUAGE. Dates/times (type ``Time``) and numbers are left out by
default: in a book they are mostly relative ("the next day", "two") and crowd the graph,
and the retrieval benchmarks ask about named things. ``include_dates=True`` keeps DATE/TIME
spans that contain a digit ("8 August 869"), ``include_numbers=True`` likewise for
CARDINAL/MONEY/PERCENT/QUANTITY — for entity-extraction benchmarks that score them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from loregraph.ingest.clauses.claims import read_claims
from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.extract.assemble import ChunkLocator, DocumentAnalysis, assemble_entities
from loregraph.ingest.extract.claim_relations import add_claims
from loregraph.ingest.extract.claim_types import type_claims
from loregraph.ingest.extract.relations import build_relations
from loregraph.ingest.extract.spacy_ner import (
    DATE_LABELS,
    ENTITY_LABELS,
    NUMBER_LABELS,
    analyse_piece,
)
from loregraph.ingest.extract.spacy_nlp import (
    PARSE_LOCK,
    PIECE_CHARS,
    lemmatizer_of,
    load_nlp,
    prepare_text,
    split_pieces,
)
from loregraph.ingest.extract.typing_rules import apply_context_types
from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk
from loregraph.models import DocKind
from loregraph.settings import ExtractionSettings
from loregraph.text.names import split_qualifier

MULTIPROCESS_MIN_CHARS = 200_000
"""Below this many characters per call, ``settings.processes`` is ignored: starting worker
processes (each loads the model) costs more than it saves."""


Item = tuple[SourceDocument, list[TextChunk]]


class OfflineExtractor:
    """Finds entities and relations with spaCy (``pip install 'loregraph[nlp]'``).

    The model (``settings.spacy_model``, default ``en_core_web_sm``) is loaded on first use
    and shared by every extractor of the process; a missing spaCy or model raises
    :class:`~loregraph.errors.DependencyError` naming the install command.

    :meth:`extract` serves one document (parsed in a worker thread);
    :meth:`extract_many` parses a batch of documents in one ``nlp.pipe`` stream (with
    ``settings.processes`` worker processes for large batches), which is how a corpus of
    thousands of short records is ingested quickly.
    """

    name = "offline-spacy"

    def __init__(
        self,
        settings: ExtractionSettings | None = None,
        *,
        include_dates: bool = False,
        include_numbers: bool = False,
    ) -> None:
        self.settings = settings or ExtractionSettings()
        labels = set(ENTITY_LABELS)
        if include_dates:
            labels |= DATE_LABELS
        if include_numbers:
            labels |= NUMBER_LABELS
        self.labels = frozenset(labels)
        self._lemma: Any = None

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        """Extract one document (the parse runs in a worker thread)."""
        results = await asyncio.to_thread(self.extract_many, [(document, chunks)])
        return results[0]

    async def aextract_many(self, items: Sequence[Item]) -> list[ExtractionResult]:
        """:meth:`extract_many` in a worker thread, for async callers."""
        return await asyncio.to_thread(self.extract_many, items)

    def extract_many(self, items: Sequence[Item]) -> list[ExtractionResult]:
        """Extract a batch of (document, chunks) pairs; results are in input order.

        Blocking and CPU-bound: async callers use :meth:`aextract_many` (or run this in a
        thread).
        """
        nlp = load_nlp(self.settings.spacy_model)
        if self._lemma is None:
            self._lemma = lemmatizer_of(nlp)
        texts = [prepare_text(doc.text) for doc, _ in items]
        titles = [split_qualifier(doc.entity_title)[0] for doc, _ in items]
        analyses = [DocumentAnalysis() for _ in items]
        claims: list[list[Claim]] = [[] for _ in items]
        memories = {i for i, (doc, _) in enumerate(items) if doc.kind == DocKind.MEMORY}
        tasks: list[tuple[str, tuple[int, int]]] = []
        for i, ((_, chunks), text) in enumerate(zip(items, texts, strict=True)):
            if not chunks:
                continue
            for start, end in split_pieces(text, PIECE_CHARS):
                tasks.append((text[start:end], (i, start)))
        total = sum(len(t) for t, _ in tasks)
        processes = self.settings.processes if total >= MULTIPROCESS_MIN_CHARS else 1
        batch = max(4, min(256, 200_000 // max(1, total // max(1, len(tasks)))))
        with PARSE_LOCK:
            for doc, (i, offset) in nlp.pipe(
                tasks, as_tuples=True, batch_size=batch, n_process=max(1, processes)
            ):
                piece = analyse_piece(doc, offset, self.labels, self._lemma, titles[i])
                analyses[i].add(piece)
                analyses[i].cues.add(doc, offset)
                if i in memories:
                    claims[i].extend(type_claims(read_claims(doc, self._lemma), doc, self._lemma))
        return [
            self._assemble(doc, chunks, text, analysis, claims[i])
            for i, ((doc, chunks), text, analysis) in enumerate(
                zip(items, texts, analyses, strict=True)
            )
        ]

    def _assemble(
        self,
        document: SourceDocument,
        chunks: list[TextChunk],
        text: str,
        analysis: DocumentAnalysis,
        claims: list[Claim],
    ) -> ExtractionResult:
        if not chunks:
            return ExtractionResult(stats={"chars": len(text), "sentences": 0, "entities": 0})
        locator = ChunkLocator(chunks)
        typed_by_context = apply_context_types(analysis.spans)
        assembled = assemble_entities(document, locator, document.text, analysis)
        relations, relation_stats = build_relations(
            analysis,
            assembled,
            locator,
            document.text,
            prepared=text,
            co_occurrence=self.settings.co_occurrence,
        )
        entities = list(assembled.entities)
        relation_stats["claim_relations"] = add_claims(
            claims, entities, relations, locator, document.text
        )
        stats = {"chars": len(text), **assembled.stats, **relation_stats}
        stats["names_typed_by_context"] = typed_by_context
        return ExtractionResult(entities=entities, relations=relations, stats=stats)

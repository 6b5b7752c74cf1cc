"""The ingestion pipeline: wires the stages, owns batching, progress and idempotency.

read → set aside boilerplate (:mod:`.boilerplate`) → find sections (:mod:`.sections`) →
chunk → extract → normalise types →
cluster → select core entities → resolve → relate → embed → write. Documents are extracted
in batches (one NLP pass over many short records) and embedded in batches (the chunks, and
the entity texts resolution will likely need, in one pass: see
:meth:`~loregraph.ingest.resolve.entities.Resolver.plan_embeddings`), but resolved and written one
at a time, in input order, each in one transaction: an interrupted run resumes by skipping
what is done and ends with the same graph.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from loregraph.embed.base import Embedder
from loregraph.errors import EmptyInputError, LoregraphError
from loregraph.ingest.chunk.blanks import BLANKS, blank_runs, complete
from loregraph.ingest.chunk.boilerplate import set_aside
from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.chunk.sections import with_sections
from loregraph.ingest.code.graph import CHUNK_CHARS
from loregraph.ingest.code.stage import is_code, read_code, still_current
from loregraph.ingest.embedding import embed_batch
from loregraph.ingest.extract.base import Extractor, identity
from loregraph.ingest.extract.select import Selection, select_entities
from loregraph.ingest.facts.statements import own_statements
from loregraph.ingest.facts.supersede import Contradict, supersede
from loregraph.ingest.progress import NullProgress, Progress
from loregraph.ingest.relate import as_written, build_mentions, build_relations, surface_index
from loregraph.ingest.report import DocumentFailure, IngestReport, ReplacedDocument
from loregraph.ingest.resolve.cluster import Record
from loregraph.ingest.resolve.decisions import MergeRules, Pins
from loregraph.ingest.resolve.entities import Resolver, cluster_candidates
from loregraph.ingest.tally import count_bundle, describe_failure, timed_iter, timer
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    ExtractionResult,
    SourceDocument,
    TextChunk,
)
from loregraph.kinds import Visibility
from loregraph.models import (
    Chunk,
    DocStatus,
    Document,
    DocumentBundle,
    EntityWrite,
    Merge,
    chunk_id,
    content_hash,
    stable_id,
    utcnow,
)
from loregraph.settings import Settings
from loregraph.store.base import Store
from loregraph.text.entity_types import normalize_type

BATCH_DOCUMENTS = 64
BATCH_CHARS = 50_000
"""A batch closes before a document would take it past this many characters: short records
share one NLP and embedding pass, while a long document is processed, and committed, on its
own, so that a killed ingest keeps every document finished before the kill."""
EXTRACTED_BY = "extracted_by"
"""Metadata key: the extractor that made a document's graph (``loregraph backfill``)."""


@dataclass(slots=True)
class Pending:
    """A document that needs work, with its chunks once cut."""

    source: SourceDocument
    doc_id: str
    digest: str
    replacing: bool
    chunks: list[TextChunk]
    created_at: datetime | None = None
    """When the document was first written (kept when a stored document is processed again)."""
    extracted: ExtractionResult | None = None
    """A source file's graph, read with its chunks (:mod:`loregraph.ingest.code`)."""


@dataclass(slots=True)
class _Prepared:
    """A document's extraction, clustered and selected: what resolution starts from."""

    clustered: list[CandidateEntity]
    records: list[Record]
    selection: Selection
    relations: list[CandidateRelation]


def document_id(scope: str, source: str) -> str:
    """The id of the document read from ``source`` in ``scope`` (stable across runs)."""
    return stable_id("doc", scope, source)


class IngestPipeline:
    """Turns source documents into stored graph data.

    Args:
        store: where to write.
        extractor: finds candidate entities and relations.
        embedder: embeds chunks (and, through the resolver, new entities).
        settings: chunking, selection and resolution settings.
        progress: receives progress events (``NullProgress`` by default).
    """

    def __init__(
        self,
        store: Store,
        extractor: Extractor,
        embedder: Embedder,
        settings: Settings,
        progress: Progress | None = None,
    ) -> None:
        self.store = store
        self.extractor = extractor
        self.embedder = embedder
        self.settings = settings
        self.progress = progress or NullProgress()
        self.resolver = Resolver(store, embedder, settings.resolution)
        self.contradict: Contradict | None = None  # a model's check besides the rules
        self._planned: set[str] = set()

    async def ingest(
        self, sources: Iterable[SourceDocument], *, scope: str | None = None
    ) -> IngestReport:
        """Ingest documents; unchanged ones are skipped, changed ones replaced.

        A document that fails is reported in ``IngestReport.failed`` and leaves the store as
        it was; the others are still ingested. Errors reading the sources themselves (a
        missing path, invalid UTF-8) propagate before anything of that source is written.
        """
        scope = scope or self.settings.scope
        report = IngestReport()
        self._planned = set()
        await self.load_rules(scope)
        self.progress.start("documents", None)
        async for batch in self._batches(sources, scope, report):
            await self.process_batch(batch, scope, report)
        self.progress.finish("documents")
        return report

    async def load_rules(self, scope: str, pins: Mapping[str, Pins] | None = None) -> None:
        """Resolve with the scope's remembered merge decisions and the rules switched off
        (``pins``: the earlier links of documents processed again, by document id)."""
        decisions = await self.store.list_decisions(scope)
        split = sorted({d.entity_id for d in decisions})
        entities = {e.id: e for e in await self.store.get_entities(split)} if split else {}
        off = self.settings.resolution.merge_rules_off
        self.resolver.rules = MergeRules.of(decisions, off, pins, entities)

    # ------------------------------------------------------------------ batching
    async def _batches(
        self, sources: Iterable[SourceDocument], scope: str, report: IngestReport
    ) -> AsyncIterator[list[Pending]]:
        batch: list[Pending] = []
        chars = 0
        for source in timed_iter(sources, report, "read"):
            report.documents_seen += 1
            pending = await self._plan(source, scope, report)
            if pending is None:
                self.progress.advance("documents")
                continue
            size = len(pending.source.text)
            if batch and chars + size > BATCH_CHARS:
                yield batch
                batch, chars = [], 0
            batch.append(pending)
            chars += size
            if len(batch) >= BATCH_DOCUMENTS:
                yield batch
                batch, chars = [], 0
        if batch:
            yield batch

    async def _plan(
        self, source: SourceDocument, scope: str, report: IngestReport
    ) -> Pending | None:
        if not source.text.strip():
            raise EmptyInputError(f"{source.source}: the document is empty (no text to ingest)")
        code = is_code(source)
        known = code or source.prepared is not None
        source, sections = (source, []) if known else with_sections(set_aside(source))
        digest = content_hash(source.text)
        doc_id = document_id(scope, source.source)
        same = await self.store.find_document(scope, content_hash=digest, source=source.source)
        if same is None and source.former_source is not None:
            # stored by an older loregraph under a name that was not unique: the same text
            # there is this document; different text there may be another's, so it is kept
            same = await self.store.find_document(
                scope, content_hash=digest, source=source.former_source
            )
        if complete(same) and source.keeps_access(same) and still_current(same, source):
            report.skipped += 1
            return None
        # an earlier input of this run with this identity is replaced too (maybe unwritten)
        previous = doc_id in self._planned or await self.store.get_document(doc_id)
        if isinstance(previous, Document):
            source.inherit_access(previous)
        self._planned.add(doc_id)
        extracted = None
        with timer(report, "chunk"):
            if source.prepared is not None:  # chunked, its graph known (a commit)
                chunks, extracted = source.prepared
            elif code:
                size = self.settings.chunk.size if self.settings.chunk.unit == "chars" else None
                chunks, extracted = read_code(source, size or CHUNK_CHARS)
            else:
                chunks = list(chunk_text(source.text, self.settings.chunk, sections))
        return Pending(source, doc_id, digest, bool(previous), chunks, extracted=extracted)

    # ------------------------------------------------------------------ processing
    async def process_batch(self, batch: list[Pending], scope: str, report: IngestReport) -> None:
        """Extract, resolve, embed and write a batch of documents (each in one transaction;
        a failed one goes to ``report.failed``)."""
        started = time.perf_counter()
        for pending in batch:
            pending.source.cluster_rules = self.resolver.rules.cluster_rules()
        self.progress.start("extract", len(batch))
        results = await self._extract(batch)
        self.progress.advance("extract", len(batch))
        self.progress.finish("extract")
        report.add_time("extract", time.perf_counter() - started)

        started = time.perf_counter()
        prepared = [r if isinstance(r, BaseException) else self._prepare(r) for r in results]
        groups = [p.selection.nodes for p in prepared if isinstance(p, _Prepared)]
        planned = await self.resolver.plan_embeddings(scope, groups)
        report.add_time("resolve", time.perf_counter() - started)

        started = time.perf_counter()
        vectors, entity_vectors = await embed_batch(
            self.embedder, self.progress, [[c.text for c in p.chunks] for p in batch], planned
        )
        self.resolver.add_embeddings(planned, entity_vectors)
        report.add_time("embed", time.perf_counter() - started)

        for pending, result, chunk_vectors in zip(batch, prepared, vectors, strict=True):
            try:
                if isinstance(result, BaseException):
                    raise result
                bundle, new_entities = await self._build(
                    pending, result, chunk_vectors, scope, report
                )
                with timer(report, "write"):
                    extraction = self.settings.extraction
                    own_statements(
                        bundle, extraction.functional_relations, extraction.event_relations
                    )
                    known = await self.store.get_relations([r.id for r in bundle.relations])
                    await supersede(self.store, bundle, self.settings.extraction, self.contradict)
                    await self.store.write_document(bundle)
            except (LoregraphError, ValueError, RuntimeError, KeyError, TypeError) as exc:
                report.failed.append(DocumentFailure(pending.source.source, describe_failure(exc)))
            else:
                if pending.replacing:
                    report.replaced += 1
                    report.replaced_documents.append(
                        ReplacedDocument(pending.source.source, pending.source.title)
                    )
                else:
                    report.ingested += 1
                count_bundle(report, bundle, new_entities, len(bundle.relations) - len(known))
                report.characters += len(pending.source.text)
                report.document_ids.append(pending.doc_id)
            self.progress.advance("documents")

    def _prepare(
        self, result: ExtractionResult, apart: frozenset[tuple[str, str]] = frozenset()
    ) -> _Prepared | BaseException:
        """Normalise types, cluster variant names (``apart``: name key pairs not to join)
        and select nodes (pure, per document)."""
        try:
            for cand in result.entities:
                cand.type = normalize_type(cand.type)
            rules = self.resolver.rules.cluster_rules(apart)
            exact = [c for c in result.entities if c.exact]
            named = [c for c in result.entities if not c.exact]
            clustered, records = cluster_candidates(named, rules)
            selection = select_entities(clustered, self.settings.extraction)
            selection.nodes.extend(exact)
            clustered.extend(exact)
        except (LoregraphError, ValueError, RuntimeError, KeyError, TypeError) as exc:
            return exc
        return _Prepared(clustered, records, selection, result.relations)

    async def _extract(self, batch: list[Pending]) -> list[ExtractionResult | BaseException]:
        """Each document's extraction (a source file's was read with its chunks)."""
        items = [(p.source, p.chunks) for p in batch if p.extracted is None]
        found: list[ExtractionResult | BaseException] = []
        many = getattr(self.extractor, "aextract_many", None)
        if many is not None and len(items) > 1:
            # a failure: isolate the failing document, extracting one at a time below
            with contextlib.suppress(LoregraphError, ValueError, RuntimeError):
                found = list(await many(items))
        for source, chunks in items[len(found) :]:
            try:
                found.append(await self.extractor.extract(source, chunks))
            except (LoregraphError, ValueError, RuntimeError) as exc:
                found.append(exc)
        rest = iter(found)
        return [p.extracted if p.extracted is not None else next(rest) for p in batch]

    async def _build(
        self,
        pending: Pending,
        prepared: _Prepared,
        chunk_vectors: np.ndarray,
        scope: str,
        report: IngestReport,
    ) -> tuple[DocumentBundle, int]:
        """The document's bundle, and how many of its entities are new to the store."""
        source, doc_id = pending.source, pending.doc_id
        started = time.perf_counter()
        resolution = await self.resolver.resolve(scope, prepared.selection.nodes, doc_id)
        apart = self.resolver.rules.names_apart(prepared.records, resolution.entities)
        if apart:  # names a person split were joined: extract and cluster again without that
            source.cluster_rules = self.resolver.rules.cluster_rules(apart)
            again = self._prepare(await self.extractor.extract(source, pending.chunks), apart)
            if isinstance(again, BaseException):
                raise again
            prepared = again
            resolution = await self.resolver.resolve(scope, prepared.selection.nodes, doc_id)
        clustered, records, selection = prepared.clustered, prepared.records, prepared.selection
        report.add_time("resolve", time.perf_counter() - started)

        chunk_ids = [chunk_id(doc_id, c.seq) for c in pending.chunks]
        surfaces = surface_index(clustered, records)
        mentions = build_mentions(selection.nodes, resolution.entities, chunk_ids)
        relations, _dropped = build_relations(
            prepared.relations, surfaces, resolution.entities, chunk_ids, scope, source.valid_at
        )
        merges = list(resolution.merges)
        for surface, canonical, rule in records:
            entity = resolution.entities.get(canonical)
            if entity is not None and surface != canonical:
                merges.append(Merge(entity.id, surface, rule, scope=scope, document_id=doc_id))
        writes = [
            EntityWrite(
                entity=as_written(resolution.entities[c.name], c),
                description=c.description,
                salience=c.salience,
            )
            for c in selection.nodes
            if c.name in resolution.entities
        ]
        document = Document(
            id=doc_id,
            title=source.title,
            content_hash=pending.digest,
            scope=scope,
            source=source.source,
            kind=source.kind,
            visibility=source.visibility or Visibility.PUBLIC,
            owner=source.owner,
            valid_at=source.valid_at,
            metadata=dict(source.metadata),
            status=DocStatus.DONE,
            char_count=len(source.text),
            created_at=pending.created_at or utcnow(),
        )
        if source.external_id is not None:
            document.metadata.setdefault("id", source.external_id)
        document.metadata[EXTRACTED_BY] = identity(self.extractor)
        document.metadata[BLANKS] = blank_runs(source.text, pending.chunks)
        chunks = [
            Chunk(
                id=cid,
                document_id=doc_id,
                seq=c.seq,
                start=c.start,
                end=c.end,
                text=c.text,
                token_count=c.token_count,
                embedding=chunk_vectors[i] if i < len(chunk_vectors) else None,
            )
            for i, (cid, c) in enumerate(zip(chunk_ids, pending.chunks, strict=True))
        ]
        bundle = DocumentBundle(document, chunks, writes, mentions, relations, merges)
        return bundle, len(resolution.new_ids)

"""Record what loregraph's offline extractor finds in a corpus (main venv only).

The documents are cut with loregraph's own chunker and settings and extracted in batches
with :class:`~loregraph.ingest.extract.offline.OfflineExtractor`, exactly as an ingest
would. Each document's result is saved twice: in full (``raw``, for the loregraph replay)
and as names, types, descriptions, surface forms and relations with their evidence
sentences (for the peers' fake LLM). The file is cached by the corpus hash and a hash of
the extractor's code.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR, log, source_hash
from bench.peers.corpus import (
    Corpus,
    RecordedDoc,
    RecordedEntity,
    RecordedRelation,
    extraction_meta,
    save_extractions,
    slim_path,
)

BATCH_DOCS = 64
BATCH_CHARS = 400_000
FORMAT = 2
"""Version of the recorded-extraction file format (part of the cache key)."""
EXTRACTOR_CODE = ("ingest/extract", "ingest/chunk/chunker.py", "text", "settings")


def extraction_path(corpus: Corpus, chunking: str = "") -> Path:
    """Where the recorded extraction of ``corpus`` (cut by ``chunking``) is cached."""
    key = f"{corpus.digest()}-{source_hash(parts=EXTRACTOR_CODE)}" + (
        f"-{chunking}" if chunking else ""
    )
    return TMP_DIR / "peers" / f"extractions.v{FORMAT}.{corpus.name}.{key}.json"


def chunk_settings(chunking: str) -> Any:
    """loregraph's chunk settings for a chunking spec: ``""`` (the defaults) or
    ``"tokens:SIZE:OVERLAP"`` (the peers' own chunking, e.g. ``tokens:1200:100``)."""
    from loregraph.settings import ChunkSettings

    if not chunking:
        return ChunkSettings()
    unit, size, overlap = chunking.split(":")
    return ChunkSettings(size=int(size), overlap=int(overlap), unit=unit)  # type: ignore[arg-type]


def record_extractions(
    corpus: Corpus, *, fresh: bool = False, chunking: str = ""
) -> tuple[Path, dict[str, Any]]:
    """Record (or reuse) the extraction of ``corpus`` cut by ``chunking`` (see
    :func:`chunk_settings`); returns the file and its meta."""
    path = extraction_path(corpus, chunking)
    if path.exists() and slim_path(path).exists() and not fresh:
        log(f"peers: reusing recorded extractions {path.name}")
        return path, extraction_meta(path)
    from loregraph.ingest.chunk.chunker import chunk_text
    from loregraph.ingest.extract.offline import OfflineExtractor
    from loregraph.ingest.types import SourceDocument
    from loregraph.settings import Settings

    settings = Settings(chunk=chunk_settings(chunking))
    extractor = OfflineExtractor(settings.extraction)
    started = time.perf_counter()
    recorded: list[RecordedDoc] = []
    batch: list[tuple[Any, list[Any]]] = []
    chars = 0

    def flush() -> None:
        results = extractor.extract_many(batch)
        for (source, _), result in zip(batch, results, strict=True):
            kept = kept_names(result, settings)
            recorded.append(to_recorded(source.source, result, kept))
        log(f"peers: extracted {len(recorded)}/{len(corpus.docs)} documents of {corpus.name}")

    for doc in corpus.docs:
        source = SourceDocument(title=doc.title, text=doc.text, source=doc.id)
        batch.append((source, list(chunk_text(doc.text, settings.chunk))))
        chars += len(doc.text)
        if len(batch) >= BATCH_DOCS or chars >= BATCH_CHARS:
            flush()
            batch, chars = [], 0
    if batch:
        flush()
    meta = {
        "corpus": corpus.name,
        "corpus_hash": corpus.digest(),
        "extractor": extractor.name,
        "extractor_code_hash": source_hash(parts=EXTRACTOR_CODE),
        "documents": len(recorded),
        "entities": sum(len(d.entities) for d in recorded),
        "relations": sum(len(d.relations) for d in recorded),
        "entities_kept_by_loregraph_selection": sum(e.kept for d in recorded for e in d.entities),
        "extract_seconds": round(time.perf_counter() - started, 2),
    }
    save_extractions(recorded, meta, path)
    log(f"peers: recorded {meta['entities']} entities, {meta['relations']} relations")
    return path, meta


def kept_names(result: Any, settings: Any) -> set[str]:
    """The candidate names loregraph's pipeline keeps as nodes: type normalisation, variant
    clustering and node selection run on a copy, exactly as in ``IngestPipeline``."""
    from loregraph.ingest.extract.select import select_entities
    from loregraph.ingest.resolve.entities import cluster_candidates
    from loregraph.text.entity_types import normalize_type

    candidates = copy.deepcopy(result.entities)
    for cand in candidates:
        cand.type = normalize_type(cand.type)
    clustered, records = cluster_candidates(candidates)
    nodes = {c.name for c in select_entities(clustered, settings.extraction).nodes}
    canonical = {surface: canon for surface, canon, _rule in records}
    return {e.name for e in result.entities if canonical.get(e.name, e.name) in nodes}


def to_recorded(doc_id: str, result: Any, kept: set[str] | None = None) -> RecordedDoc:
    """One document's :class:`~loregraph.ingest.types.ExtractionResult` as a record."""
    entities = [
        RecordedEntity(
            name=e.name,
            type=e.type,
            description=e.description,
            surfaces=sorted({o.surface for o in e.occurrences} - {e.name}),
            salience=e.salience,
            mentions=e.mentions,
            kept=kept is None or e.name in kept,
        )
        for e in result.entities
    ]
    relations = [
        RecordedRelation(
            source=r.source,
            target=r.target,
            type=r.type,
            description=r.fact,
            weight=float(max(1, len(r.evidence))),
            sentences=sorted({ev.sentence for ev in r.evidence if ev.sentence}),
        )
        for r in result.relations
    ]
    return RecordedDoc(doc_id, entities, relations, raw=dataclasses.asdict(result))

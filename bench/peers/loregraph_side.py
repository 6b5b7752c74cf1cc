"""loregraph's side of the peers benchmark (main venv): replayed extraction, timed ingest and
context-only query latency.

:class:`ReplayExtractor` implements loregraph's ``Extractor`` protocol and returns, for each
document, the result the offline extractor recorded for it (rebuilt before the clock starts),
so the ingest measures the framework alone: chunking, type normalisation, clustering,
selection, resolution, relation building, embedding (the shared cheap embedder) and the
SQLite writes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.common import current_rss_mb, latency_summary, log, peak_rss_mb, reset_peak_rss
from bench.peers.corpus import Corpus, load_extractions
from bench.peers.embedding import BenchEmbedder

QUERY_PRESETS = ("local", "hybrid")
"""loregraph's entity-centred preset and its default (everything fused)."""


def rebuild_result(raw: dict[str, Any]) -> Any:
    """An :class:`~loregraph.ingest.types.ExtractionResult` from its ``dataclasses.asdict``."""
    from loregraph.ingest.types import (
        CandidateEntity,
        CandidateRelation,
        ExtractionResult,
        Occurrence,
        RelationEvidence,
    )

    entities = [
        CandidateEntity(**{**e, "occurrences": [Occurrence(**o) for o in e["occurrences"]]})
        for e in raw.get("entities", [])
    ]
    relations = [
        CandidateRelation(**{**r, "evidence": [RelationEvidence(**v) for v in r["evidence"]]})
        for r in raw.get("relations", [])
    ]
    return ExtractionResult(entities, relations, dict(raw.get("stats", {})))


class ReplayExtractor:
    """Returns the recorded extraction of each document instantly (by document source).

    Each result is handed out once (the pipeline normalises entity types in place); a
    document it has no record of gets an empty result.
    """

    name = "replay"

    def __init__(self, results: dict[str, Any]) -> None:
        self._results = results
        self.misses = 0

    async def extract(self, document: Any, chunks: list[Any]) -> Any:
        """The recorded result of ``document`` (by its ``source``)."""
        from loregraph.ingest.types import ExtractionResult

        result = self._results.pop(document.source, None)
        if result is None:
            self.misses += 1
            return ExtractionResult()
        return result


async def run_loregraph(
    corpus: Corpus, extractions: Path, workdir: Path, chunking: str = ""
) -> dict[str, Any]:
    """Ingest ``corpus`` with the replayed extractions into a fresh store, then time
    ``AsyncGraph.context`` over the corpus's questions with each preset of
    :data:`QUERY_PRESETS`."""
    from loregraph.graph import AsyncGraph, open_store
    from loregraph.ingest.types import SourceDocument

    recorded = load_extractions(extractions)
    results = {d.id: rebuild_result(d.raw) for d in recorded}
    del recorded
    sources = [SourceDocument(title=d.title, text=d.text, source=d.id) for d in corpus.docs]
    db = workdir / "loregraph.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    extractor = ReplayExtractor(results)
    from bench.peers.record import chunk_settings
    from loregraph.settings import Settings

    settings = Settings(chunk=chunk_settings(chunking))
    graph = AsyncGraph(
        open_store(db), settings=settings, embedder=BenchEmbedder(), extractor=extractor
    )
    # The peers build their tokenizer when they are constructed, before their clock starts;
    # loregraph loads its tokenizer lazily, so load it here, also before the clock.
    from loregraph.text.tokens import get_encoding

    get_encoding()
    loading_peak = peak_rss_mb()
    reset_peak_rss()
    rss_before = current_rss_mb()
    started = time.perf_counter()
    await graph.open()
    report = await graph.ingest_documents(sources)
    ingest_seconds = time.perf_counter() - started
    ingest_peak = peak_rss_mb()
    stats = await graph.stats()
    log(f"peers: loregraph ingested {corpus.name} in {ingest_seconds:.1f}s: {report.summary()}")

    queries: dict[str, Any] = {}
    for name in QUERY_PRESETS:
        warm = time.perf_counter()
        await graph.context(corpus.questions[0], preset=name)
        warmup = time.perf_counter() - warm
        latencies: list[float] = []
        empty = 0
        for question in corpus.questions:
            t = time.perf_counter()
            context = await graph.context(question, preset=name)
            latencies.append(time.perf_counter() - t)
            empty += not context.strip()
        queries[name] = {
            "mode": f"AsyncGraph.context(preset={name!r}, format='markdown')",
            "warmup_seconds": round(warmup, 3),
            "empty_contexts": empty,
            **latency_summary(latencies),
        }
    await graph.close()
    return {
        "status": "ok",
        "ingest_seconds": round(ingest_seconds, 3),
        "ingest_seconds_by_stage": {k: round(v, 3) for k, v in report.seconds.items()},
        "documents": report.ingested + report.replaced,
        "failed_documents": len(report.failed),
        "chunks": report.chunks,
        "entities": getattr(stats, "entities", None),
        "relations": getattr(stats, "relations", None),
        "replay_misses": extractor.misses,
        "query": queries,
        "peak_rss_mb_loading": loading_peak,
        "rss_before_mb": rss_before,
        "peak_rss_mb": ingest_peak,
        "peak_rss_mb_with_queries": peak_rss_mb(),
    }

"""Speed and memory: ingest of the whole of *Dracula* and context-assembly latency.

The ingest runs through the public API (``Graph.ingest``) into a fresh store; the figures
are wall time, the pipeline's own per-stage seconds (``IngestReport.seconds``), chunks per
second and the process's peak resident memory during the ingest. Query latency is the time
of ``Graph.context(question)`` (retrieval + formatting with the default preset) after one
warm-up call, so the one-off model load is excluded.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.common import (
    DRACULA_FILE,
    TMP_DIR,
    RunOptions,
    current_rss_mb,
    disk_usage_mb,
    latency_summary,
    log,
    peak_rss_mb,
    reset_peak_rss,
)

DEMO_QUESTIONS = (
    "How does Dracula travel from Transylvania to England?",
    "Which men proposed to Lucy Westenra?",
    "What is Renfield's connection to Dracula?",
)
DEMO_REPEATS = {"quick": 5, "full": 20}
QUICK_DRACULA_CHARS = 150_000
"""Quick mode ingests the book's first 150,000 characters (chapters 1-5, about 18%)."""
WIKI_QUESTIONS = 200


def dracula_file(options: RunOptions) -> Path:
    """The whole book, or in quick mode its first :data:`QUICK_DRACULA_CHARS` characters
    (cut at a paragraph break) written to ``bench/results/tmp/``."""
    if not options.quick:
        return DRACULA_FILE
    text = DRACULA_FILE.read_text(encoding="utf-8")
    cut = text.rfind("\n\n", 0, QUICK_DRACULA_CHARS)
    path = TMP_DIR / "dracula-quick.txt"
    path.write_text(text[: cut if cut > 0 else QUICK_DRACULA_CHARS], encoding="utf-8")
    return path


def ingest_dracula(db: Path, source: Path = DRACULA_FILE) -> dict[str, Any]:
    """Ingest the book into a fresh store at ``db``; returns the ingest figures."""
    import loregraph

    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    reset_peak_rss()
    rss_before = current_rss_mb()
    started = time.perf_counter()
    with loregraph.open(db) as graph:
        report = graph.ingest(str(source))
        stats = graph.stats()
    total = time.perf_counter() - started
    figures = {
        "seconds_total": round(total, 2),
        "seconds_by_stage": {k: round(v, 2) for k, v in report.seconds.items()},
        "chunks": report.chunks,
        "characters": report.characters,
        "chunks_per_second": round(report.chunks / total, 2) if total else None,
        "kb_per_second": round(report.characters / 1024 / total, 2) if total else None,
        "entities": getattr(stats, "entities", None),
        "relations": getattr(stats, "relations", None),
        "typed_relations": report.typed_relations,
        "mentions": getattr(stats, "mentions", None),
        "failed": len(report.failed),
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss_mb(),
        "disk_mb": disk_usage_mb(db),
    }
    log(f"speed: Dracula ingested in {total:.1f}s: {report.summary()}")
    return figures


def context_latency(db: Path, questions: list[str], repeats: int) -> dict[str, Any]:
    """p50/p95 of ``Graph.context`` over ``questions`` asked ``repeats`` times each."""
    import loregraph

    with loregraph.open(db) as graph:
        started = time.perf_counter()
        graph.context(questions[0])  # warm-up: loads the embedding model and caches
        warmup = time.perf_counter() - started
        latencies: list[float] = []
        for _ in range(repeats):
            for question in questions:
                started = time.perf_counter()
                graph.context(question)
                latencies.append(time.perf_counter() - started)
    return {"warmup_seconds": round(warmup, 3), **latency_summary(latencies)}


def run(options: RunOptions) -> dict[str, Any]:
    """Run the speed benchmark; returns figures and configuration."""
    from bench.retrieval import load_questions, twowiki_store

    TMP_DIR.mkdir(parents=True, exist_ok=True)
    db = TMP_DIR / "speed-dracula.db"
    source = dracula_file(options)
    log(f"speed: ingesting {source.name} into a fresh store")
    ingest = ingest_dracula(db, source)
    repeats = DEMO_REPEATS[options.mode]
    log(f"speed: context latency, demo questions x{repeats}")
    demo = context_latency(db, list(DEMO_QUESTIONS), repeats)
    store = twowiki_store(options, reuse_latest=True)
    wiki_questions = [q["question"] for q in load_questions(WIKI_QUESTIONS)]
    log(f"speed: context latency, {len(wiki_questions)} 2Wiki questions")
    try:
        wiki = context_latency(store.path, wiki_questions, 1)
    except Exception as exc:  # keep the Dracula figures when the 2Wiki store fails
        log(f"speed: 2Wiki latency failed: {type(exc).__name__}: {exc}")
        wiki = {"error": f"{type(exc).__name__}: {exc}"}
    wiki["store_key"] = store.key
    wiki["store_stale_key"] = bool(store.ingest.get("stale_key"))
    return {
        "figures": {
            "dracula_ingest": ingest,
            "context_latency_dracula_demo": demo,
            "context_latency_2wiki": wiki,
        },
        "config": {
            "data": (
                f"{DRACULA_FILE.name} (855,208 bytes)"
                if not options.quick
                else f"first {source.stat().st_size:,} bytes of {DRACULA_FILE.name} (quick)"
            )
            + "; the retrieval benchmark's 2Wiki store for the 2Wiki questions",
            "ingest": "Graph.ingest into a fresh SQLite store, default Settings",
            "latency": "Graph.context(question), default preset and markdown format, "
            "after one warm-up call",
            "demo_questions": list(DEMO_QUESTIONS),
            "demo_repeats": repeats,
            "wiki_questions": f"first {len(wiki_questions)} gold_complete questions",
            "peak_rss": "VmHWM of the benchmark process, reset before the ingest "
            "(includes the interpreter and the loaded models)",
        },
    }

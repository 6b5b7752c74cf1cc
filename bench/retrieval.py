"""Retrieval quality on 2WikiMultihopQA: passage recall@2/@5 of every preset and two baselines.

The corpus (6,119 passages) is ingested through the public API (``Graph.ingest`` on the JSON
record file) into a store under ``bench/results/tmp/``, cached between runs by corpus hash,
engine version and settings. Each ``gold_complete`` question is asked through
``Graph.retrieve(question, preset=name)``; the ranked ``documents`` titles are compared with
the question's gold titles. BM25 and dense baselines rank the same corpus in the same run.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.baselines import BaselineRun, bm25_baseline, dense_baseline
from bench.common import (
    INGEST_CODE,
    TMP_DIR,
    TWOWIKI_DIR,
    RunOptions,
    file_sha256,
    git_commit,
    latency_summary,
    log,
    source_hash,
)
from bench.metrics import recall_table
from bench.splits import HALVES, halves, held_out, twowiki_split

KS = (2, 5)
QUICK_QUESTIONS = 200
QUICK_PASSAGES = 700
"""Quick mode ranks a 700-passage corpus: the evidence passages of its questions plus the
first other passages in file order (distractors), so that a cold run stays short."""
CORPUS = TWOWIKI_DIR / "corpus.json"
QUESTIONS = TWOWIKI_DIR / "questions.json"
STORE_NAME = "2wiki"


def load_corpus(path: Path = CORPUS) -> list[tuple[str, str]]:
    """The corpus as (title, text) pairs, in file order."""
    records = json.loads(path.read_text(encoding="utf-8"))
    return [(r["title"], r["text"]) for r in records]


def quick_corpus(questions: list[dict[str, Any]], size: int = QUICK_PASSAGES) -> Path:
    """A corpus file of the questions' gold passages topped up with others, in file order.

    Written once under ``bench/results/tmp/`` (named by content hash) and ingested like the
    full corpus. The selection depends only on the question list, never on a system's output.
    """
    records = json.loads(CORPUS.read_text(encoding="utf-8"))
    gold = {t for q in questions for t in q["gold_titles"]}
    keep = [r for r in records if r["title"] in gold]
    for record in records:
        if len(keep) >= size:
            break
        if record["title"] not in gold:
            keep.append(record)
    order = {id(r): i for i, r in enumerate(records)}
    keep.sort(key=lambda r: order[id(r)])
    data = json.dumps(keep, ensure_ascii=False).encode("utf-8")
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    path = TMP_DIR / f"corpus-2wikiquick-{hashlib.sha256(data).hexdigest()[:12]}.json"
    if not path.exists():
        path.write_bytes(data)
    return path


def load_questions(limit: int | None = None) -> list[dict[str, Any]]:
    """The ``gold_complete`` questions in file order, the first ``limit`` of them if given."""
    records = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    scored = [q for q in records if q.get("gold_complete")]
    return scored[:limit] if limit is not None else scored


# --------------------------------------------------------------------------- cached store
@dataclass(slots=True)
class CachedStore:
    """An ingested benchmark store and how it came to be."""

    path: Path
    key: str
    cached: bool
    ingest: dict[str, Any]


def store_key(corpus: Path, settings: Any, embedder_name: str) -> str:
    """The cache key of an ingested store: corpus bytes, the engine's ingest code, settings.

    The engine version is the hash of the code that decides what an ingest writes
    (:data:`bench.common.INGEST_CODE`, as it is on disk, committed or not) rather than the
    git commit, so that a commit touching only retrieval does not force a re-ingest while
    any uncommitted change to ingestion does.
    """
    parts = [
        file_sha256(corpus),
        source_hash(parts=INGEST_CODE),
        repr(settings.chunk),
        repr(settings.extraction),
        repr(settings.resolution),
        settings.scope,
        embedder_name,
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def corpus_for(options: RunOptions) -> tuple[Path, str]:
    """The corpus file and store name of a run: the quick subset or the whole corpus."""
    if options.quick:
        return quick_corpus(load_questions(QUICK_QUESTIONS)), f"{STORE_NAME}quick"
    return CORPUS, STORE_NAME


def twowiki_store(options: RunOptions, *, reuse_latest: bool = False) -> CachedStore:
    """The 2Wiki corpus ingested into a store, reused when the cache key matches.

    With ``reuse_latest`` the newest complete store is reused even if the engine's ingest
    code changed since (flagged ``stale_key``): a later section of one run uses the store
    the retrieval section built, even when a file was edited in between.
    """
    corpus, name = corpus_for(options)
    return ingested_store(corpus, name, options, reuse_latest=reuse_latest)


def ingested_store(
    corpus: Path, name: str, options: RunOptions, *, reuse_latest: bool = False
) -> CachedStore:
    """``corpus`` (a JSON record file) ingested through ``Graph.ingest`` into
    ``bench/results/tmp/<name>-<key>.db``; an earlier store with the same key is reused, and
    stores of the same name with another key (older engine code) are deleted."""
    import loregraph
    from loregraph.settings import Settings

    settings = Settings()
    key = store_key(corpus, settings, "all-MiniLM-L6-v2")
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    db = TMP_DIR / f"{name}-{key}.db"
    marker = TMP_DIR / f"{name}-{key}.json"
    if reuse_latest and not options.fresh and not marker.exists():
        latest = _latest_store(name)
        if latest is not None:
            log(f"{name}: reusing the latest store {latest.path.name} (ingest code changed since)")
            return latest
    if options.fresh or not marker.exists():
        _remove_stores(f"{name}-", keep=None if options.fresh else db)
    if marker.exists() and db.exists():
        log(f"{name}: reusing ingested store {db.name}")
        return CachedStore(db, key, True, json.loads(marker.read_text()))
    resumed = db.exists()
    log(f"{name}: ingesting {corpus.name} into {db.name} (resuming: {resumed})")
    started = time.perf_counter()
    with loregraph.open(db, settings=settings) as graph:
        report = graph.ingest(str(corpus))
        stats = graph.stats()
    total = time.perf_counter() - started
    info = {
        "built_with": git_commit() | {"ingest_code_hash": source_hash(parts=INGEST_CODE)},
        "seconds_total": round(total, 2),
        "resumed": resumed,
        "documents": report.ingested + report.replaced + report.skipped,
        "failed": len(report.failed),
        "chunks": report.chunks,
        "entities_written": report.entities_written,
        "relations": report.relations,
        "typed_relations": report.typed_relations,
        "seconds_by_stage": {k: round(v, 2) for k, v in report.seconds.items()},
        "store_entities": getattr(stats, "entities", None),
        "store_relations": getattr(stats, "relations", None),
        "store_chunks": getattr(stats, "chunks", None),
    }
    if report.failed:
        log(f"{name}: {len(report.failed)} documents failed, first: {report.failed[0]}")
    marker.write_text(json.dumps(info, indent=2))
    log(f"{name}: ingested in {total:.1f}s: {report.summary()}")
    return CachedStore(db, key, False, info)


def _latest_store(name: str) -> CachedStore | None:
    """The most recently completed store of ``name`` whatever its key, if any."""
    markers = sorted(TMP_DIR.glob(f"{name}-*.json"), key=lambda p: p.stat().st_mtime)
    for marker in reversed(markers):
        db = marker.with_suffix(".db")
        if db.exists():
            key = marker.stem.removeprefix(f"{name}-")
            info = json.loads(marker.read_text()) | {"stale_key": True}
            return CachedStore(db, key, True, info)
    return None


def _remove_stores(prefix: str, keep: Path | None) -> None:
    """Delete cached stores of ``prefix`` other than ``keep`` (old engine versions)."""
    if not TMP_DIR.exists():
        return
    for path in TMP_DIR.glob(f"{prefix}*"):
        if keep is not None and path.name.startswith(keep.name):
            continue
        path.unlink(missing_ok=True)


# --------------------------------------------------------------------------- engine
@dataclass(slots=True)
class EngineRun:
    """What one preset produced over the questions."""

    preset: str
    rankings: list[list[str]]
    latencies: list[float]
    stage_ms: dict[str, float]
    errors: int
    first_error: str | None
    relevant: list[bool] = field(default_factory=list)


def run_preset(graph: Any, preset: str, questions: list[dict[str, Any]]) -> EngineRun:
    """Ask every question with one preset; collect ranked document titles and timings."""
    rankings: list[list[str]] = []
    latencies: list[float] = []
    relevant: list[bool] = []
    stage_total: dict[str, float] = {}
    errors = 0
    first_error: str | None = None
    for q in questions:
        started = time.perf_counter()
        try:
            result = graph.retrieve(q["question"], preset=preset)
        except Exception as exc:  # a failing preset is reported, not fatal to the run
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"
            rankings.append([])
            relevant.append(False)
            continue
        latencies.append(time.perf_counter() - started)
        rankings.append([d.title for d in result.documents])
        relevant.append(result.relevant)
        for stage, info in result.debug.items():
            if isinstance(info, dict) and not info.get("skipped") and "ms" in info:
                stage_total[stage] = stage_total.get(stage, 0.0) + float(info["ms"])
    done = max(len(latencies), 1)
    stage_ms = {k: round(v / done, 3) for k, v in stage_total.items()}
    return EngineRun(preset, rankings, latencies, stage_ms, errors, first_error, relevant)


def run(options: RunOptions) -> dict[str, Any]:
    """Run the retrieval benchmark; returns figures and configuration."""
    import loregraph
    from loregraph.embed.minilm import MiniLMEmbedder
    from loregraph.settings import PRESETS

    questions = load_questions(QUICK_QUESTIONS if options.quick else None)
    corpus_path, _ = corpus_for(options)
    corpus = load_corpus(corpus_path)
    golds = [q["gold_titles"] for q in questions]
    types = [q["type"] for q in questions]
    split = halves(questions)
    texts = [q["question"] for q in questions]
    k_max = max(KS)
    systems: dict[str, dict[str, Any]] = {}
    dumps: dict[str, list[list[str]]] = {}

    log(f"retrieval: {len(questions)} questions, {len(corpus)} passages")
    bm25 = bm25_baseline(corpus, texts, k_max)
    _add_baseline(systems, dumps, "BM25 (bm25s)", bm25, golds, types, split)

    store = twowiki_store(options)
    with loregraph.open(store.path) as graph:
        embedder = graph.aio.embedder
        cache = TMP_DIR / f"dense-{file_sha256(corpus_path)[:16]}-{embedder.name}.npy"
        dense = dense_baseline(corpus, texts, embedder, k_max, cache)
        _add_baseline(systems, dumps, f"dense ({embedder.name})", dense, golds, types, split)
        if texts:  # warm-up: model and caches load outside the timings
            try:
                graph.retrieve(texts[0])
            except Exception as exc:  # the presets below report their own errors
                log(f"retrieval: warm-up query failed: {type(exc).__name__}: {exc}")
        for name in PRESETS:
            log(f"retrieval: preset {name}")
            result = run_preset(graph, name, questions)
            systems[f"loregraph {name}"] = {
                "kind": "engine",
                "recall": recall_table(result.rankings, golds, types, KS),
                "halves": recall_table(result.rankings, golds, split, KS),
                "empty": sum(1 for ranking in result.rankings if not ranking),
                "not_relevant": {
                    half: sum(
                        1
                        for r, h in zip(result.relevant, split, strict=True)
                        if h == half and not r
                    )
                    for half in HALVES
                },
                "latency": latency_summary(result.latencies),
                "stage_ms_mean": result.stage_ms,
                "errors": result.errors,
                "first_error": result.first_error,
            }
            dumps[f"loregraph {name}"] = result.rankings
            overall = systems[f"loregraph {name}"]["recall"]["all"]
            log(
                f"retrieval: {name}: R@2 {overall['R@2']} R@5 {overall['R@5']}, "
                f"{result.errors} errors {result.first_error or ''}"
            )
    _dump_rankings(options, questions, dumps)
    return {
        "figures": {"systems": systems, "store": store.ingest | {"cached": store.cached}},
        "config": {
            "data": "2wikimultihopqa corpus.json + questions.json (gold_complete only)",
            "questions": len(questions),
            "subset": f"first {QUICK_QUESTIONS} gold_complete questions in file order, "
            f"ranked over {len(corpus)} passages (their gold passages plus the first other "
            "passages in file order); not comparable with full-corpus figures"
            if options.quick
            else "all gold_complete questions over the whole corpus",
            "corpus_passages": len(corpus),
            "k": list(KS),
            "metric": "passage recall@k = |top-k titles ∩ gold| / |gold|, mean over questions",
            "presets": {name: repr(PRESETS[name]) for name in PRESETS},
            "embedder": MiniLMEmbedder.name,
            "store_key": store.key,
            "baselines": {"bm25": bm25.config, "dense": dense.config},
        },
    }


def _add_baseline(
    systems: dict[str, dict[str, Any]],
    dumps: dict[str, list[list[str]]],
    label: str,
    run_: BaselineRun,
    golds: list[list[str]],
    types: list[str],
    split: list[str],
) -> None:
    systems[label] = {
        "kind": "baseline",
        "recall": recall_table(run_.rankings, golds, types, KS),
        "halves": recall_table(run_.rankings, golds, split, KS),
        "empty": sum(1 for ranking in run_.rankings if not ranking),
        "latency": run_.timing(),
    }
    dumps[label] = run_.rankings
    overall = systems[label]["recall"]["all"]
    log(f"retrieval: {label}: R@2 {overall['R@2']} R@5 {overall['R@5']}")


def _dump_rankings(
    options: RunOptions, questions: list[dict[str, Any]], dumps: dict[str, list[list[str]]]
) -> None:
    """Per-question top-5 of every system, for error analysis (not committed)."""
    path = TMP_DIR / f"retrieval-{options.mode}-rankings.jsonl"
    split = twowiki_split()
    with path.open("w", encoding="utf-8") as out:
        for i, q in enumerate(questions):
            if held_out(q, split):  # the held-out half is only ever scored in aggregate
                continue
            row = {
                "id": q["id"],
                "type": q["type"],
                "question": q["question"],
                "gold": q["gold_titles"],
                "top5": {name: ranks[i][:5] for name, ranks in dumps.items()},
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")

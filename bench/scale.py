"""Scale: how store costs grow from 10k to 1M entities on synthetic data.

Each size runs in its own process (so its peak memory is its own) and writes a synthetic
graph (``bench.synth``: entities, one ~300-character chunk per entity, five power-law
relations per entity, random 384-d unit vectors) through ``Store.write_document`` in bundles
of 5,000 entities, then times the store's query primitives: 2-hop expansion, fuzzy
(trigram) entity lookup of a typo'd existing name, and vector top-10 over entities and
chunks. The first vector query after reopening the store is reported apart (it loads the
vectors into memory) and excluded from the percentiles.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import (
    TMP_DIR,
    RunOptions,
    disk_usage_mb,
    latency_summary,
    log,
    peak_rss_mb,
    reset_peak_rss,
)

QUICK_SIZES = (10_000, 30_000)
FULL_SIZES = (10_000, 100_000, 1_000_000)
BUNDLE_ENTITIES = 5_000
QUERIES = {"quick": 100, "full": 200}
SCOPE = "synthetic"


async def _load(store: Any, entities: int) -> dict[str, Any]:
    from bench.synth import Synthesizer

    synth = Synthesizer(SCOPE)
    write_seconds = 0.0
    generate_seconds = 0.0
    batch_seconds: list[float] = []
    bundles = synth.bundles(entities, BUNDLE_ENTITIES)
    relations = chunks = 0
    while True:
        started = time.perf_counter()
        bundle = next(bundles, None)
        generate_seconds += time.perf_counter() - started
        if bundle is None:
            break
        relations += len(bundle.relations)
        chunks += len(bundle.chunks)
        started = time.perf_counter()
        await store.write_document(bundle)
        took = time.perf_counter() - started
        write_seconds += took
        batch_seconds.append(took)
        if len(batch_seconds) % 20 == 0:
            log(f"scale {entities}: {len(synth.state.entity_ids)} entities written")
    edge = max(1, len(batch_seconds) // 10)
    return {
        "synth": synth,
        "figures": {
            "entities": len(synth.state.entity_ids),
            "relations": relations,
            "chunks": chunks,
            "bundles": len(batch_seconds),
            "generate_seconds": round(generate_seconds, 2),
            "write_seconds": round(write_seconds, 2),
            "entities_per_second": round(len(synth.state.entity_ids) / write_seconds, 1),
            "bundle_seconds_first_10pct": round(float(np.mean(batch_seconds[:edge])), 3),
            "bundle_seconds_last_10pct": round(float(np.mean(batch_seconds[-edge:])), 3),
            "peak_rss_after_load_mb": peak_rss_mb(),
        },
    }


async def _timed(calls: list[Any]) -> tuple[list[float], list[Any]]:
    latencies: list[float] = []
    results: list[Any] = []
    for make in calls:
        started = time.perf_counter()
        results.append(await make())
        latencies.append(time.perf_counter() - started)
    return latencies, results


async def _paths(
    store: Any, ids: list[str], rng: np.random.Generator, n: int
) -> tuple[list[float], list[Any]]:
    """Shortest paths (at most 4 hops, 5 paths) between ``n`` random pairs of entities."""
    from loregraph.engine.paths import shortest_paths

    pairs = [(int(a), int(b)) for a, b in rng.integers(len(ids), size=(n, 2)) if a != b]
    ends = await store.get_entities(list({ids[i] for pair in pairs for i in pair}))
    by_id = {e.id: e for e in ends}
    return await _timed(
        [
            lambda a=a, b=b: shortest_paths(store, SCOPE, by_id[ids[a]], by_id[ids[b]], max_hops=4)
            for a, b in pairs
        ]
    )


async def _queries(store: Any, synth: Any, n: int) -> dict[str, Any]:
    from bench.synth import typo

    rng = np.random.default_rng(11)
    ids = synth.state.entity_ids
    picks = [int(i) for i in rng.integers(len(ids), size=n)]
    out: dict[str, Any] = {}

    # vectors: the first query loads the index (reported apart), the rest are timed
    probe = synth.unit_vectors(1)[0]
    started = time.perf_counter()
    await store.search_entities_vector(SCOPE, probe, 10)
    out["entity_vector_first_query_seconds"] = round(time.perf_counter() - started, 3)
    started = time.perf_counter()
    await store.search_chunks_vector(SCOPE, probe, 10)
    out["chunk_vector_first_query_seconds"] = round(time.perf_counter() - started, 3)
    queries = synth.unit_vectors(n)
    lat, _ = await _timed([lambda q=q: store.search_entities_vector(SCOPE, q, 10) for q in queries])
    out["entity_vector_top10"] = latency_summary(lat)
    lat, _ = await _timed([lambda q=q: store.search_chunks_vector(SCOPE, q, 10) for q in queries])
    out["chunk_vector_top10"] = latency_summary(lat)

    lat, subgraphs = await _timed(
        [lambda i=i: store.expand(SCOPE, [ids[i]], depth=2) for i in picks]
    )
    out["expand_2hop"] = latency_summary(lat) | {
        "mean_entities": round(float(np.mean([len(s.entities) for s in subgraphs])), 1),
        "mean_relations": round(float(np.mean([len(s.relations) for s in subgraphs])), 1),
    }

    lat, found_paths = await _paths(store, ids, rng, n)
    out["path_4hop"] = latency_summary(lat) | {
        "found_rate": round(sum(1 for p in found_paths if p) / max(len(found_paths), 1), 3),
        "mean_length": round(float(np.mean([p[0].length for p in found_paths if p] or [0])), 2),
    }

    typos = [typo(synth.state.names[i], rng) for i in picks]
    lat, hits = await _timed([lambda t=t: store.search_entities_fuzzy(SCOPE, t, 10) for t in typos])
    found = sum(1 for i, h in zip(picks, hits, strict=True) if ids[i] in {s.id for s in h})
    out["fuzzy_lookup"] = latency_summary(lat) | {"hit_rate_top10": round(found / n, 3)}
    return out


async def measure(size: int, db: Path, queries: int) -> dict[str, Any]:
    """Build the synthetic graph of ``size`` entities at ``db`` and time the store on it."""
    from loregraph.store.sqlite import SqliteStore

    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    reset_peak_rss()
    rss_start = peak_rss_mb()
    store = SqliteStore(str(db))
    await store.open()
    started = time.perf_counter()
    loaded = await _load(store, size)
    load_total = time.perf_counter() - started
    await store.close()
    disk = disk_usage_mb(db)
    store = SqliteStore(str(db))  # reopen: query figures include loading what queries need
    await store.open()
    try:
        query_figures = await _queries(store, loaded["synth"], queries)
    finally:
        await store.close()
    return {
        "size": size,
        "load": loaded["figures"] | {"load_seconds_total": round(load_total, 2)},
        "queries": query_figures,
        "disk_mb": disk,
        "disk_mb_after_queries": disk_usage_mb(db),
        "peak_rss_mb": peak_rss_mb(),
        "rss_at_start_mb": rss_start,
        "queries_per_kind": queries,
    }


def run(options: RunOptions, sizes: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Run every size in its own process; returns figures and configuration."""
    chosen = sizes or (QUICK_SIZES if options.quick else FULL_SIZES)
    queries = QUERIES[options.mode]
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    for size in chosen:
        out = TMP_DIR / f"scale-{size}.json"
        out.unlink(missing_ok=True)
        log(f"scale: {size} entities (subprocess)")
        started = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.scale",
                "--size",
                str(size),
                "--queries",
                str(queries),
                "--out",
                str(out),
            ],
            check=False,
        )
        wall = round(time.perf_counter() - started, 1)
        if proc.returncode != 0 or not out.exists():
            results[str(size)] = {
                "size": size,
                "error": f"exit code {proc.returncode}",
                "wall_seconds": wall,
            }
            continue
        results[str(size)] = json.loads(out.read_text()) | {"wall_seconds": wall}
        (TMP_DIR / f"scale-{size}.db").unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            (TMP_DIR / f"scale-{size}.db{suffix}").unlink(missing_ok=True)
    return {
        "figures": {"sizes": results},
        "config": {
            "data": "synthetic (bench/synth.py, seed 7): relations = 5 x entities, "
            "chunks = entities (~300 characters), 384-d random unit vectors",
            "sizes": list(chosen),
            "bundle_entities": BUNDLE_ENTITIES,
            "queries_per_kind": queries,
            "expand": "store.expand(depth=2, per_node=20, max_entities=200) from a random seed",
            "fuzzy": "store.search_entities_fuzzy(typo'd existing name, limit 10)",
            "path": "engine.paths.shortest_paths(max_hops=4, limit=5) between random pairs",
            "vector": "store.search_entities_vector / search_chunks_vector, top 10, "
            "random unit query",
            "store": "SqliteStore (default)",
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Child-process entry: measure one size and write its JSON."""
    parser = argparse.ArgumentParser(description="Measure one synthetic store size.")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    db = args.out.with_suffix(".db")
    figures = asyncio.run(measure(args.size, db, args.queries))
    args.out.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Retrieval with the k-hop expansion in memory vs in FalkorDB (mirror mode), same corpus.

The 2Wiki store of the retrieval section (quick: 700 passages; full: the whole corpus) is
opened twice in one process: as SQLite alone, where retrieval walks the in-memory graph
index, and as SQLite mirrored into FalkorDB (``--mirror falkordb://…``), where the store
declares ``native_graph`` and the expansion is one Cypher statement. After copying the graph
into FalkorDB (``MirroredStore.resync``, timed) and one warm-up round, every question is
retrieved with each k-hop preset on both stores, interleaved. Reported per preset: p50 and
p95 of the whole retrieval and of its ``expand`` stage on each side, the FalkorDB / memory
ratio of the p50s, and how many questions got identical results both ways (entities with
scores and hops, relations, passages, documents).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from bench.common import RunOptions, latency_summary, log

QUESTIONS = {"quick": 200, "full": None}
"""The 2Wiki questions asked (quick: those of the quick store; full: all 876)."""


def _summary(result: Any) -> tuple[object, ...]:
    """What must be equal whichever side expanded (scores rounded past float noise)."""
    return (
        [(e.entity.id, round(e.score, 9), e.hop) for e in result.entities],
        [(r.relation.id, round(r.score, 9)) for r in result.relations],
        [(p.chunk_id, round(p.score, 9)) for p in result.passages],
        [d.document_id for d in result.documents],
    )


def _side(seconds: list[float], expand_ms: list[float]) -> dict[str, Any]:
    return {
        "retrieve": latency_summary(seconds),
        "expand": latency_summary([ms / 1000 for ms in expand_ms]),
    }


async def measure(falkor_url: str, options: RunOptions) -> dict[str, Any]:
    """Both sides on the 2Wiki store; ``falkor_url`` names an empty FalkorDB graph."""
    from bench.retrieval import load_questions, twowiki_store
    from loregraph.embed.minilm import MiniLMEmbedder
    from loregraph.graph import AsyncGraph
    from loregraph.settings import PRESETS
    from loregraph.store.mirror import MirroredStore
    from loregraph.store.urls import store_for_url

    cached = twowiki_store(options, reuse_latest=True)
    questions = [q["question"] for q in load_questions(QUESTIONS[options.mode])]
    embedder = MiniLMEmbedder()
    memory = AsyncGraph(store_for_url(cached.path), embedder=embedder)
    mirror = store_for_url(cached.path, mirror=falkor_url)
    assert isinstance(mirror, MirroredStore)
    database = AsyncGraph(mirror, embedder=embedder)
    await memory.open()
    await database.open()
    started = time.perf_counter()
    await mirror.resync("default")
    out: dict[str, Any] = {
        "store": cached.path.name,
        "questions": len(questions),
        "resync_seconds": round(time.perf_counter() - started, 1),
        "stats": dataclasses.asdict(await mirror.stats("default")),
        "presets": {},
    }
    try:
        for side, engine in (("memory", memory), ("falkordb", database)):
            graph = (await engine.retrieve(questions[0])).debug["graph"]  # builds the index
            out[f"index_build_ms_{side}"] = graph["ms"] if graph.get("rebuilt") else None
        presets = [name for name, p in PRESETS.items() if p.expansion == "bfs"]
        for name in presets:
            log(f"backends: expansion in memory vs FalkorDB, preset {name}")
            out["presets"][name] = await _compare(memory, database, name, questions)
    finally:
        await memory.close()
        await database.close()
    return out


async def _compare(memory: Any, database: Any, preset: str, questions: list[str]) -> dict[str, Any]:
    """One preset over every question, the two sides interleaved, after a warm-up round."""
    for question in questions[:5]:
        await memory.retrieve(question, preset=preset)
        await database.retrieve(question, preset=preset)
    seconds: dict[str, list[float]] = {"memory": [], "falkordb": []}
    expand_ms: dict[str, list[float]] = {"memory": [], "falkordb": []}
    same = 0
    where: set[str] = set()
    for question in questions:
        results = {}
        for side, engine in (("memory", memory), ("falkordb", database)):
            started = time.perf_counter()
            result = await engine.retrieve(question, preset=preset)
            seconds[side].append(time.perf_counter() - started)
            info = result.debug["expand"]
            if not info.get("skipped"):
                expand_ms[side].append(float(info["ms"]))
                where.add(f"{side}: {info['expanded_in']}")
            results[side] = result
        same += _summary(results["memory"]) == _summary(results["falkordb"])
    sides = {side: _side(seconds[side], expand_ms[side]) for side in seconds}
    ratio = {
        part: round(sides["falkordb"][part]["p50_ms"] / sides["memory"][part]["p50_ms"], 2)
        for part in ("retrieve", "expand")
        if sides["memory"][part].get("p50_ms")
    }
    return sides | {"ratio_p50": ratio, "same_results": same, "expanded_in": sorted(where)}


def render(figures: dict[str, Any]) -> list[str]:
    """Markdown lines: one row per preset, memory and FalkorDB side by side."""
    lines = [
        "",
        f"K-hop expansion in memory vs in FalkorDB (mirror mode) on the 2Wiki store "
        f"`{figures['store']}` ({figures['stats']['entities']:,} entities, "
        f"{figures['stats']['relations']:,} relations; graph copied into FalkorDB in "
        f"{figures['resync_seconds']} s), {figures['questions']} questions per preset; the "
        f"in-memory graph index, which both sides build (the FalkorDB side for passages by "
        f"mention and entity pages), took {figures['index_build_ms_memory']} / "
        f"{figures['index_build_ms_falkordb']} ms to build:",
        "",
        "| preset | retrieve p50 / p95 ms, memory | retrieve p50 / p95 ms, FalkorDB | "
        "ratio | expand p50 / p95 ms, memory | expand p50 / p95 ms, FalkorDB | ratio | "
        "same results |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in figures["presets"].items():
        cells = []
        for part in ("retrieve", "expand"):
            for side in ("memory", "falkordb"):
                f = row[side][part]
                cells.append(f"{f['p50_ms']:.1f} / {f['p95_ms']:.1f}" if f.get("n") else "–")
            cells.append(f"{row['ratio_p50'].get(part, '–')}×")
        lines.append(
            f"| {name} | {' | '.join(cells)} | {row['same_results']}/{figures['questions']} |"
        )
    return lines

"""The graph database stopped mid-run: latency and recall of questions before and after.

``python -m bench.outage [--full]``. The 2Wiki store of the retrieval section (quick: 700
passages, 200 questions) is mirrored into a FalkorDB server started here
(``MirroredStore.resync``), so that the k-hop expansion runs in FalkorDB. After a warm-up
round every question is asked (``AsyncGraph.retrieve``, hybrid preset, the default time
limits, circuit breaker and caches), then the FalkorDB server is killed (SIGKILL) and every
question is asked again. Reported per phase: p50/p95/max latency of the whole retrieval,
how many went over the 2,000 ms limit, errors raised, questions answered with passages,
questions answered without the graph because the breaker was open, stages cut short,
recall of the gold documents (R@2, R@5), and the breaker's state at the end.

The neighbourhood cache is off in this run (a question's expansion would otherwise be kept
from the first phase and answer it without the graph database in the second).

Results go to ``bench/results/outage.<mode>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from collections import Counter
from typing import Any

from bench.backends import _test_helper
from bench.common import RESULTS_DIR, TMP_DIR, RunOptions, latency_summary, log
from bench.metrics import recall_table

QUESTIONS = {"quick": 200, "full": None}
PRESET = "hybrid"


async def _phase(graph: Any, questions: list[dict[str, Any]], cap_ms: float) -> dict[str, Any]:
    """Every question once: latencies, outcomes and ranked titles."""
    seconds: list[float] = []
    rankings: list[list[str]] = []
    errors: list[str] = []
    answered = fallback = 0
    cut: Counter[str] = Counter()
    for q in questions:
        started = time.perf_counter()
        try:
            result = await graph.retrieve(q["question"], preset=PRESET)
        except Exception as exc:  # reported: the point is that there are none
            errors.append(f"{type(exc).__name__}: {exc}")
            rankings.append([])
            continue
        seconds.append(time.perf_counter() - started)
        rankings.append([d.title for d in result.documents])
        answered += bool(result.passages)
        fallback += result.trace.stage("graph layer") is not None
        cut.update(result.trace.timeouts.keys())
    recall = recall_table(
        rankings, [q["gold_titles"] for q in questions], ["all"] * len(questions)
    )["all"]
    return {
        "latency": latency_summary(seconds),
        "over_limit": sum(s * 1000 > cap_ms for s in seconds),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "answered": answered,
        "without_graph": fallback,
        "timed_out": dict(cut),
        "recall": {k: v for k, v in recall.items() if k != "n"},
    }


async def measure(options: RunOptions) -> dict[str, Any]:
    """Both phases on the 2Wiki store mirrored into a FalkorDB server of this run."""
    from bench.retrieval import load_questions, twowiki_store
    from loregraph.embed.minilm import MiniLMEmbedder
    from loregraph.graph import AsyncGraph
    from loregraph.settings import ResilienceSettings, Settings
    from loregraph.store.mirror import MirroredStore
    from loregraph.store.urls import store_for_url

    cached = twowiki_store(options, reuse_latest=True)
    questions = load_questions(QUESTIONS[options.mode])
    helper = _test_helper("falkor_server")
    server = helper.start_server(TMP_DIR / "outage")
    resilience = ResilienceSettings(neighbourhood_entries=0)
    try:
        mirror = store_for_url(cached.path, mirror=server.url("outage"))
        assert isinstance(mirror, MirroredStore)
        settings = Settings(resilience=resilience)
        graph = AsyncGraph(mirror, settings=settings, embedder=MiniLMEmbedder())
        await graph.open()
        started = time.perf_counter()
        await mirror.resync("default")
        out: dict[str, Any] = {
            "store": cached.path.name,
            "questions": len(questions),
            "preset": PRESET,
            "limits_ms": {
                "analysis": resilience.analysis_ms,
                "embedding": resilience.embedding_ms,
                "traversal": resilience.traversal_ms,
                "pipeline": resilience.pipeline_ms,
            },
            "resync_seconds": round(time.perf_counter() - started, 1),
        }
        for q in questions[:5]:
            await graph.retrieve(q["question"], preset=PRESET)  # warm-up
        log("outage: graph database up")
        out["up"] = await _phase(graph, questions, resilience.pipeline_ms)
        server.process.kill()
        server.process.wait(10)
        log("outage: graph database killed")
        out["down"] = await _phase(graph, questions, resilience.pipeline_ms)
        out["circuit_at_end"] = graph.graph_status().circuit
        with contextlib.suppress(Exception):  # closing the dead mirror's client may fail
            await graph.close()
    finally:
        server.stop()
    return out


def main() -> None:
    """Run the measurement and save it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="all 876 questions")
    options = RunOptions(quick=not parser.parse_args().full)
    figures = asyncio.run(measure(options))
    path = RESULTS_DIR / f"outage.{options.mode}.json"
    path.write_text(json.dumps(figures, indent=2) + "\n")
    for phase in ("up", "down"):
        row = figures[phase]
        lat = row["latency"]
        log(
            f"outage: {phase}: p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms, "
            f"max {lat['max_ms']:.1f} ms, over limit {row['over_limit']}, errors "
            f"{row['errors']}, answered {row['answered']}/{figures['questions']}, without "
            f"graph {row['without_graph']}, R@2 {row['recall']['R@2']} R@5 "
            f"{row['recall']['R@5']}, timed out {row['timed_out']}"
        )
    log(f"outage: circuit at the end: {figures['circuit_at_end']} -> {path}")


if __name__ == "__main__":
    main()

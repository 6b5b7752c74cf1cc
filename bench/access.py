"""What access filtering costs: question latency and recall as the store's operator, as a
principal who reads every document, and as principals who read 70% and 10% of them. ``python
-m bench.access [--full]``. The 2Wiki store of the retrieval section (quick: 700 passages,
200 questions) is copied; a principal with a role in another scope reads the copied scope
through a selective scope link listing every document but each tenth, eighth and ninth, by
position (70%), or only each tenth (10%). Every question is asked (``AsyncGraph.retrieve``,
hybrid preset) as each reader, after one untimed question that builds what it sees. Reported
per reader: the first question's time (it builds the reader's view of the scope), p50/p95 of
the rest, the ratio of p50 to the operator's, recall of the gold documents (R@2, R@5) over
every question and over those whose gold documents are all readable, and passages shown from
a document the reader may not read (must be 0). Results:
``bench/results/access.<mode>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import time
from typing import Any

from bench.common import RESULTS_DIR, TMP_DIR, RunOptions, latency_summary, log
from bench.metrics import recall_table

QUESTIONS = {"quick": 200, "full": None}
PRESET = "hybrid"


async def _reader(
    graph: Any,
    questions: list[dict[str, Any]],
    readable: set[str] | None,
) -> dict[str, Any]:
    """Every question asked as one reader (``graph``: the engine acting for it):
    latencies, recall and passages it may not read."""
    seconds: list[float] = []
    rankings: list[list[str]] = []
    unreadable = 0
    started = time.perf_counter()
    await graph.retrieve(questions[0]["question"], preset=PRESET)
    first = time.perf_counter() - started
    for q in questions:
        started = time.perf_counter()
        result = await graph.retrieve(q["question"], preset=PRESET)
        seconds.append(time.perf_counter() - started)
        rankings.append([d.title for d in result.documents])
        if readable is not None:
            unreadable += sum(p.document_id not in readable for p in result.passages)
    gold = [q["gold_titles"] for q in questions]
    every = recall_table(rankings, gold, ["all"] * len(questions))["all"]
    return {
        "first_ms": round(first * 1000, 1),
        "latency": latency_summary(seconds),
        "recall": {k: v for k, v in every.items() if k != "n"},
        "rankings": rankings,
        "unreadable_passages": unreadable,
    }


async def measure(options: RunOptions, cached: Any) -> dict[str, Any]:
    """The readers on a copy of the 2Wiki store ``cached``."""
    from bench.retrieval import load_questions
    from loregraph.access import Principal, Role, ScopeLink
    from loregraph.embed.minilm import MiniLMEmbedder
    from loregraph.graph import AsyncGraph
    from loregraph.store.sqlite import SqliteStore

    questions = load_questions(QUESTIONS[options.mode])
    copy = TMP_DIR / f"access-{cached.path.name}"
    shutil.copyfile(cached.path, copy)
    graph = AsyncGraph(SqliteStore(copy), embedder=MiniLMEmbedder())
    try:
        await graph.open()
        documents = await graph.store.list_documents("default")
        shares = {"reads 70%": (7, "readers"), "reads 10%": (1, "few")}
        readers: dict[str, tuple[Any, set[str] | None, set[str] | None]] = {
            "operator": (graph, None, None),
            "reads everything": (
                graph.acting_as(Principal("w", {"default": Role.WRITER})),
                None,
                None,
            ),
        }
        for name, (tenths, scope) in shares.items():
            shared = [d for n, d in enumerate(documents) if n % 10 < tenths]
            await graph.store.add_scope_link(
                ScopeLink(scope, "default", "selective", tuple(d.id for d in shared))
            )
            engine = graph.acting_as(Principal(scope, {scope: Role.READER}))
            readers[name] = (engine, {d.id for d in shared}, {d.title for d in shared})
        await graph.retrieve("warm up the models", preset=PRESET)
        out: dict[str, Any] = {
            "store": cached.path.name,
            "questions": len(questions),
            "documents": len(documents),
            "preset": PRESET,
        }
        for name, (engine, ids, _) in readers.items():
            log(f"access: {name}")
            out[name] = await _reader(engine, questions, ids)
        for name, (_, _, titles) in readers.items():
            row = out[name]
            fair = [
                i
                for i, q in enumerate(questions)
                if titles is None or set(q["gold_titles"]) <= titles
            ]
            ranked = [row["rankings"][i] for i in fair]
            gold = [questions[i]["gold_titles"] for i in fair]
            recall = recall_table(ranked, gold, ["all"] * len(fair))["all"]
            row["recall_readable_gold"] = {k: v for k, v in recall.items() if k != "n"}
            row["questions_readable_gold"] = len(fair)
            row["p50_ratio"] = round(
                row["latency"]["p50_ms"] / out["operator"]["latency"]["p50_ms"], 2
            )
            del row["rankings"]
        return out
    finally:
        await graph.close()
        copy.unlink(missing_ok=True)


def main() -> None:
    """Run the measurement and save it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="all 876 questions")
    options = RunOptions(quick=not parser.parse_args().full)
    from bench.retrieval import twowiki_store

    figures = asyncio.run(measure(options, twowiki_store(options, reuse_latest=True)))
    path = RESULTS_DIR / f"access.{options.mode}.json"
    path.write_text(json.dumps(figures, indent=2) + "\n")
    for name in ("operator", "reads everything", "reads 70%", "reads 10%"):
        row = figures[name]
        lat = row["latency"]
        log(
            f"access: {name}: first {row['first_ms']} ms, p50 {lat['p50_ms']:.1f} ms "
            f"({row['p50_ratio']}x), p95 {lat['p95_ms']:.1f} ms, R@2/R@5 "
            f"{row['recall']['R@2']}/{row['recall']['R@5']} (readable gold: "
            f"{row['recall_readable_gold']['R@2']}/{row['recall_readable_gold']['R@5']}), "
            f"unreadable passages {row['unreadable_passages']}"
        )
    log(f"access: -> {path}")


if __name__ == "__main__":
    main()

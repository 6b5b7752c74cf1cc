"""One system's run: ``python -m bench.peers.peer_main --system lightrag ...``.

The peers run in the peers venv, loregraph in the main venv (with the full recorded
extractions instead of the slim ones). Started by :mod:`bench.peers.run` as a subprocess
(``.venv-peers/bin/python`` for a peer) with the
project root on ``PYTHONPATH`` and a fresh working directory as its current directory (so
that no ``.env`` file of the project is read). The process is kept offline
(:mod:`bench.peers.offline`), loads the corpus and the slim recorded extractions, inserts
the corpus, asks the questions context-only, counts what the peer stored from its own files
and writes a JSON result; it writes the result after the insert too, so that a run stopped
during the queries still reports its ingest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import current_rss_mb, latency_summary, peak_rss_mb, reset_peak_rss
from bench.peers.corpus import load_corpus, load_extractions
from bench.peers.offline import forbid_network, prepare_tiktoken_cache
from bench.peers.render import ChunkIndex

SYSTEMS = ("loregraph", "lightrag", "nano-graphrag")


def _write(path: Path, result: dict[str, Any]) -> None:
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(result, indent=1), encoding="utf-8")
    tmp.replace(path)


def count_stored(workdir: Path) -> dict[str, Any]:
    """Chunks, entities and relations a peer stored, read from its own files."""
    import networkx as nx

    out: dict[str, Any] = {}
    chunks = sorted(workdir.rglob("kv_store_text_chunks.json"))
    if chunks:
        out["chunks"] = len(json.loads(chunks[0].read_text(encoding="utf-8")))
    graphs = sorted(workdir.rglob("*.graphml"))
    if graphs:
        graph = nx.read_graphml(graphs[0])
        out["entities"] = graph.number_of_nodes()
        out["relations"] = graph.number_of_edges()
    status = sorted(workdir.rglob("kv_store_doc_status.json"))
    if status:
        counts: dict[str, int] = {}
        for record in json.loads(status[0].read_text(encoding="utf-8")).values():
            key = str(record.get("status", "unknown")) if isinstance(record, dict) else "?"
            counts[key] = counts.get(key, 0) + 1
        out["doc_status"] = counts
    docs = sorted(workdir.rglob("kv_store_full_docs.json"))
    if docs:
        out["documents"] = len(json.loads(docs[0].read_text(encoding="utf-8")))
    return out


async def run(
    system: str,
    corpus_path: Path,
    extractions: Path,
    workdir: Path,
    out: Path,
    *,
    kept_only: bool = False,
    chunking: str = "",
) -> None:
    """Insert, query, count; write the result to ``out``."""
    if system == "loregraph":
        from bench.peers.loregraph_side import run_loregraph

        corpus = load_corpus(corpus_path)
        figures = await run_loregraph(corpus, extractions, workdir, chunking)
        _write(out, {"system": system, **figures})
        return
    if system == "lightrag":
        from bench.peers import lightrag_side as side
    else:
        from bench.peers import nano_side as side  # type: ignore[no-redef]
    corpus = load_corpus(corpus_path)
    index = ChunkIndex(corpus, load_extractions(extractions, with_raw=False), kept_only=kept_only)
    store = workdir / "store"
    store.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"system": system, "kept_only": kept_only, "status": "ingesting"}
    result["peak_rss_mb_loading"] = peak_rss_mb()
    reset_peak_rss()
    result["rss_before_mb"] = current_rss_mb()
    rag, figures = await side.ingest(corpus, index, store)
    result.update(figures)
    result["peak_rss_mb"] = peak_rss_mb()
    result["status"] = "querying"
    _write(out, result)
    started = time.perf_counter()
    modes = await side.query(rag, corpus.questions)
    result["query"] = {
        mode: {
            "mode": f"{mode}, only_need_context=True",
            "empty_contexts": data["empty_contexts"],
            **latency_summary(data["latencies"]),
        }
        for mode, data in modes.items()
    }
    result["query_seconds_total"] = round(time.perf_counter() - started, 3)
    await side.close(rag)
    result.update(count_stored(store))
    result["peak_rss_mb_with_queries"] = peak_rss_mb()
    result["status"] = "ok"
    _write(out, result)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry of one peer run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--system", choices=SYSTEMS, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--extractions", type=Path, required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--kept-only",
        action="store_true",
        help="send only the entities loregraph's selection keeps (peers only)",
    )
    parser.add_argument(
        "--chunking", default="", help="loregraph only: tokens:SIZE:OVERLAP (default: its own)"
    )
    args = parser.parse_args(argv)
    forbid_network()
    if args.system != "loregraph":
        prepare_tiktoken_cache(args.workdir / "tiktoken")
    asyncio.run(
        run(
            args.system,
            args.corpus,
            args.extractions,
            args.workdir,
            args.out,
            kept_only=args.kept_only,
            chunking=args.chunking,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

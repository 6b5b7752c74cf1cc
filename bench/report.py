"""Results files and the tables of BENCHMARKS.md.

Each section's run is saved as ``bench/results/<section>.<mode>.json`` (figures, config,
commit, machine, command, timestamp). :func:`regenerate` renders one markdown table block
per section from the newest result and replaces the text between
``<!-- BENCH:<section>:start -->`` and ``<!-- BENCH:<section>:end -->`` in BENCHMARKS.md.
Run ``python -m bench.report`` to regenerate the tables without measuring anything.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench.common import BENCHMARKS_MD, RESULTS_DIR, fmt_cell

SECTIONS = (
    "retrieval",
    "abstain",
    "longdoc",
    "memory",
    "fact_changes",
    "extraction",
    "speed",
    "scale",
    "peers",
    "backends",
    "load",
    "realmodel",
    "harness",
    "personas",
    "code",
)


# --------------------------------------------------------------------------- files
def save_result(
    section: str, mode: str, payload: Mapping[str, Any], directory: Path | None = None
) -> Path:
    """Write one section's result as ``<section>.<mode>.json``; returns the path."""
    folder = directory or RESULTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{section}.{mode}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_results(directory: Path | None = None) -> dict[str, dict[str, Any]]:
    """The result to show for each section: its full run, else its quick run.

    For ``scale`` the sizes are merged: each size comes from the newest run that measured it,
    so a quick run (10k, 100k) does not hide an earlier full run's 1M figures.
    """
    folder = directory or RESULTS_DIR
    chosen: dict[str, dict[str, Any]] = {}
    for section in SECTIONS:
        runs = []
        for path in sorted(folder.glob(f"{section}.*.json")):
            try:
                runs.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, json.JSONDecodeError):
                continue
        if not runs:
            continue
        runs.sort(key=lambda r: (r.get("mode") == "full", str(r.get("timestamp", ""))))
        newest = dict(runs[-1])
        if section == "scale":
            newest = _merge_scale(runs)
        if section == "peers":
            newest = _merge_peers(runs)
        chosen[section] = newest
    return chosen


def _merge_peers(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The shown peers run, with corpora it did not measure taken from the other runs
    (each such corpus is labelled with the run it comes from)."""
    merged = dict(runs[-1])
    figures = dict(merged.get("figures", {}))
    corpora = dict(figures.get("corpora", {}))
    for run in reversed(runs[:-1]):
        for name, section in run.get("figures", {}).get("corpora", {}).items():
            if name not in corpora:
                corpora[name] = dict(section) | {
                    "data": f"{section.get('data', '')} ({_stamp(run)})"
                }
    merged["figures"] = figures | {"corpora": corpora}
    return merged


def _merge_scale(runs: list[dict[str, Any]]) -> dict[str, Any]:
    merged = dict(runs[-1])
    sizes: dict[str, Any] = {}
    for run in runs:  # oldest first: newer runs overwrite
        for key, value in run.get("figures", {}).get("sizes", {}).items():
            if "error" in value and key in sizes:
                continue
            sizes[key] = value | {"_run": _stamp(run)}
    merged["figures"] = dict(merged.get("figures", {})) | {
        "sizes": dict(sorted(sizes.items(), key=lambda kv: int(kv[0])))
    }
    return merged


# --------------------------------------------------------------------------- helpers
def _stamp(result: Mapping[str, Any]) -> str:
    commit = (result.get("commit") or {}).get("commit") or "unknown"
    dirty = "+local changes" if (result.get("commit") or {}).get("dirty") else ""
    when = result.get("timestamp", "?")
    return f"{result.get('mode', '?')} run, commit {str(commit)[:10]}{dirty}, {when}"


def _machine(result: Mapping[str, Any]) -> str:
    m = result.get("machine") or {}
    return (
        f"{m.get('cores', '?')} cores, {m.get('ram_gb', '?')} GB RAM, Python {m.get('python', '?')}"
    )


_fmt = fmt_cell


def table(header: list[str], rows: list[list[Any]]) -> str:
    """A markdown table (values formatted with :func:`_fmt`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines)


def _preamble(result: Mapping[str, Any]) -> str:
    return (
        f"_{_stamp(result)}; {_machine(result)}; command: `{result.get('command', '?')}`; "
        f"section wall time {_fmt(result.get('wall_seconds'))} s._"
    )


# --------------------------------------------------------------------------- renderers
def render_retrieval(result: Mapping[str, Any]) -> str:
    """Recall table (overall and per question type) of every system."""
    figures, config = result["figures"], result.get("config", {})
    systems: dict[str, Any] = figures["systems"]
    rows = []
    for name, s in systems.items():
        overall = s["recall"]["all"]
        lat = s.get("latency", {})
        note = f"{s['errors']} errors" if s.get("errors") else ""
        rows.append(
            [name, overall["R@2"], overall["R@5"], lat.get("p50_ms"), lat.get("p95_ms"), note]
        )
    types = sorted({t for s in systems.values() for t in s["recall"] if t != "all"})
    by_type = [
        [name]
        + [
            f"{s['recall'][t]['R@2']:.1f} / {s['recall'][t]['R@5']:.1f}"
            if t in s["recall"]
            else "–"
            for t in types
        ]
        for name, s in systems.items()
    ]
    counts = next(iter(systems.values()))["recall"] if systems else {}
    store = figures.get("store", {})
    split_rows = [
        [
            name,
            *(
                f"{s['halves'][h]['R@2']:.1f} / {s['halves'][h]['R@5']:.1f}"
                if h in s.get("halves", {})
                else "–"
                for h in ("study", "held_out")
            ),
            s.get("empty", "–"),
            " / ".join(str(v) for v in s["not_relevant"].values()) if "not_relevant" in s else "–",
        ]
        for name, s in systems.items()
    ]
    halves: dict[str, Any] = next((s["halves"] for s in systems.values() if s.get("halves")), {})
    parts = [
        _preamble(result),
        "",
        f"{config.get('questions', '?')} questions ({config.get('subset', '')}), "
        f"{config.get('corpus_passages', '?')} passages, k = 2 and 5.",
        "",
        table(["system", "R@2", "R@5", "p50 ms", "p95 ms", "note"], rows),
        "",
        "Recall by question type (R@2 / R@5):",
        "",
        table(["system"] + [f"{t} (n={counts.get(t, {}).get('n', '?')})" for t in types], by_type),
        "",
        "Generalisation: the frozen split of the questions (`bench/data/splits/2wiki.json`, a "
        "seeded shuffle fixed before any tuning); the held-out half is only scored in "
        "aggregate. R@2 / R@5 per half; questions with an empty ranking; questions the "
        "engine judged not relevant (study / held out):",
        "",
        table(
            [
                "system",
                f"study (n={halves.get('study', {}).get('n', '?')})",
                f"held out (n={halves.get('held_out', {}).get('n', '?')})",
                "empty",
                "not relevant",
            ],
            split_rows,
        ),
        "",
        f"Store: {_fmt(store.get('store_entities'))} entities, "
        f"{_fmt(store.get('store_relations'))} relations, {_fmt(store.get('store_chunks'))} "
        f"chunks; ingest {_fmt(store.get('seconds_total'))} s"
        + (" (cached from an earlier run)" if store.get("cached") else "")
        + ".",
    ]
    return "\n".join(parts)


def render_extraction(result: Mapping[str, Any]) -> str:
    """Entity and relation-pair P/R/F1 rows, gold-type recall and timing."""
    figures = result["figures"]
    rows = []
    ent = figures["entities"]
    rows.append(
        [
            "entities",
            ent["precision"],
            ent["recall"],
            ent["f1"],
            ent["pred_total"],
            ent["gold_total"],
        ]
    )
    labels = {
        "typed": "relation pairs, typed",
        "co-occurrence": "relation pairs, co-occurrence",
        "about": "relation pairs, ABOUT (title links)",
        "all": "relation pairs, all kinds",
    }
    for group, label in labels.items():
        p = figures["relation_pairs"].get(group)
        if p:
            rows.append(
                [label, p["precision"], p["recall"], p["f1"], p["pred_total"], p["gold_total"]]
            )
    by_type = figures.get("entity_recall_by_gold_type", {})
    timing = figures.get("timing", {})
    return "\n".join(
        [
            _preamble(result),
            "",
            f"{figures.get('counts', {}).get('documents', '?')} documents; "
            "micro-averaged percentages.",
            "",
            table(["figure", "P", "R", "F1", "predicted", "gold"], rows),
            "",
            "Gold-entity recall by gold type: "
            + ", ".join(f"{t} {v['recall']:.1f} (n={v['gold']})" for t, v in by_type.items())
            + ".",
            "",
            f"Extraction {_fmt(timing.get('extract_seconds'))} s "
            f"({_fmt(timing.get('docs_per_second'))} documents/s), "
            f"model load {_fmt(timing.get('extractor_load_seconds'))} s.",
            *_agent_memory(figures.get("agent_memory")),
        ]
    )


def _agent_memory(figures: Mapping[str, Any] | None) -> list[str]:
    """The agent-memory entity rows: name and typed P/R/F1, dev and held out side by side,
    overall, per style and per gold type (the held-out half only in aggregate)."""
    if not figures:
        return []
    dev, held = figures.get("dev", {}), figures.get("held_out", {})
    keys = ["all", *sorted(k for k in {**dev, **held} if k != "all")]
    rows = []
    for key in keys:
        row: list[Any] = [key.replace("type:", "").replace("style:", "style ")]
        for half in (dev, held):
            got = half.get(key, {})
            names, typed = got.get("names", {}), got.get("typed", {})
            row += [
                names.get("f1") if key == "all" or key.startswith("style") else names.get("recall"),
                typed.get("precision"),
                typed.get("recall"),
                typed.get("f1"),
            ]
        rows.append(row)
    counts = figures.get("counts", {})
    return [
        "",
        f"Agent memories (`bench/data/memory/agent_entities.json`: {counts.get('dev', '?')} dev, "
        f"{counts.get('held_out', '?')} held-out memories, each remembered into a fresh scope; "
        "engine types mapped to the set's vocabulary as `bench/agent_entities.py` writes "
        "down). Name F1 for the whole and per style, name recall per gold type; typed "
        "precision per extracted type, typed recall per gold type. Target: typed F1 ≥ 80. "
        "Before the software rules (main at 7c6c32c, the same bench): name F1 55.8 dev / "
        "55.0 held out, typed F1 28.7 / 23.2.",
        "",
        table(
            [
                *("row", "dev name", "dev typed P", "dev typed R", "dev typed F1"),
                *("held-out name", "held-out typed P", "held-out typed R", "held-out typed F1"),
            ],
            rows,
        ),
    ]


def render_speed(result: Mapping[str, Any]) -> str:
    """Dracula ingest figures and context-latency percentiles."""
    figures = result["figures"]
    ingest = figures["dracula_ingest"]
    stages = ", ".join(f"{k} {v:.1f}" for k, v in ingest.get("seconds_by_stage", {}).items())
    rows = [
        ["ingest wall time (s)", ingest.get("seconds_total")],
        ["seconds per stage", stages or "–"],
        ["chunks", ingest.get("chunks")],
        ["chunks / s", ingest.get("chunks_per_second")],
        ["KB / s", ingest.get("kb_per_second")],
        [
            "entities / relations",
            f"{_fmt(ingest.get('entities'))} / {_fmt(ingest.get('relations'))}",
        ],
        ["peak RSS (MB)", ingest.get("peak_rss_mb")],
        ["store on disk (MB)", ingest.get("disk_mb")],
    ]
    lat_rows = []
    for key, label in (
        ("context_latency_dracula_demo", "Dracula, 3 demo questions repeated"),
        ("context_latency_2wiki", "2Wiki store, 2Wiki questions"),
    ):
        lat = figures.get(key, {})
        if lat.get("store_stale_key"):
            label += " (store built by older ingest code)"
        if lat.get("error"):
            label += f" (failed: {lat['error']})"
        lat_rows.append(
            [label, lat.get("n"), lat.get("p50_ms"), lat.get("p95_ms"), lat.get("warmup_seconds")]
        )
    return "\n".join(
        [
            _preamble(result),
            "",
            table(["Dracula ingest", "value"], rows),
            "",
            table(["g.context latency", "n", "p50 ms", "p95 ms", "warm-up s"], lat_rows),
        ]
    )


_SCALE_ROWS: list[tuple[str, Callable[[Mapping[str, Any]], Any], str]] = [
    ("load rate (entities/s)", lambda s: s["load"]["entities_per_second"], "rate"),
    ("write time (s)", lambda s: s["load"]["write_seconds"], "total"),
    ("bundle write s, first 10 %", lambda s: s["load"]["bundle_seconds_first_10pct"], "per-op"),
    ("bundle write s, last 10 %", lambda s: s["load"]["bundle_seconds_last_10pct"], "per-op"),
    ("2-hop expand p50 (ms)", lambda s: s["queries"]["expand_2hop"]["p50_ms"], "per-op"),
    ("2-hop expand p95 (ms)", lambda s: s["queries"]["expand_2hop"]["p95_ms"], "per-op"),
    ("path ≤4 hops p50 (ms)", lambda s: s["queries"]["path_4hop"]["p50_ms"], "per-op"),
    ("path ≤4 hops p95 (ms)", lambda s: s["queries"]["path_4hop"]["p95_ms"], "per-op"),
    ("fuzzy lookup p50 (ms)", lambda s: s["queries"]["fuzzy_lookup"]["p50_ms"], "per-op"),
    ("fuzzy lookup p95 (ms)", lambda s: s["queries"]["fuzzy_lookup"]["p95_ms"], "per-op"),
    ("fuzzy hit rate (top 10)", lambda s: s["queries"]["fuzzy_lookup"]["hit_rate_top10"], "none"),
    (
        "entity vector top-10 p50 (ms)",
        lambda s: s["queries"]["entity_vector_top10"]["p50_ms"],
        "per-op",
    ),
    (
        "entity vector top-10 p95 (ms)",
        lambda s: s["queries"]["entity_vector_top10"]["p95_ms"],
        "per-op",
    ),
    (
        "chunk vector top-10 p50 (ms)",
        lambda s: s["queries"]["chunk_vector_top10"]["p50_ms"],
        "per-op",
    ),
    (
        "chunk vector top-10 p95 (ms)",
        lambda s: s["queries"]["chunk_vector_top10"]["p95_ms"],
        "per-op",
    ),
    (
        "first vector query (s)",
        lambda s: s["queries"]["entity_vector_first_query_seconds"],
        "per-op",
    ),
    ("disk (MB)", lambda s: s["disk_mb"], "total"),
    ("peak RSS (MB)", lambda s: s["peak_rss_mb"], "total"),
]


def growth_exponent(sizes: list[int], values: list[float], kind: str) -> float | None:
    """``b`` in cost ∝ size^b between the smallest and largest size (a rate is inverted to a
    cost first). ``None`` when it cannot be computed."""
    if kind == "none" or len(sizes) < 2:
        return None
    first, last = values[0], values[-1]
    if kind == "rate":
        first, last = (1 / first if first else 0.0), (1 / last if last else 0.0)
    if first <= 0 or last <= 0 or sizes[-1] == sizes[0]:
        return None
    return math.log(last / first) / math.log(sizes[-1] / sizes[0])


def _size_label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def render_scale(result: Mapping[str, Any]) -> str:
    """Per-size figures and their growth exponent, worse-than-linear growth flagged."""
    measured = {int(k): v for k, v in result["figures"]["sizes"].items() if "error" not in v}
    failed = [k for k, v in result["figures"]["sizes"].items() if "error" in v]
    sizes = sorted(measured)
    header = ["figure", *(_size_label(s) for s in sizes), "growth exponent b (cost ∝ n^b)"]
    rows = []
    for label, get, kind in _SCALE_ROWS:
        values: list[Any] = []
        for s in sizes:
            try:
                values.append(get(measured[s]))
            except (KeyError, TypeError):
                values.append(None)
        exponent = None
        if all(isinstance(v, int | float) for v in values):
            exponent = growth_exponent(sizes, [float(v) for v in values], kind)
        mark = (
            "–"
            if exponent is None
            else f"{exponent:.2f}" + (" ⚠ worse than linear" if exponent > 1.1 else "")
        )
        rows.append([label, *values, mark])
    runs = sorted({measured[s].get("_run", "") for s in sizes})
    lines = [
        _preamble(result),
        "",
        "Sizes measured in: " + "; ".join(r for r in runs if r) + ".",
        "",
        table(header, rows),
    ]
    if failed:
        lines += ["", "Sizes that failed: " + ", ".join(failed) + " (see the results JSON)."]
    return "\n".join(lines)


def _pair(ratios: Mapping[str, Any], first: str, second: str) -> str:
    a, b = ratios.get(first), ratios.get(second)
    if a is None and b is None:
        return "–"
    return f"{_fmt(a, 2)} / {_fmt(b, 2)}"


def render_peers(result: Mapping[str, Any]) -> str:
    """Per corpus: each system's ingest time (and ratio to loregraph), graph size, context
    latency and peak memory; a system that did not finish says why."""
    figures = result["figures"]
    versions = figures.get("peer_versions", {})
    lines = [
        _preamble(result),
        "",
        "Peers: "
        + ", ".join(
            f"{k} {v}" for k, v in versions.items() if k in ("lightrag-hku", "nano-graphrag")
        )
        + ". Ratios are peer / loregraph: above 1 means loregraph is faster or smaller.",
    ]
    for corpus, section in figures.get("corpora", {}).items():
        systems = section.get("systems", {})
        ratio = section.get("ratios", {})
        rows = []
        for name, run in systems.items():
            queries = run.get("query") or {}
            latency = "; ".join(
                f"{mode} {_fmt(q.get('p50_ms'))} / {_fmt(q.get('p95_ms'))}"
                for mode, q in queries.items()
            )
            status = run.get("status", "?")
            if status != "ok":
                reason = str(run.get("reason", "")).strip().splitlines()[-1:] or [""]
                status = f"{status}: {reason[0][:120]}"
            rows.append(
                [
                    name,
                    status,
                    run.get("ingest_seconds"),
                    _pair(ratio.get(name, {}), "ingest", "ingest_vs_peer_chunks"),
                    _pair(
                        ratio.get(name, {}),
                        "ingest_framework_only",
                        "ingest_framework_only_vs_peer_chunks",
                    ),
                    f"{_fmt(run.get('entities'))} / {_fmt(run.get('relations'))} / "
                    f"{_fmt(run.get('chunks'))}",
                    latency or "–",
                    run.get("peak_rss_mb"),
                ]
            )
        header = [
            "system",
            "status",
            "ingest s",
            "ingest ratio (vs loregraph / vs loregraph-peer-chunks)",
            "framework-only ratio (same)",
            "entities / relations / chunks",
            "context p50 / p95 ms",
            "peak RSS MB",
        ]
        lines += [
            "",
            f"**{corpus}** — {section.get('data', '')}; {section.get('questions')} questions.",
            "",
            table(header, rows),
        ]
    return "\n".join(lines)


def render_abstain(result: Mapping[str, Any]) -> str:
    """Answerable-detection precision and recall (rendered by :mod:`bench.abstain`)."""
    from bench.abstain import render_abstain as render

    return render(dict(result))


def render_longdoc(result: Mapping[str, Any]) -> str:
    """The long-document comparison (rendered by :mod:`bench.longdoc_report`)."""
    from bench.longdoc_report import render_longdoc as render

    return render(result)


def render_memory(result: Mapping[str, Any]) -> str:
    """Memory write and ``as_of`` latency (rendered by :mod:`bench.memory`)."""
    from bench.memory import render_memory as render

    return render(dict(result))


def render_fact_changes(result: Mapping[str, Any]) -> str:
    """Facts that change: invalidation precision and recall (rendered by
    :mod:`bench.fact_changes`)."""
    from bench.fact_changes import render_fact_changes as render

    return render(dict(result))


def render_backends(result: Mapping[str, Any]) -> str:
    """The backend comparison (rendered by :mod:`bench.backends`)."""
    from bench.backends import render_backends as render

    return render(dict(result))


def render_load(result: Mapping[str, Any]) -> str:
    """The HTTP API under load (rendered by :mod:`bench.load`)."""
    from bench.load import render_load as render

    return render(dict(result))


def render_realmodel(result: Mapping[str, Any]) -> str:
    """The LLM path against a real local model (rendered by :mod:`bench.realmodel`)."""
    from bench.realmodel import render_realmodel as render

    return render(dict(result))


def render_harness(result: Mapping[str, Any]) -> str:
    """Crash, fuzz and concurrency figures (rendered by :mod:`bench.harness`)."""
    from bench.harness import render_harness as render

    return render(dict(result))


def render_code(result: Mapping[str, Any]) -> str:
    """Code localisation from real history (rendered by :mod:`bench.code`)."""
    from bench.code import render_code as render

    return render(dict(result))


def render_personas(result: Mapping[str, Any]) -> str:
    """The persona and intent benchmark (rendered by :mod:`bench.personas`)."""
    from bench.personas import render_personas as render

    return render(dict(result))


RENDERERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "retrieval": render_retrieval,
    "abstain": render_abstain,
    "longdoc": render_longdoc,
    "memory": render_memory,
    "fact_changes": render_fact_changes,
    "extraction": render_extraction,
    "speed": render_speed,
    "scale": render_scale,
    "peers": render_peers,
    "backends": render_backends,
    "load": render_load,
    "realmodel": render_realmodel,
    "harness": render_harness,
    "personas": render_personas,
    "code": render_code,
}


# --------------------------------------------------------------------------- markdown
def replace_block(text: str, name: str, body: str) -> str:
    """Replace what is between the ``BENCH:name`` markers; text without them is unchanged."""
    pattern = re.compile(
        rf"(<!-- BENCH:{re.escape(name)}:start -->\n).*?(\n?<!-- BENCH:{re.escape(name)}:end -->)",
        re.DOTALL,
    )
    return pattern.sub(
        lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2).lstrip("\n"), text
    )


def regenerate(markdown: Path | None = None, directory: Path | None = None) -> list[str]:
    """Re-render every section that has a result into BENCHMARKS.md; returns their names."""
    path = markdown or BENCHMARKS_MD
    text = path.read_text(encoding="utf-8")
    done = []
    for section, result in load_results(directory).items():
        try:
            body = RENDERERS[section](result)
        except (KeyError, TypeError, ValueError) as exc:
            body = f"_The {section} result could not be rendered: {type(exc).__name__}: {exc}_"
        text = replace_block(text, section, body)
        done.append(section)
    path.write_text(text, encoding="utf-8")
    return done


def main() -> int:
    """Regenerate BENCHMARKS.md from bench/results/*.json."""
    done = regenerate()
    print("regenerated: " + (", ".join(done) or "nothing (no results yet)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

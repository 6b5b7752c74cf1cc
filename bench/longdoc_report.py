"""The long-document section's tables: BENCHMARKS.md (markdown) and the console (text)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.common import fmt_cell


def _budgets(result_or_figures: Mapping[str, Any]) -> list[int]:
    return [int(b) for b in result_or_figures.get("budgets", (500, 1000, 2000, 4000))]


def _latency(system: Mapping[str, Any]) -> str:
    lat = system.get("latency") or {}
    if not lat.get("n"):
        return "–"
    return f"{fmt_cell(lat.get('p50_ms'))} / {fmt_cell(lat.get('p95_ms'))}"


def _ingest(store: Mapping[str, Any]) -> str:
    seconds = fmt_cell(store.get("seconds_total"))
    if not store.get("cached"):
        return f"{seconds} s (fresh ingest in this run)"
    built = (store.get("built_with") or {}).get("commit") or "unknown"
    return f"{seconds} s (cached store: the time measured when it was built, commit {built[:10]})"


def _scope_line(name: str, corpus: Mapping[str, Any]) -> str:
    left = corpus.get("questions_out_of_scope") or 0
    scope = f", {left} more left out (their page is not in this scope)" if left else ""
    return (
        f"**{name}** — {corpus.get('data', '')}; {corpus.get('questions')} questions{scope}; "
        f"baselines rank {fmt_cell(corpus.get('baseline_chunks'))} chunks."
    )


def _system_rows(corpus: Mapping[str, Any], budgets: Sequence[int]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for label, system in corpus.get("systems", {}).items():
        held = system.get("held", {})
        tokens = system.get("mean_tokens", {})
        note = f"{system['errors']} errors" if system.get("errors") else ""
        rows.append(
            [label]
            + [held.get(str(b)) for b in budgets]
            + [tokens.get("2000"), _latency(system), note]
        )
    return rows


def render_longdoc(result: Mapping[str, Any]) -> str:
    """Per corpus: share of contexts holding the answer per system and budget, with tokens
    used and latency; offline answers and ingest time below."""
    from bench.report import _preamble, table

    figures = result["figures"]
    budgets = _budgets(figures)
    lines = [_preamble(result)]
    for name, corpus in figures.get("corpora", {}).items():
        if corpus.get("status") != "ok":
            lines += ["", f"**{name}** — {corpus.get('status')}: {corpus.get('reason', '')}"]
            continue
        header = (
            ["system"]
            + [f"{b:,} tokens %" for b in budgets]
            + ["mean tokens at 2,000", "p50 / p95 ms at 2,000", "note"]
        )
        answers = corpus.get("offline_answers", {})
        facts = [
            [
                f"offline answers holding the answer (Graph.ask, no LLM, "
                f"{answers.get('preset', '?')})",
                f"{fmt_cell(answers.get('held'))} % ({answers.get('held_n')} of "
                f"{answers.get('n')}; {answers.get('found')} answered, the rest said "
                "nothing was found)",
            ],
            ["offline answer p50 / p95 ms", _latency(answers)],
            ["ingest wall time", _ingest(corpus.get("store", {}))],
        ]
        lines += [
            "",
            _scope_line(name, corpus),
            "",
            table(header, _system_rows(corpus, budgets)),
            "",
            table(["figure", "value"], facts),
        ]
    return "\n".join(lines)


def console_table(name: str, corpus: Mapping[str, Any], budgets: Sequence[int]) -> str:
    """A compact plain-text table of one corpus's figures, for the console."""
    width = max([len(label) for label in corpus.get("systems", {})] + [12])
    head = f"{'system':<{width}}" + "".join(f"{b:>7}" for b in budgets)
    lines = [
        f"longdoc {name}: {corpus.get('questions')} questions "
        f"({corpus.get('questions_out_of_scope', 0)} out of scope); % of contexts holding "
        "the answer",
        head + f"{'tok@2000':>10}{'p50/p95 ms':>16}",
    ]
    for label, system in corpus.get("systems", {}).items():
        held = system.get("held", {})
        cells = "".join(f"{fmt_cell(held.get(str(b))):>7}" for b in budgets)
        tokens = fmt_cell(system.get("mean_tokens", {}).get("2000"), 0)
        errors = f"  {system['errors']} errors" if system.get("errors") else ""
        lines.append(f"{label:<{width}}{cells}{tokens:>10}{_latency(system):>16}{errors}")
    answers = corpus.get("offline_answers", {})
    lines.append(
        f"offline answers ({answers.get('preset')}): {fmt_cell(answers.get('held'))} % "
        f"({answers.get('held_n')}/{answers.get('n')}), p50/p95 ms {_latency(answers)}"
    )
    lines.append(f"ingest: {_ingest(corpus.get('store', {}))}")
    return "\n".join(lines)

"""Results files and BENCHMARKS.md table generation on tiny hand-made results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.report import (
    growth_exponent,
    load_results,
    regenerate,
    render_extraction,
    render_retrieval,
    render_scale,
    render_speed,
    replace_block,
    save_result,
    table,
)


def _meta(mode: str, stamp: str) -> dict[str, Any]:
    return {
        "mode": mode,
        "timestamp": stamp,
        "command": "python -m bench.run --quick",
        "commit": {"commit": "0123456789abcdef", "dirty": True},
        "machine": {"cores": 2, "ram_gb": 23.4, "python": "3.11.9"},
        "wall_seconds": 12.5,
    }


def _recall(r2: float, r5: float) -> dict[str, Any]:
    return {
        "all": {"n": 2, "R@2": r2, "R@5": r5},
        "comparison": {"n": 1, "R@2": r2, "R@5": r5},
    }


RETRIEVAL = _meta("quick", "2025-01-01T00:00:00+00:00") | {
    "figures": {
        "systems": {
            "BM25 (bm25s)": {
                "kind": "baseline",
                "recall": _recall(55.17, 65.18),
                "latency": {"p50_ms": 1.5, "p95_ms": 3.0},
            },
            "loregraph hybrid": {
                "kind": "engine",
                "recall": _recall(60.0, 70.0),
                "latency": {"p50_ms": 80.0, "p95_ms": 120.0},
                "errors": 2,
            },
        },
        "store": {"seconds_total": 300.0, "cached": True, "store_entities": 1000},
    },
    "config": {"questions": 2, "subset": "first 2", "corpus_passages": 10},
}


def _scale_size(size: int, write: float, p50: float) -> dict[str, Any]:
    lat = {"p50_ms": p50, "p95_ms": p50 * 2}
    return {
        "size": size,
        "load": {
            "entities_per_second": size / write,
            "write_seconds": write,
            "bundle_seconds_first_10pct": 1.0,
            "bundle_seconds_last_10pct": 1.0,
        },
        "queries": {
            "expand_2hop": lat,
            "fuzzy_lookup": lat | {"hit_rate_top10": 1.0},
            "entity_vector_top10": lat,
            "chunk_vector_top10": lat,
            "entity_vector_first_query_seconds": 0.5,
        },
        "disk_mb": size / 1000,
        "peak_rss_mb": 300.0,
    }


def test_markdown_table_formats_numbers_and_missing_values() -> None:
    text = table(["a", "b"], [["x", 1234], ["y", None], ["z", 0.25]])
    assert text.splitlines() == [
        "| a | b |",
        "|---|---|",
        "| x | 1,234 |",
        "| y | – |",
        "| z | 0.2 |",
    ]


def test_retrieval_table_lists_every_system_with_recall_and_type_breakdown() -> None:
    text = render_retrieval(RETRIEVAL)
    assert "| BM25 (bm25s) | 55.2 | 65.2 | 1.5 | 3.0 |  |" in text
    assert "| loregraph hybrid | 60.0 | 70.0 | 80.0 | 120.0 | 2 errors |" in text
    assert "comparison (n=1)" in text
    assert "commit 0123456789+local changes" in text
    assert "cached" in text


def test_extraction_and_speed_tables_render() -> None:
    prf = {"precision": 50.0, "recall": 25.0, "f1": 33.33, "pred_total": 4, "gold_total": 8}
    extraction = _meta("full", "t") | {
        "figures": {
            "entities": prf,
            "relation_pairs": {"typed": prf, "co-occurrence": prf},
            "entity_recall_by_gold_type": {"PER": {"recall": 90.0, "gold": 10}},
            "timing": {"extract_seconds": 3.0},
            "counts": {"documents": 5},
        },
    }
    text = render_extraction(extraction)
    assert "| entities | 50.0 | 25.0 | 33.3 | 4 | 8 |" in text
    assert "relation pairs, co-occurrence" in text and "PER 90.0 (n=10)" in text
    speed = _meta("quick", "t") | {
        "figures": {
            "dracula_ingest": {
                "seconds_total": 100.0,
                "seconds_by_stage": {"extract": 60.0},
                "chunks": 1000,
                "peak_rss_mb": 900.0,
            },
            "context_latency_dracula_demo": {"n": 15, "p50_ms": 50.0, "p95_ms": 90.0},
            "context_latency_2wiki": {"n": 200, "p50_ms": 40.0, "p95_ms": 70.0},
        }
    }
    text = render_speed(speed)
    assert "| ingest wall time (s) | 100.0 |" in text and "extract 60.0" in text
    assert "| 2Wiki store, 2Wiki questions | 200 | 40.0 | 70.0 | – |" in text


def test_growth_exponent_is_one_for_linear_and_inverts_rates() -> None:
    sizes = [10_000, 1_000_000]
    assert growth_exponent(sizes, [1.0, 100.0], "total") == pytest.approx(1.0)
    assert growth_exponent(sizes, [5.0, 5.0], "per-op") == pytest.approx(0.0)
    # a rate is inverted: entities/s falling 100x over 100x more entities = per-entity cost ∝ n
    assert growth_exponent(sizes, [1000.0, 10.0], "rate") == pytest.approx(1.0)
    assert growth_exponent(sizes, [1.0, 1.0], "none") is None
    assert growth_exponent([10_000], [1.0], "total") is None


def test_scale_table_flags_worse_than_linear_growth() -> None:
    result = _meta("full", "t") | {
        "figures": {
            "sizes": {
                "10000": _scale_size(10_000, 10.0, 1.0),
                "1000000": _scale_size(1_000_000, 10_000.0, 1.0),
                "100000": {"size": 100_000, "error": "exit code 1"},
            }
        }
    }
    text = render_scale(result)
    header = text.splitlines()[4]
    assert "| 10k | 1M |" in header
    write_row = next(line for line in text.splitlines() if line.startswith("| write time"))
    assert "1.50 ⚠ worse than linear" in write_row
    p50_row = next(line for line in text.splitlines() if line.startswith("| 2-hop expand p50"))
    assert p50_row.endswith("| 0.00 |")
    assert "Sizes that failed: 100000" in text


def test_replace_block_only_touches_its_markers() -> None:
    text = (
        "intro\n<!-- BENCH:a:start -->\nold a\n<!-- BENCH:a:end -->\n"
        "<!-- BENCH:b:start -->\nold b\n<!-- BENCH:b:end -->\n"
    )
    out = replace_block(text, "a", "new a\n")
    assert out == text.replace("old a", "new a")
    assert replace_block(out, "missing", "x") == out


def test_results_round_trip_full_runs_win_and_scale_sizes_merge(tmp_path: Path) -> None:
    save_result(
        "retrieval", "full", RETRIEVAL | {"mode": "full", "timestamp": "2025-01-01"}, tmp_path
    )
    save_result("retrieval", "quick", RETRIEVAL | {"timestamp": "2025-02-01"}, tmp_path)
    full_scale = _meta("full", "2025-01-01") | {
        "figures": {
            "sizes": {
                "10000": _scale_size(10_000, 10.0, 1.0),
                "1000000": _scale_size(1_000_000, 999.0, 1.0),
            }
        }
    }
    quick_scale = _meta("quick", "2025-02-01") | {
        "figures": {"sizes": {"10000": _scale_size(10_000, 20.0, 1.0)}}
    }
    save_result("scale", "full", full_scale, tmp_path)
    save_result("scale", "quick", quick_scale, tmp_path)
    (tmp_path / "speed.quick.json").write_text("{not json")
    results = load_results(tmp_path)
    assert set(results) == {"retrieval", "scale"}
    assert results["retrieval"]["mode"] == "full"  # a newer quick run does not hide it
    sizes = results["scale"]["figures"]["sizes"]
    assert list(sizes) == ["10000", "1000000"]
    assert sizes["10000"]["load"]["write_seconds"] == 10.0  # the full run wins per size
    (tmp_path / "retrieval.full.json").unlink()
    assert load_results(tmp_path)["retrieval"]["mode"] == "quick"  # quick when no full run
    assert sizes["1000000"]["load"]["write_seconds"] == 999.0  # kept from the full run
    assert json.loads((tmp_path / "scale.full.json").read_text())["mode"] == "full"


def test_regenerate_rewrites_marked_blocks(tmp_path: Path) -> None:
    save_result("retrieval", "quick", RETRIEVAL, tmp_path)
    md = tmp_path / "BENCHMARKS.md"
    md.write_text(
        "# B\n<!-- BENCH:retrieval:start -->\n_Not measured yet._\n"
        "<!-- BENCH:retrieval:end -->\n<!-- BENCH:speed:start -->\nkeep\n"
        "<!-- BENCH:speed:end -->\n"
    )
    assert regenerate(md, tmp_path) == ["retrieval"]
    text = md.read_text()
    assert "Not measured yet" not in text and "| BM25 (bm25s) | 55.2 |" in text
    assert "keep" in text
    assert text.count("<!-- BENCH:retrieval:start -->") == 1


def test_peer_corpora_missing_from_the_full_run_come_from_the_quick_run(tmp_path: Path) -> None:
    def peers(mode: str, stamp: str, corpora: list[str]) -> dict[str, Any]:
        section = {"data": "d", "questions": 1, "systems": {}, "ratios": {}}
        return _meta(mode, stamp) | {"figures": {"corpora": {c: section for c in corpora}}}

    save_result("peers", "full", peers("full", "2025-01-01", ["dracula"]), tmp_path)
    save_result("peers", "quick", peers("quick", "2025-02-01", ["dracula", "2wiki"]), tmp_path)
    shown = load_results(tmp_path)["peers"]
    assert shown["mode"] == "full"
    corpora = shown["figures"]["corpora"]
    assert corpora["dracula"]["data"] == "d"
    assert "quick run" in corpora["2wiki"]["data"]


def test_the_benchmark_command_names_a_missing_extra_before_running_anything(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import run

    monkeypatch.setattr(run, "BENCH_MODULES", ("json", "no_such_module_for_loregraph"))
    ran: list[object] = []
    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: ran.append(a))
    assert run.main(["--quick", "--only", "longdoc", "--no-report"]) == 2
    message = capsys.readouterr().err
    assert "no_such_module_for_loregraph" in message and "make bench" in message
    assert "json" not in message.split("need", 1)[1].split("(")[0]
    assert ran == []

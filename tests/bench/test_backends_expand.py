"""The in-memory vs FalkorDB expansion table of the backends section, on hand-made figures."""

from __future__ import annotations

from typing import Any

from bench.backends_expand import render


def side(retrieve: float, expand: float) -> dict[str, Any]:
    return {
        "retrieve": {"n": 2, "p50_ms": retrieve, "p95_ms": retrieve * 2},
        "expand": {"n": 2, "p50_ms": expand, "p95_ms": expand * 2},
    }


def test_render_puts_both_sides_and_the_ratio_in_one_row() -> None:
    figures = {
        "store": "2wiki-abc.db",
        "questions": 2,
        "resync_seconds": 3.5,
        "index_build_ms_memory": 40.0,
        "index_build_ms_falkordb": 41.0,
        "stats": {"entities": 4533, "relations": 14342},
        "presets": {
            "hybrid": {
                "memory": side(20.0, 1.5),
                "falkordb": side(50.0, 30.0),
                "ratio_p50": {"retrieve": 2.5, "expand": 20.0},
                "same_results": 2,
            },
        },
    }
    lines = render(figures)
    assert "4,533 entities, 14,342 relations" in lines[1] and "40.0 / 41.0 ms" in lines[1]
    row = next(line for line in lines if line.startswith("| hybrid"))
    assert row == (
        "| hybrid | 20.0 / 40.0 | 50.0 / 100.0 | 2.5× | 1.5 / 3.0 | 30.0 / 60.0 | 20.0× | 2/2 |"
    )

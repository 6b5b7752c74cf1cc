"""Frame times in the explorer's page: a ``requestAnimationFrame`` loop records the time
between frames, and a ``longtask`` observer the tasks that held the main thread over 50 ms,
while a test lays out or moves the graph. The figures go to the test's artifacts (JSON) and
to BENCHMARKS.md; tests assert only that no frame shows a freeze."""

from __future__ import annotations

import os
import platform
import subprocess
from typing import Any

from .conftest import CHROMIUM

PROBE = """() => {
    const state = { deltas: [], long: [], running: false, last: 0 };
    const tick = (now) => {
        if (!state.running) return;
        if (state.last) state.deltas.push(now - state.last);
        state.last = now;
        requestAnimationFrame(tick);
    };
    new PerformanceObserver((list) => {
        if (state.running) for (const entry of list.getEntries()) state.long.push(entry.duration);
    }).observe({ type: "longtask" });
    window.__frames = {
        start() {
            Object.assign(state, { deltas: [], long: [], last: 0, running: true });
            requestAnimationFrame(tick);
        },
        stop() {
            state.running = false;
            return { deltas: state.deltas, long: state.long };
        },
    };
}"""
"""Installs ``window.__frames`` (``start()``, ``stop()`` → the frame deltas and long tasks,
in milliseconds)."""


def quantile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank; 0 when empty)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(recorded: dict[str, list[float]]) -> dict[str, Any]:
    """Frame count, p50/p95/max frame time and the long tasks of one recording."""
    deltas, long = recorded["deltas"], recorded["long"]
    return {
        "frames": len(deltas),
        "seconds": round(sum(deltas) / 1000, 2),
        "p50_ms": round(quantile(deltas, 0.5), 1),
        "p95_ms": round(quantile(deltas, 0.95), 1),
        "max_ms": round(max(deltas, default=0.0), 1),
        "long_tasks": len(long),
        "longest_task_ms": round(max(long, default=0.0), 1),
    }


def start(page: Any) -> None:
    """Starts recording frames (installing the probe on first use)."""
    if not page.evaluate("() => Boolean(window.__frames)"):
        page.evaluate(PROBE)
    page.evaluate("() => window.__frames.start()")


def stop(page: Any) -> dict[str, Any]:
    """Stops recording; the summary of what was recorded."""
    return summary(page.evaluate("() => window.__frames.stop()"))


def pan_and_zoom(page: Any, rounds: int = 4) -> None:
    """Moves the camera as a hand does: drags across the graph and turns the wheel."""
    box = page.locator("#graph").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for i in range(rounds):
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 220 * (-1) ** i, y + 120 * (-1) ** (i // 2), steps=30)
        page.mouse.up()
        for _ in range(5):
            page.mouse.wheel(0, -120 if i % 2 == 0 else 120)
            page.wait_for_timeout(60)


def machine() -> dict[str, Any]:
    """Where the figures were measured."""
    version = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True)
    return {
        "browser": version.stdout.strip(),
        "rendering": "headless, --disable-gpu (software WebGL)",
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "machine": platform.machine(),
    }

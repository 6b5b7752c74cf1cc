"""The benchmark command: ``python -m bench.run --quick | --full [--only NAME] [--fresh]``.

Each section runs in its own process (a crash or a memory peak in one does not affect the
others), saves ``bench/results/<section>.<mode>.json`` and the tables in BENCHMARKS.md are
regenerated at the end from every saved result.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from bench.common import (
    ROOT,
    RunOptions,
    command_line,
    git_commit,
    log,
    machine_info,
    utc_timestamp,
)
from bench.report import SECTIONS, regenerate, save_result

QUICK_SKIPS = ("realmodel", "harness")
"""Sections a quick run leaves out unless named with ``--only``: the real model needs its
own build and tens of minutes; the crash, fuzz and concurrency harness runs (bounded) in
``make test`` already."""


def _section(name: str) -> Callable[..., dict[str, Any]]:
    if name == "retrieval":
        from bench import retrieval

        return retrieval.run
    if name == "abstain":
        from bench import abstain

        return abstain.run
    if name == "longdoc":
        from bench import longdoc

        return longdoc.run
    if name == "memory":
        from bench import memory

        return memory.run
    if name == "fact_changes":
        from bench import fact_changes

        return fact_changes.run
    if name == "extraction":
        from bench import extraction

        return extraction.run
    if name == "peers":
        from bench.peers import run as peers

        return peers.run
    if name == "backends":
        from bench import backends

        return backends.run
    if name == "speed":
        from bench import speed

        return speed.run
    if name == "scale":
        from bench import scale

        return scale.run
    if name == "load":
        from bench import load

        return load.run
    if name == "realmodel":
        from bench import realmodel

        return realmodel.run
    if name == "harness":
        from bench import harness

        return harness.run
    if name == "personas":
        from bench import personas

        return personas.run
    if name == "code":
        from bench import code

        return code.run
    raise ValueError(f"unknown section {name!r}; known: {', '.join(SECTIONS)}")


def run_section(
    name: str,
    options: RunOptions,
    command: str,
    sizes: tuple[int, ...] | None,
    runner: Callable[[RunOptions], dict[str, Any]] | None = None,
) -> int:
    """Run one section in this process and save its result; returns an exit code.

    ``runner`` replaces the section's own entry (a section's command line with options of
    its own, e.g. ``python -m bench.peers.run --corpora dracula``).
    """
    started = time.perf_counter()
    payload: dict[str, Any] = {
        "name": name,
        "mode": options.mode,
        "command": command,
        "timestamp": utc_timestamp(),
        "commit": git_commit(),
        "machine": machine_info(),
    }
    try:
        if runner is not None:
            out = runner(options)
        else:
            entry = _section(name)
            out = entry(options, sizes) if name in ("scale", "backends") else entry(options)
    except Exception as exc:  # reported in the results file, not only on the console
        traceback.print_exc()
        log(f"{name}: FAILED: {type(exc).__name__}: {exc}")
        return 1
    payload["wall_seconds"] = round(time.perf_counter() - started, 1)
    payload["figures"] = out["figures"]
    payload["config"] = out["config"] | {"fresh": options.fresh}
    path = save_result(name, options.mode, payload)
    log(f"{name}: done in {payload['wall_seconds']} s -> {path.relative_to(ROOT)}")
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="subset sizes (default)")
    mode.add_argument("--full", action="store_true", help="every question, document and size")
    parser.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        metavar="NAME",
        help=f"run only this section (repeatable): {', '.join(SECTIONS)}",
    )
    parser.add_argument("--fresh", action="store_true", help="rebuild cached ingested stores")
    parser.add_argument(
        "--sizes", help="scale sizes, comma-separated entity counts (e.g. 10000,100000)"
    )
    parser.add_argument("--no-report", action="store_true", help="do not touch BENCHMARKS.md")
    parser.add_argument("--child", choices=SECTIONS, help=argparse.SUPPRESS)
    parser.add_argument("--command", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


BENCH_MODULES = ("bm25s", "bs4", "markdownify")
"""What the ``bench`` extra installs: the BM25 baseline and the manual's HTML conversion."""


def missing_modules() -> list[str]:
    """The modules of the ``bench`` extra that are not installed."""
    return [name for name in BENCH_MODULES if importlib.util.find_spec(name) is None]


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections (each in a subprocess) and regenerate BENCHMARKS.md."""
    args = parse_args(argv)
    options = RunOptions(quick=not args.full, fresh=args.fresh)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else None
    if args.child:
        return run_section(args.child, options, args.command or command_line(), sizes)

    missing = missing_modules()
    if missing:
        print(
            f"python -m bench.run: the benchmarks need {', '.join(missing)} (the 'bench' extra): "
            "run `make bench-quick` or `make bench`, or `pip install -e '.[bench]'` first",
            file=sys.stderr,
        )
        return 2
    command = command_line()
    chosen = [
        s for s in SECTIONS if (s in args.only if args.only else args.full or s not in QUICK_SKIPS)
    ]
    started = time.perf_counter()
    codes: dict[str, tuple[int, float]] = {}
    for name in chosen:
        log(f"=== {name} ({options.mode}) ===")
        child = [sys.executable, "-m", "bench.run", "--child", name, "--command", command]
        child.append("--full" if args.full else "--quick")
        if args.fresh:
            child.append("--fresh")
        if args.sizes:
            child += ["--sizes", args.sizes]
        t0 = time.perf_counter()
        code = subprocess.run(child, cwd=ROOT, check=False).returncode
        codes[name] = (code, time.perf_counter() - t0)
    if not args.no_report:
        done = regenerate()
        log(f"BENCHMARKS.md tables regenerated: {', '.join(done) or 'none'}")
    total = time.perf_counter() - started
    for name, (code, secs) in codes.items():
        log(f"{name:<11} {'ok' if code == 0 else f'FAILED ({code})':<12} {secs:8.1f} s")
    log(f"total wall time {total:.1f} s")
    return 0 if all(code == 0 for code, _ in codes.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

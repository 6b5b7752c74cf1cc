"""Indexing a repository of about a thousand files: wall time, files per second, and the
time to read the folder again after one file changed.

The default folder is the running Python's standard library without its tests, IDLE,
lib2to3, tkinter, turtledemo and site-packages (649 files on CPython 3.11.7), copied to a
scratch folder first. ``python -m bench.code_scale [FOLDER]``; prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR

LEFT_OUT = ("test", "site-packages", "idlelib", "lib2to3", "tkinter", "turtledemo")


def copy_stdlib(target: Path) -> int:
    """Copy the standard library's Python files (see the module docstring); their count."""
    root = Path(sysconfig.get_paths()["stdlib"])
    count = 0
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if parts[0] in LEFT_OUT or "tests" in parts:
            continue
        (target / path.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / path.relative_to(root))
        count += 1
    return count


async def measure(folder: Path) -> dict[str, Any]:
    """Ingest ``folder`` into a new SQLite store (offline, MiniLM), then again after a
    Python file of median size gained a comment line, then after the largest did."""
    import loregraph
    from loregraph.embed.minilm import MiniLMEmbedder

    store = TMP_DIR / "code-scale.db"
    store.unlink(missing_ok=True)
    graph = loregraph.AsyncGraph(loregraph.open_store(store), embedder=MiniLMEmbedder())
    try:
        started = time.perf_counter()
        report = await graph.ingest(folder)
        seconds = time.perf_counter() - started
        by_size = sorted(folder.rglob("*.py"), key=lambda p: (p.stat().st_size, str(p)))
        again: dict[str, Any] = {}
        for which, path in (("median", by_size[len(by_size) // 2]), ("largest", by_size[-1])):
            path.write_text(path.read_text(encoding="utf-8") + "\n# changed\n", "utf-8")
            started = time.perf_counter()
            redone = await graph.ingest(folder)
            again[which] = {
                "file": str(path.relative_to(folder)),
                "bytes": path.stat().st_size,
                "seconds": round(time.perf_counter() - started, 2),
                "reindexed": redone.replaced,
            }
        stats = await graph.stats()
        return {
            "files": report.ingested,
            "failed": len(report.failed),
            "seconds": round(seconds, 1),
            "files_per_second": round(report.ingested / seconds, 2),
            "stage_seconds": {k: round(v, 1) for k, v in report.seconds.items()},
            "chunks": stats.chunks,
            "entities": stats.entities,
            "relations": stats.relations,
            "reindex_one_changed_file": again,
        }
    finally:
        await graph.close()


def main() -> None:
    """Run on the folder given, or on a copy of the standard library."""
    if len(sys.argv) > 1:
        folder = Path(sys.argv[1])
    else:
        folder = TMP_DIR / "code-scale-stdlib"
        shutil.rmtree(folder, ignore_errors=True)
        copy_stdlib(folder)
    print(json.dumps(asyncio.run(measure(folder)), indent=2))


if __name__ == "__main__":
    main()

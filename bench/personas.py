"""The persona and intent benchmark: are the right stories in the context?

The corpus (``bench/data/personas/corpus.json``) is two invented families' stories, memories
and notes in two scopes, some private or personal, with links between the scopes; the
questions (``questions.json``) are written per intent (relational, temporal, spatial,
entity_focused, general, cross_legacy), each with the stories that should be in its context,
the personas it is asked with and, for some, a principal to ask as (see the folder's
README). Both were written before any persona, intent or traversal code was tuned.

The corpus is ingested into a fresh SQLite store (each story with its visibility and owner,
and the links between the scopes, when the engine takes them); then every question is asked
with each of its personas, ``AsyncGraph.context(question, scope=..., persona=...)``, once
with the graph layer on and once with it off (``Settings(graph_augmentation=False)``).
A story is in a context when one of its sentences is. Reported per intent and per persona:
the share of questions whose expected stories are all in the context, the share of expected
stories found, and the stories that should not have been there (``absent``).

"""

from __future__ import annotations

import asyncio
import json
import re
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from bench.common import ROOT, TMP_DIR, RunOptions, log
from bench.report import table

DATA = ROOT / "bench" / "data" / "personas"
CORPUS_FILE = DATA / "corpus.json"
QUESTIONS_FILE = DATA / "questions.json"
BUDGET = 500
"""Tokens of context per question: about five of the stories (~80-110 tokens each), under a
third of a scope, so that which stories come in is the retrieval's choice (the default
budget, 4,000 tokens, holds a whole scope and every question finds everything)."""
MIN_SENTENCE = 20
"""Sentences shorter than this do not identify a story (a context holding one proves little)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

Ask = Callable[[dict[str, Any], str | None], Awaitable[str]]
"""Asks one question with one persona (``None``: none) and returns the context."""


def load(path: Path) -> dict[str, Any]:
    """A data file of the benchmark."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def sentences(text: str) -> list[str]:
    """The sentences of a story that can identify it (normalised: lower case, one space)."""
    found = [_norm(s) for s in _SENTENCE_END.split(text)]
    return [s for s in found if len(s) >= MIN_SENTENCE]


def stories_in(context: str, corpus: Mapping[str, list[str]]) -> set[str]:
    """The ids of the stories (``id`` → its sentences) with a sentence in ``context``."""
    text = _norm(context)
    return {story for story, said in corpus.items() if any(s in text for s in said)}


async def build(db: Path, corpus: dict[str, Any], **engine: Any) -> None:
    """Ingest the corpus into a fresh SQLite store at ``db`` (``engine``: options of
    :class:`~loregraph.AsyncGraph`, e.g. an embedder), each story with its visibility and
    owner, and link the scopes."""
    from datetime import UTC, datetime

    from loregraph import AsyncGraph
    from loregraph.ingest.pipeline import document_id
    from loregraph.ingest.types import SourceDocument
    from loregraph.store.sqlite import SqliteStore

    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    graph = AsyncGraph(SqliteStore(db), **engine)
    try:
        groups: dict[tuple[str, str, str], list[SourceDocument]] = defaultdict(list)
        for story in corpus["documents"]:
            when = datetime.fromisoformat(story["date"]).replace(tzinfo=UTC)
            meta = {"id": story["id"], "kind": story["kind"], "date": story["date"]}
            source = SourceDocument(
                story["title"], story["text"], story["id"], metadata=meta, valid_at=when
            )
            groups[(story["scope"], story["visibility"], story["owner"])].append(source)
        for (scope, visibility, owner), sources in groups.items():
            report = await graph.ingest_documents(
                sources, scope=scope, visibility=visibility, owner=owner
            )
            if not report.ok:
                raise RuntimeError(f"ingest failed: {report.failed}")
        for link in corpus["links"]:
            ids = [document_id(link["linked"], d) for d in link["documents"]]
            await graph.access.link(
                link["scope"], link["linked"], share=link["share"], documents=ids
            )
    finally:
        await graph.close()


async def ask_all(
    questions: Iterable[dict[str, Any]], corpus: Mapping[str, list[str]], ask: Ask
) -> list[dict[str, Any]]:
    """Every question with each of its personas: which expected stories the context holds
    and which stories that should be absent it holds."""
    rows: list[dict[str, Any]] = []
    for question in questions:
        for persona in question["personas"]:
            found = stories_in(await ask(question, persona), corpus)
            expected, absent = set(question["expected"]), set(question.get("absent", []))
            rows.append(
                {
                    "id": question["id"],
                    "intent": question["intent"],
                    "persona": persona,
                    "expected": len(expected),
                    "found": len(expected & found),
                    "complete": expected <= found,
                    "leaked": sorted(absent & found),
                }
            )
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares (%) of complete questions and of expected stories found, overall, per intent
    and per persona, and the stories that leaked."""

    def share(part: list[dict[str, Any]]) -> dict[str, Any]:
        expected = sum(r["expected"] for r in part)
        return {
            "asked": len(part),
            "complete": round(100.0 * sum(r["complete"] for r in part) / len(part), 1),
            "stories": round(100.0 * sum(r["found"] for r in part) / expected, 1)
            if expected
            else None,
        }

    by_intent: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_persona: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_intent[row["intent"]].append(row)
        by_persona[row["persona"]].append(row)
    return {
        "all": share(rows) if rows else None,
        "intents": {k: share(v) for k, v in sorted(by_intent.items())},
        "personas": {k: share(v) for k, v in sorted(by_persona.items())},
        "leaks": [
            f"{r['id']}/{r['persona']}: {', '.join(r['leaked'])}" for r in rows if r["leaked"]
        ],
    }


def asker(graph: Any) -> Ask:
    """Ask through ``graph`` (an ``AsyncGraph``), as the question's principal if any."""
    from loregraph.access import Principal, Role

    async def ask(question: dict[str, Any], persona: str | None) -> str:
        keywords: dict[str, Any] = {
            "scope": question["scope"],
            "budget": BUDGET,
            "persona": persona,
        }
        who = question.get("asked_by")
        if not who:
            return str(await graph.context(question["question"], **keywords))
        roles = {scope: Role.parse(role) for scope, role in who["roles"].items()}
        engine = graph.acting_as(Principal(who["name"], roles))
        return str(await engine.context(question["question"], **keywords))

    return ask


async def measure(db: Path, options: RunOptions, **engine: Any) -> dict[str, Any]:
    """Build the store and ask every question with the graph layer on and off."""
    from loregraph import AsyncGraph, Settings
    from loregraph.store.sqlite import SqliteStore

    corpus, chosen = load(CORPUS_FILE), load(QUESTIONS_FILE)["questions"]
    await build(db, corpus, **engine)
    said = {story["id"]: sentences(story["text"]) for story in corpus["documents"]}
    figures: dict[str, Any] = {"questions": len(chosen)}
    for label, settings in (
        ("graph", Settings()),
        ("no_graph", Settings(graph_augmentation=False)),
    ):
        graph = AsyncGraph(SqliteStore(db), settings=settings, **engine)
        try:
            rows = await ask_all(chosen, said, asker(graph))
        finally:
            await graph.close()
        figures[label] = summarise(rows)
        log(f"personas: {label}: {figures[label]['all']}")
    return figures


def run(options: RunOptions) -> dict[str, Any]:
    """The section's entry (``python -m bench.run --only personas``)."""
    config = {"corpus": str(CORPUS_FILE.relative_to(ROOT)), "mode": options.mode}
    TMP_DIR.mkdir(parents=True, exist_ok=True)
    figures = asyncio.run(measure(TMP_DIR / "personas.db", options))
    return {"figures": figures, "config": config}


def render_personas(result: dict[str, Any]) -> str:
    """The section's tables for BENCHMARKS.md."""
    figures = result.get("figures", {})
    on, off = figures["graph"], figures["no_graph"]
    rows: list[list[Any]] = []
    for group in ("intents", "personas"):
        for name in on[group]:
            a, b = on[group][name], off[group].get(name, {})
            rows.append([name, a["asked"], a["complete"], b.get("complete"), a["stories"],
                         b.get("stories")])  # fmt: skip
    rows.append(["all", on["all"]["asked"], on["all"]["complete"], off["all"]["complete"],
                 on["all"]["stories"], off["all"]["stories"]])  # fmt: skip
    header = ["intent / persona", "asked", "complete % (graph)", "complete % (off)",
              "stories % (graph)", "stories % (off)"]  # fmt: skip
    leaks = len(on["leaks"]) + len(off["leaks"])
    return table(header, rows) + f"\n\nStories that should have been absent: {leaks}.\n"

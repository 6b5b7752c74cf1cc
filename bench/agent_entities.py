"""Entity extraction on short agent memories: names and types, dev and held out.

The set is ``bench/data/memory/agent_entities.json`` (its ``about`` gives the vocabulary,
the scoring rule and the split; it was written before any code that handles it). Each
memory is remembered through the public API into a fresh scope of one SQLite store with the
default offline engine: ``Graph.remember`` for a memory without a title, and
``Graph.ingest_text(..., kind=DocKind.MEMORY)`` for one saved under a title (``remember``
takes no title). The entities of that scope are read back and scored by the file's rule:
entity F1 over names, and typed F1 after the engine's types are mapped to the set's
vocabulary by :data:`TYPE_MAP`. Both are micro-averaged, overall, per gold type and per
style, for the ``dev`` and ``held_out`` halves side by side. The held-out half is only ever
scored in aggregate: nothing here prints or stores a held-out memory on its own.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import TMP_DIR, RunOptions, log
from bench.metrics import PRF

DATA_FILE = Path(__file__).parent / "data" / "memory" / "agent_entities.json"
SPLITS = ("dev", "held_out")

TYPE_MAP: dict[str, str] = {
    "Person": "person",
    "Organization": "organization",
    "Location": "location",
    "Product": "product",
    "Event": "event",
    "Concept": "concept",
    "Role": "concept",
    "Time": "concept",
    "Code": "function",
    "Library": "library",
    "Service": "service",
    "File": "file",
    "Module": "module",
    "Function": "function",
    "Config": "config",
    "Convention": "convention",
    "ErrorPattern": "error_pattern",
}
"""The engine's entity types mapped to the set's vocabulary. ``Role`` and ``Time`` (which
the set never asks for) count as ``concept``; the older catch-all ``Code`` (an identifier
of a program) counts as ``function``; an unknown type counts as ``concept``."""


def norm(name: str) -> str:
    """The set's normalisation: lower case, no backticks, no leading "the ", no trailing
    "()", no surrounding punctuation or white space."""
    key = name.replace("`", "").strip().casefold()
    if key.startswith("the "):
        key = key[4:]
    if key.endswith("()"):
        key = key[:-2]
    return key.strip(" \t\n.,;:!?\"'()[]{}")


@dataclass(slots=True)
class Found:
    """One extracted entity: its name (and other surface forms) and mapped type."""

    name: str
    type: str
    aliases: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Tally:
    """Summed counts of one group (overall, a type or a style)."""

    names: PRF = field(default_factory=PRF)
    typed: PRF = field(default_factory=PRF)


def match(gold: Sequence[Mapping[str, Any]], found: Sequence[Found]) -> list[tuple[int, int]]:
    """(gold index, found index) pairs: equal normalised names, or the found name equal to a
    normalised gold alias; each gold and each found entity matched at most once."""
    keys = [{norm(g["name"])} | {norm(a) for a in g.get("aliases", [])} for g in gold]
    pairs: list[tuple[int, int]] = []
    used: set[int] = set()
    for fi, entity in enumerate(found):
        key = norm(entity.name)
        for gi, gkeys in enumerate(keys):
            if gi not in used and key in gkeys:
                used.add(gi)
                pairs.append((gi, fi))
                break
    return pairs


def score_memory(
    gold: Sequence[Mapping[str, Any]], found: Sequence[Found], tallies: dict[str, Tally], style: str
) -> None:
    """Add one memory's counts to the overall, per-type and per-style tallies."""
    pairs = match(gold, found)
    typed = [(gi, fi) for gi, fi in pairs if gold[gi]["type"] == found[fi].type]
    for key in ("all", f"style:{style}"):
        bucket = tallies.setdefault(key, Tally())
        bucket.names.add(PRF(len(pairs), len(found), len(pairs), len(gold)))
        bucket.typed.add(PRF(len(typed), len(found), len(typed), len(gold)))
    hit = {gi for gi, _ in typed}
    named = {gi for gi, _ in pairs}
    for gi, g in enumerate(gold):  # recall by gold type
        bucket = tallies.setdefault(f"type:{g['type']}", Tally())
        bucket.names.add(PRF(0, 0, int(gi in named), 1))
        bucket.typed.add(PRF(0, 0, int(gi in hit), 1))
    right = {fi for _, fi in typed}
    for fi, entity in enumerate(found):  # precision by mapped extracted type
        bucket = tallies.setdefault(f"type:{entity.type}", Tally())
        bucket.typed.add(PRF(int(fi in right), 1, 0, 0))


async def _extract(graph: Any, memory: Mapping[str, Any]) -> list[Found]:
    from loregraph.models import DocKind

    scope = f"am-{memory['id']}"
    if memory.get("title"):
        await graph.ingest_text(
            memory["text"], title=memory["title"], kind=DocKind.MEMORY, scope=scope
        )
    else:
        await graph.memories.remember(memory["text"], scope=scope)
    entities = await graph.explore.entities(scope=scope, limit=None)
    return [Found(e.name, TYPE_MAP.get(e.type, "concept"), list(e.aliases)) for e in entities]


async def _run_all(db: Path, memories: Sequence[Mapping[str, Any]]) -> list[list[Found]]:
    import loregraph

    graph = await loregraph.open_async(db)
    try:
        return [await _extract(graph, m) for m in memories]
    finally:
        await graph.close()


def _rows(tallies: Mapping[str, Tally]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, tally in sorted(tallies.items()):
        out[key] = {"names": tally.names.as_dict(), "typed": tally.typed.as_dict()}
    return out


def figures_for(
    memories: Iterable[Mapping[str, Any]], found: Iterable[list[Found]]
) -> dict[str, Any]:
    """Per split: overall, per-type and per-style name and typed P/R/F1."""
    tallies: dict[str, dict[str, Tally]] = {s: {} for s in SPLITS}
    for memory, entities in zip(memories, found, strict=True):
        score_memory(memory["entities"], entities, tallies[memory["split"]], memory["style"])
    return {split: _rows(t) for split, t in tallies.items()}


def dev_errors(memories: Sequence[Mapping[str, Any]], found: Sequence[list[Found]]) -> list[str]:
    """One line per dev memory whose typed entities differ from the gold (for study); the
    held-out half is never listed."""
    lines = []
    for memory, entities in zip(memories, found, strict=True):
        if memory["split"] != "dev":
            continue
        gold = {(norm(g["name"]), g["type"]) for g in memory["entities"]}
        got = {(norm(e.name), e.type) for e in entities}
        if gold != got:
            lines.append(f"{memory['id']}: missing {sorted(gold - got)} extra {sorted(got - gold)}")
    return lines


def run(options: RunOptions) -> dict[str, Any]:
    """Remember every memory of the set and score its entities; returns figures."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    memories = data["memories"]
    folder = TMP_DIR / "agent_entities"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    found = asyncio.run(_run_all(folder / "graph.db", memories))
    seconds = time.perf_counter() - started
    shutil.rmtree(folder, ignore_errors=True)
    figures = figures_for(memories, found)
    for split in SPLITS:
        row = figures[split].get("all", {})
        log(
            f"agent memories ({split}): name F1 {row.get('names', {}).get('f1')} "
            f"typed F1 {row.get('typed', {}).get('f1')}"
        )
    figures["counts"] = {split: sum(1 for m in memories if m["split"] == split) for split in SPLITS}
    figures["seconds"] = round(seconds, 2)
    return {
        "figures": figures,
        "config": {
            "data": "bench/data/memory/agent_entities.json",
            "engine": "default offline engine, one fresh scope per memory",
            "type_map": TYPE_MAP,
        },
    }

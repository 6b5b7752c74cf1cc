"""Extraction quality on Re-DocRED: entity and relation-pair precision / recall / F1.

Each document's tokens are joined into text and run through the engine's own stages, as
:meth:`loregraph.ingest.pipeline.IngestPipeline._build` chains them: chunking, the offline
extractor, type normalisation, clustering, core-entity selection, and the relate stage that
maps candidate relations onto the selected entities. Resolution against a store is skipped:
it merges across documents and each document is scored on its own.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import REDOCRED_FILE, RunOptions, log
from bench.metrics import PRF, detokenize, match_entities, match_pairs, name_keys

QUICK_DOCS = 100
FULL_DOCS = 500
SCOPE = "bench"
BATCH = 64


@dataclass(slots=True)
class GoldDoc:
    """A Re-DocRED document: its text, gold entities (mention names) and gold pairs."""

    title: str
    text: str
    entities: list[frozenset[str]]
    entity_types: list[str]
    pairs: list[tuple[int, int]]


@dataclass(slots=True)
class Predicted:
    """What the engine's stages kept for one document."""

    entities: list[frozenset[str]] = field(default_factory=list)
    pairs: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def load_docs(limit: int) -> list[GoldDoc]:
    """The first ``limit`` documents of ``dev_revised.json``."""
    raw = json.loads(REDOCRED_FILE.read_text(encoding="utf-8"))[:limit]
    return [gold_doc(d) for d in raw]


def gold_doc(record: dict[str, Any]) -> GoldDoc:
    """One Re-DocRED record as text plus gold entities and unordered gold pairs."""
    text = " ".join(detokenize(sentence) for sentence in record["sents"])
    entities = [name_keys(m["name"] for m in vertex) for vertex in record["vertexSet"]]
    types = [vertex[0].get("type", "?") if vertex else "?" for vertex in record["vertexSet"]]
    pairs = [(int(lab["h"]), int(lab["t"])) for lab in record.get("labels", [])]
    return GoldDoc(record["title"], text, entities, types, pairs)


def relation_group(rel_type: str) -> str:
    """Which row a relation counts in: ``typed``, ``co-occurrence`` or ``about``."""
    from loregraph.models import ABOUT, CO_OCCURS

    if rel_type == CO_OCCURS:
        return "co-occurrence"
    if rel_type == ABOUT:
        return "about"
    return "typed"


async def _extract_all(extractor: Any, items: list[tuple[Any, list[Any]]]) -> list[Any]:
    """Extract documents in batches, the way the ingest pipeline calls an extractor."""
    out: list[Any] = []
    many = getattr(extractor, "extract_many", None)
    for i in range(0, len(items), BATCH):
        batch = items[i : i + BATCH]
        if many is not None and len(batch) > 1:
            outcome = many(batch)
            results = await outcome if inspect.isawaitable(outcome) else outcome
            out.extend(results)
        else:
            for source, chunks in batch:
                out.append(await extractor.extract(source, chunks))
    return out


def predict(result: Any, n_chunks: int, settings: Any) -> Predicted:
    """Run normalise → cluster → select → relate on one extraction result."""
    from loregraph.ingest.extract.select import select_entities
    from loregraph.ingest.relate import build_relations, surface_index
    from loregraph.ingest.resolve.entities import cluster_candidates
    from loregraph.models import Entity
    from loregraph.text.entity_types import normalize_type

    for cand in result.entities:
        cand.type = normalize_type(cand.type)
    clustered, records = cluster_candidates(result.entities)
    selection = select_entities(clustered, settings.extraction)
    names: dict[str, set[str]] = {}
    entities: dict[str, Entity] = {}
    for node in selection.nodes:
        entity = Entity(id=Entity.make_id(SCOPE, node.name), name=node.name, type=node.type)
        entities[node.name] = entity
        bucket = names.setdefault(entity.id, set())
        bucket.add(node.name)
        bucket.update(occ.surface for occ in node.occurrences)
    for surface, canonical, _rule in records:
        if canonical in entities:
            names[entities[canonical].id].add(surface)
    order = {entity_id: i for i, entity_id in enumerate(names)}
    chunk_ids = [f"chunk-{i}" for i in range(n_chunks)]
    surfaces = surface_index(clustered, records)
    relations, _dropped = build_relations(result.relations, surfaces, entities, chunk_ids, SCOPE)
    pairs: dict[str, list[tuple[int, int]]] = {"typed": [], "co-occurrence": [], "about": []}
    for rel in relations:
        pair = (order[rel.source_id], order[rel.target_id])
        pairs.setdefault(relation_group(rel.type), []).append(pair)
    pairs["all"] = [p for group in ("typed", "co-occurrence", "about") for p in pairs[group]]
    return Predicted([name_keys(n) for n in names.values()], pairs)


def score(golds: Sequence[GoldDoc], preds: Sequence[Predicted]) -> dict[str, Any]:
    """Micro-averaged entity and pair P/R/F1, and gold-entity recall per gold type."""
    entity_total = PRF()
    pair_totals: dict[str, PRF] = {}
    type_found: dict[str, list[int]] = {}
    for gold, pred in zip(golds, preds, strict=True):
        links, prf = match_entities(pred.entities, gold.entities)
        entity_total.add(prf)
        found = set().union(*links) if links else set()
        for gi, gtype in enumerate(gold.entity_types):
            bucket = type_found.setdefault(gtype, [0, 0])
            bucket[0] += gi in found
            bucket[1] += 1
        for group, pairs in pred.pairs.items():
            pair_totals.setdefault(group, PRF()).add(match_pairs(pairs, links, gold.pairs))
    return {
        "entities": entity_total.as_dict(),
        "relation_pairs": {g: p.as_dict() for g, p in pair_totals.items()},
        "entity_recall_by_gold_type": {
            t: {"recall": round(100 * f / n, 2), "gold": n}
            for t, (f, n) in sorted(type_found.items())
        },
    }


def run(options: RunOptions) -> dict[str, Any]:
    """Run the extraction benchmark; returns figures and configuration."""
    from loregraph.ingest.chunk.chunker import chunk_text
    from loregraph.ingest.extract.offline import OfflineExtractor
    from loregraph.ingest.types import SourceDocument
    from loregraph.settings import Settings

    limit = QUICK_DOCS if options.quick else FULL_DOCS
    golds = load_docs(limit)
    settings = Settings(scope=SCOPE)
    log(f"extraction: {len(golds)} Re-DocRED documents")
    started = time.perf_counter()
    extractor = OfflineExtractor(settings.extraction)
    warm = SourceDocument(title="Warm-up", text="Ada Lovelace lived in London.", source="warm")
    asyncio.run(extractor.extract(warm, list(chunk_text(warm.text, settings.chunk))))
    load_seconds = time.perf_counter() - started  # model load, outside the extraction time
    items = []
    for i, gold in enumerate(golds):
        source = SourceDocument(title=gold.title, text=gold.text, source=f"re_docred#{i}")
        items.append((source, list(chunk_text(gold.text, settings.chunk))))
    started = time.perf_counter()
    results = asyncio.run(_extract_all(extractor, items))
    extract_seconds = time.perf_counter() - started
    started = time.perf_counter()
    preds = [
        predict(r, len(chunks), settings) for r, (_s, chunks) in zip(results, items, strict=True)
    ]
    select_seconds = time.perf_counter() - started
    figures = score(golds, preds)
    figures["timing"] = {
        "extractor_load_seconds": round(load_seconds, 2),
        "extract_seconds": round(extract_seconds, 2),
        "normalise_select_relate_seconds": round(select_seconds, 2),
        "docs_per_second": round(len(golds) / extract_seconds, 2) if extract_seconds else None,
        "characters": sum(len(g.text) for g in golds),
    }
    figures["counts"] = {
        "documents": len(golds),
        "predicted_entities": sum(len(p.entities) for p in preds),
        "gold_entities": sum(len(g.entities) for g in golds),
    }
    from bench import agent_entities

    figures["agent_memory"] = agent_entities.run(options)["figures"]
    ent = figures["entities"]
    log(f"extraction: entity P {ent['precision']} R {ent['recall']} F1 {ent['f1']}")
    for group, prf in figures["relation_pairs"].items():
        log(
            f"extraction: {group} relation pairs P {prf['precision']} R {prf['recall']} "
            f"F1 {prf['f1']} ({prf['pred_total']} predicted)"
        )
    return {
        "figures": figures,
        "config": {
            "data": f"re_docred/dev_revised.json, first {len(golds)} documents",
            "extractor": f"{type(extractor).__module__}.{type(extractor).__name__}",
            "stages": "chunk → extract → normalize_type → cluster_candidates → select_entities "
            "→ surface_index/build_relations (no cross-document resolution)",
            "text": "sentence tokens joined with spaces, no space before closing punctuation",
            "entity_match": "a predicted entity (name, clustered surfaces, occurrence surfaces) "
            "matches a gold entity when any name_key equals any gold mention's name_key",
            "pair_match": "unordered (head, tail) pair of matched entities, label ignored",
            "averaging": "micro (counts summed over documents)",
            "extraction_settings": repr(settings.extraction),
            "chunk_settings": repr(settings.chunk),
            "agent_memory": "bench/data/memory/agent_entities.json, each memory remembered "
            "into a fresh scope of one store (bench/agent_entities.py); types mapped by "
            f"{agent_entities.TYPE_MAP}",
        },
    }

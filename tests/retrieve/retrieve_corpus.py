"""A small hand-made corpus written straight into a real SQLite store for retrieval tests.

Two documents in scope ``default`` (a ship, its crew and an island) and one in scope
``other`` that reuses a name, so scope isolation can be checked. Chunks are a few sentences
each with exact offsets; mentions are counted from the chunk text; relations are typed and
carry evidence; one entity (the Guild) is mentioned in every chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loregraph.embed.hashing import HashingEmbedder
from loregraph.models import (
    CO_OCCURS,
    Chunk,
    DocStatus,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Evidence,
    Mention,
    Relation,
    content_hash,
    stable_id,
)

VOYAGE = (
    "Captain Elena Varga commanded the Meridian, a merchant ship out of Port Calder. "
    "The Guild licensed every voyage she made. "
    "In the spring the Meridian sailed from Port Calder to the island of Osray. "
    "The Guild kept a copy of the manifest. "
    "Dr. Tomas Reyes served as the ship's surgeon on the Meridian. "
    "Varga trusted Reyes with the cargo ledger, and the Guild approved. "
    "A storm near the Kettle Reefs damaged the Meridian's mainmast. "
    "The Guild sent no help that season. "
    "Reyes set the broken arm of the cook while Varga steered through the reefs. "
    "The Guild later praised the crew. "
    "The Meridian reached Osray three days late. "
    "The Guild fined the ship for the delay."
)

OSRAY = (
    "Osray is a cold island north of the Calder coast. "
    "The Guild keeps an office in the harbour of Osray. "
    "Ines Mora tends the lighthouse on the northern cape of Osray. "
    "The Guild pays her wages in salt fish. "
    "Ines Mora is the sister of Tomas Reyes. "
    "The Guild records that she writes to him every winter. "
    "The Meridian arrives at Osray each autumn with grain and lamp oil. "
    "The Guild taxes the grain."
)

OTHER = (
    "The Meridian is a hotel in a mountain town. "
    "Guests of the Meridian praise its quiet gardens and its library."
)


@dataclass
class EntitySpec:
    name: str
    type: str
    description: str
    aliases: list[str] = field(default_factory=list)


ENTITIES = [
    EntitySpec("Elena Varga", "Person", "Captain of the merchant ship Meridian", ["Varga"]),
    EntitySpec("Meridian", "Product", "A merchant ship out of Port Calder", ["The Meridian"]),
    EntitySpec("Port Calder", "Location", "Home port of the Meridian"),
    EntitySpec("Osray", "Location", "A cold island north of the Calder coast"),
    EntitySpec("Tomas Reyes", "Person", "Surgeon on the Meridian", ["Reyes", "Dr. Reyes"]),
    EntitySpec("Ines Mora", "Person", "Lighthouse keeper on Osray, sister of Tomas Reyes"),
    EntitySpec("Kettle Reefs", "Location", "Reefs where a storm damaged the Meridian"),
    EntitySpec("Guild", "Organization", "The body that licenses and taxes voyages"),
    EntitySpec("grain", "Product", "Cargo the Meridian carries to Osray"),
]

RELATIONS = [
    ("Elena Varga", "COMMANDS", "Meridian", "Captain Elena Varga commanded the Meridian"),
    ("Meridian", "SAILS_TO", "Osray", "the Meridian sailed from Port Calder to the island"),
    ("Meridian", "DEPARTS_FROM", "Port Calder", "the Meridian sailed from Port Calder"),
    ("Tomas Reyes", "SERVES_ON", "Meridian", "Dr. Tomas Reyes served as the ship's surgeon"),
    ("Ines Mora", "SISTER_OF", "Tomas Reyes", "Ines Mora is the sister of Tomas Reyes"),
    ("Elena Varga", "TRUSTS", "Tomas Reyes", "Varga trusted Reyes with the cargo ledger"),
    ("Elena Varga", CO_OCCURS, "Tomas Reyes", ""),
    ("Meridian", CO_OCCURS, "Kettle Reefs", ""),
    ("Ines Mora", "LIVES_ON", "Osray", "Ines Mora tends the lighthouse"),
]

SENTENCE = re.compile(r"[^.]*\.\s*")


def chunk_spans(text: str, per_chunk: int = 2) -> list[tuple[int, int]]:
    """Spans of consecutive groups of ``per_chunk`` sentences (no overlap)."""
    bounds = [m.span() for m in SENTENCE.finditer(text)]
    spans = []
    for i in range(0, len(bounds), per_chunk):
        group = bounds[i : i + per_chunk]
        spans.append((group[0][0], group[-1][1]))
    return spans


def _count(surface: str, text: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(surface)}(?!\w)", text))


def build_bundle(
    scope: str,
    title: str,
    source: str,
    text: str,
    embedder: HashingEmbedder,
    *,
    entity_specs: list[EntitySpec] | None = None,
    relations: list[tuple[str, str, str, str]] | None = None,
) -> DocumentBundle:
    """A bundle for ``text``: chunks, the entities it mentions, mentions and relations."""
    entity_specs = ENTITIES if entity_specs is None else entity_specs
    relations = RELATIONS if relations is None else relations
    doc_id = stable_id("doc", scope, source)
    document = Document(
        id=doc_id,
        title=title,
        content_hash=content_hash(text),
        scope=scope,
        source=source,
        status=DocStatus.DONE,
        char_count=len(text),
    )
    spans = chunk_spans(text)
    vectors = embedder.embed([text[a:b] for a, b in spans])
    chunks = [
        Chunk(
            id=stable_id("chk", doc_id, str(seq)),
            document_id=doc_id,
            seq=seq,
            start=a,
            end=b,
            text=text[a:b],
            token_count=len(text[a:b].split()),
            embedding=vectors[seq],
        )
        for seq, (a, b) in enumerate(spans)
    ]
    mentions: list[Mention] = []
    present: dict[str, EntitySpec] = {}
    for spec in entity_specs:
        for chunk in chunks:
            counts = {s: _count(s, chunk.text) for s in [spec.name, *spec.aliases]}
            # an alias contained in the name ("Varga" in "Elena Varga") is counted once
            total = counts[spec.name] + sum(
                max(0, c - counts[spec.name]) for s, c in counts.items() if s != spec.name
            )
            if total:
                present[spec.name] = spec
                mentions.append(
                    Mention(Entity.make_id(scope, spec.name), chunk.id, spec.name, total)
                )
    ent_vectors = embedder.embed([f"{s.name} {s.type} {s.description}" for s in present.values()])
    entities = [
        EntityWrite(
            entity=Entity(
                id=Entity.make_id(scope, spec.name),
                name=spec.name,
                type=spec.type,
                scope=scope,
                description=spec.description,
                aliases=list(spec.aliases),
                embedding=ent_vectors[i],
            ),
            description=spec.description,
            salience=3.0,
        )
        for i, spec in enumerate(present.values())
    ]
    rels: list[Relation] = []
    for source_name, rel_type, target_name, sentence in relations:
        if source_name not in present or target_name not in present:
            continue
        evidence = [
            Evidence(chunk.id, sentence)
            for chunk in chunks
            if (sentence and sentence in chunk.text)
            or (not sentence and source_name in chunk.text and target_name.split()[0] in chunk.text)
        ]
        if not evidence:
            evidence = [Evidence(chunks[0].id, sentence)]
        src, dst = Entity.make_id(scope, source_name), Entity.make_id(scope, target_name)
        rels.append(
            Relation(
                id=Relation.make_id(scope, src, rel_type, dst),
                source_id=src,
                target_id=dst,
                type=rel_type,
                scope=scope,
                fact=sentence,
                weight=float(len(evidence)),
                evidence=evidence,
            )
        )
    return DocumentBundle(document, chunks, entities, mentions, rels)


async def build_store(path: Path, embedder: HashingEmbedder) -> object:
    """Open a SQLite store at ``path`` and write the corpus into it."""
    from loregraph.store.sqlite import SqliteStore

    store = SqliteStore(path)
    await store.open()
    await store.write_document(
        build_bundle("default", "The Voyage of the Meridian", "voyage.txt", VOYAGE, embedder)
    )
    await store.write_document(
        build_bundle("default", "Osray Chronicles", "osray.txt", OSRAY, embedder)
    )
    await store.write_document(
        build_bundle(
            "other",
            "Hotel Meridian",
            "hotel.txt",
            OTHER,
            embedder,
            entity_specs=[EntitySpec("Meridian", "Organization", "A hotel in a mountain town")],
            relations=[],
        )
    )
    return store


def sample_result(
    question: str = "Where did the Meridian sail from Port Calder?", intent: str = "factual"
) -> Any:
    """A hand-built RetrievalResult over the voyage text (no store needed)."""
    from loregraph.retrieve.results.result import (
        Passage,
        QueryAnalysis,
        RankedEntity,
        RankedRelation,
        RetrievalResult,
        StartEntity,
    )
    from loregraph.retrieve.results.trace import RetrievalTrace
    from loregraph.text.words import content_words

    scope = "default"
    doc_id = stable_id("doc", scope, "voyage.txt")
    by_name = {
        spec.name: Entity(
            id=Entity.make_id(scope, spec.name),
            name=spec.name,
            type=spec.type,
            description=spec.description,
            aliases=list(spec.aliases),
        )
        for spec in ENTITIES
    }
    order = ["Meridian", "Port Calder", "Osray", "Elena Varga", "Tomas Reyes", "Kettle Reefs"]
    entities = [
        RankedEntity(by_name[n], score=2.0 - i * 0.2, hop=0 if i < 2 else 1, is_start=i < 2)
        for i, n in enumerate(order)
    ]
    relations = []
    for i, (s, t, d, fact) in enumerate(RELATIONS):
        if s in order and d in order:
            rel = Relation(
                id=f"rel{i}",
                source_id=by_name[s].id,
                target_id=by_name[d].id,
                type=t,
                fact=fact,
            )
            relations.append(RankedRelation(rel, s, d, score=1.0 - i * 0.05))
    passages = [
        Passage(
            chunk_id=stable_id("chk", doc_id, str(seq)),
            document_id=doc_id,
            document_title="The Voyage of the Meridian",
            seq=seq,
            start=a,
            end=b,
            text=VOYAGE[a:b],
            score=1.0 / (seq + 1),
            found_by=["bm25"],
            document_source="voyage.txt",
        )
        for seq, (a, b) in enumerate(chunk_spans(VOYAGE))
    ]
    passages.sort(key=lambda p: (p.seq != 1, p.seq))
    named = [name for name in by_name if name in question]
    analysis = QueryAnalysis(
        question=question,
        intent=intent,
        candidates=named,
        matched={name: by_name[name].id for name in named},
        keywords=content_words(question),
    )
    trace = RetrievalTrace()
    trace.record("total", 1.0, len(passages))
    return RetrievalResult(
        question=question,
        scope=scope,
        preset="hybrid",
        analysis=analysis,
        start_entities=[StartEntity(by_name[name], 1.0, ["exact"]) for name in named],
        entities=entities,
        relations=relations,
        passages=passages,
        trace=trace,
    )


class NoEntities:
    """An extractor that finds nothing: documents are stored as chunks only."""

    name = "none"

    async def extract(self, document: Any, chunks: list[Any]) -> Any:
        from loregraph.ingest.types import ExtractionResult

        return ExtractionResult()


async def retrieve_from_chunks(path: Path, documents: list[Any], question: str) -> Any:
    """``question`` retrieved (preset ``hybrid``) from a SQLite store at ``path`` holding
    ``documents`` (``SourceDocument``), ingested as chunks only."""
    from loregraph.ingest.pipeline import IngestPipeline
    from loregraph.retrieve.pipeline import Retriever
    from loregraph.settings import PRESETS, Settings
    from loregraph.store.sqlite import SqliteStore

    embedder = HashingEmbedder(dim=256)
    async with SqliteStore(path) as store:
        pipeline = IngestPipeline(store, NoEntities(), embedder, Settings())
        assert (await pipeline.ingest(documents)).ok
        return await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(question, "default")

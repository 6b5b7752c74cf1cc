"""The pipeline resolves a batch of documents exactly as it would resolve them one by one.

Documents of one batch are extracted and embedded together (chunks and the entity texts
resolution will likely need, in one embedder call), then resolved and written one at a time:
a later document of the batch must still see what an earlier one wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.pipeline import IngestPipeline, document_id
from loregraph.ingest.types import (
    CandidateEntity,
    CandidateRelation,
    ExtractionResult,
    Occurrence,
    SourceDocument,
    TextChunk,
)
from loregraph.settings import ResolutionSettings, Settings
from loregraph.store.sqlite import SqliteStore

# each document: (text, [(name, type, surfaces...)]); names repeat, vary and collide on purpose
DOCS: list[tuple[str, list[tuple[str, ...]]]] = [
    (
        "Jonathan Harker travelled to Whitby with Mina Murray.",
        [("Jonathan Harker", "PERSON"), ("Whitby", "GPE"), ("Mina Murray", "PERSON")],
    ),
    (
        "Mr. Jonathan Harker wrote from Whitby Abbey.",
        [("Jonathan Harker", "PERSON", "Mr. Jonathan Harker"), ("Whitby Abbey", "FAC")],
    ),
    (
        "Jonathon Harker and Dr. John Seward met at Whitby.",
        [("Jonathon Harker", "PERSON"), ("John Seward", "PERSON", "Dr. Seward"), ("Whitby", "GPE")],
    ),
    (
        "Dr. Seward kept a diary about Mina Murray.",
        [("Dr. Seward", "PERSON"), ("Mina Murray", "PERSON")],
    ),
    (
        "Harker Jonathan signed a letter to the Whitby harbour master.",
        [("Harker Jonathan", "PERSON"), ("Whitby harbour", "GPE")],
    ),
    (
        "Mina Muray answered from the Whitby harbour.",
        [("Mina Muray", "PERSON"), ("Whitby harbour", "GPE")],
    ),
]


class ScriptedExtractor:
    """Returns the scripted candidates of each document (by its text)."""

    name = "scripted"

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        specs = dict(DOCS)[document.text]
        entities = [
            CandidateEntity(
                name=spec[0],
                type=spec[1],
                description=document.text,
                salience=3.0,
                mentions=len(spec) - 1,
                occurrences=[Occurrence(0, s) for s in (spec[0], *spec[2:])],
            )
            for spec in specs
        ]
        relations = [CandidateRelation(specs[0][0], spec[0], "MENTIONS_WITH") for spec in specs[1:]]
        return ExtractionResult(entities=entities, relations=relations)


class RecordingEmbedder(HashingEmbedder):
    """A hashing embedder that remembers every text it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.extend(texts)
        return super().embed(texts)


def sources() -> list[SourceDocument]:
    return [
        SourceDocument(title=f"Doc {i}", text=t, source=f"d{i}") for i, (t, _) in enumerate(DOCS)
    ]


async def graph(store: SqliteStore) -> dict[str, Any]:
    entities = [e async for e in store.iter_entities("default")]
    merges = await store.list_merges("default")
    names = {e.id: e.name for e in entities}
    vectors = await store.entity_embeddings([e.id for e in entities])
    relations = [r async for r in store.iter_relations("default")]
    return {
        "entities": sorted(
            (e.name, e.type, tuple(sorted(e.aliases)), e.mention_count) for e in entities
        ),
        "merges": sorted((names[m.entity_id], m.surface, m.rule) for m in merges),
        "relations": sorted(
            (names[r.source_id], r.type, names[r.target_id], r.weight) for r in relations
        ),
        "vectors": {names[i]: v.round(5).tolist() for i, v in vectors.items()},
    }


LOOSE = ResolutionSettings(fuzzy_threshold=0.6, embedding_threshold=0.6)


@pytest.mark.parametrize("settings", [Settings(), Settings(resolution=LOOSE)])
async def test_a_batch_resolves_like_documents_one_at_a_time(
    tmp_path: Path, settings: Settings
) -> None:
    async with SqliteStore(tmp_path / "batch.db") as store:
        embedder = RecordingEmbedder()
        pipeline = IngestPipeline(store, ScriptedExtractor(), embedder, settings)
        report = await pipeline.ingest(sources())
        assert report.ingested == len(DOCS) and report.ok
        together = await graph(store)
        assert len(embedder.texts) == len(set(embedder.texts))  # no text embedded twice
    async with SqliteStore(tmp_path / "single.db") as store:
        pipeline = IngestPipeline(store, ScriptedExtractor(), HashingEmbedder(), settings)
        for source in sources():
            assert (await pipeline.ingest([source])).ok
        apart = await graph(store)
    assert together == apart
    names = [name for name, *_ in together["entities"]]
    assert names.count("Jonathan Harker") == 1  # doc 2 links to what doc 1 wrote
    assert any(surface == "Dr. Seward" for _, surface, _ in together["merges"])
    if settings.resolution is LOOSE:  # a later document links to an earlier one's entity
        assert ("Mina Murray", "Mina Muray", "fuzzy") in together["merges"]


async def test_a_document_failing_in_a_batch_leaves_the_others(tmp_path: Path) -> None:
    class Failing(ScriptedExtractor):
        async def extract(
            self, document: SourceDocument, chunks: list[TextChunk]
        ) -> ExtractionResult:
            if document.source == "d1":
                raise ValueError("cannot read this one")
            return await super().extract(document, chunks)

    async with SqliteStore(tmp_path / "fail.db") as store:
        pipeline = IngestPipeline(store, Failing(), HashingEmbedder(), Settings())
        report = await pipeline.ingest(sources())
        assert [f.source for f in report.failed] == ["d1"]
        assert report.ingested == len(DOCS) - 1
        assert await store.get_document(document_id("default", "d1")) is None
        assert await store.get_document(document_id("default", "d2")) is not None

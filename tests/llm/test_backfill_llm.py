"""Backfill after configuring a model: documents ingested offline are extracted again by the
model (its entities replace spaCy's), once; a second run makes no call."""

from __future__ import annotations

import json
from pathlib import Path

from loregraph import AsyncGraph, ChunkSettings, LLMSettings, Settings
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.extract.llm import ENTITY_STAGE
from loregraph.ingest.pipeline import EXTRACTED_BY
from loregraph.store.sqlite import SqliteStore

from .fake_server import Call, FakeLLMServer, Reply

TEXTS = {
    "Lake": "Every summer the family drove to the lake house at Pine Hollow.",
    "Boat": "Uncle Jim taught the children to sail on the lake at Pine Hollow.",
}


def _reply(call: Call) -> Reply:
    if "Uncle Jim" in call.last_user:
        entity = {"name": "Uncle Jim", "type": "Person", "description": "an uncle", "salience": 5}
    else:
        entity = {"name": "Pine Hollow", "type": "Location", "description": "a lake", "salience": 5}
    return Reply(json.dumps({"entities": [{**entity, "mentions": 1, "confidence": 0.9}]}))


async def test_a_model_configured_later_extracts_the_stored_documents_once(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    db = tmp_path / "family.db"
    offline = AsyncGraph(SqliteStore(db), embedder=HashingEmbedder())
    for title, text in TEXTS.items():
        await offline.ingest_text(text, title=title)
    await offline.close()

    server.responder = _reply
    llm = LLMSettings(provider="openai", model="fake-gpt", base_url=server.url, api_key="k")
    settings = Settings(chunk=ChunkSettings(mega_batch_chars=20_000), llm=llm)
    graph = AsyncGraph(SqliteStore(db), settings=settings, embedder=HashingEmbedder())
    try:
        report = await graph.backfill()
        assert report.ok and report.processed == 2 and report.extractor == "llm:fake-gpt"
        assert report.llm[ENTITY_STAGE].calls >= 2
        marks = {d.metadata[EXTRACTED_BY] for d in await graph.documents()}
        assert marks == {"llm:fake-gpt"}
        names = {e.name for e in await graph.explore.entities()}
        assert "Uncle Jim" in names and "Pine Hollow" in names
        calls = len(server.chat_calls())
        again = await graph.backfill()
        assert again.processed == 0 and again.current == 2 and not again.llm
        assert len(server.chat_calls()) == calls
    finally:
        await graph.close()

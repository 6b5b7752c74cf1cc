"""A weak model (as Gemma 3 270M behind llama.cpp answered): replies that stay unusable after
the corrective retry are extracted offline instead, and the report says so."""

from __future__ import annotations

from pathlib import Path

from loregraph import AsyncGraph, ChunkSettings, LLMSettings, Settings
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.extract.llm import ENTITY_STAGE, RELATION_STAGE, LLMExtractor
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.types import SourceDocument
from loregraph.llm.client import LLMClient
from loregraph.store.sqlite import SqliteStore

from .fake_server import Call, FakeLLMServer, Reply
from .recorded import QUESTION, BookResponder, RecordedReplies

EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"
BATCH_CHARS = 20_000
NAMELESS = (
    '{"entities": [{"type": "person", "description": "the traveller who writes the journal"},'
    ' {"type": "place", "description": "a castle"}]}'
)
"""What the model wrote for the entity pass, before and after the corrective retry."""


def weak(call: Call) -> Reply:
    """Entity replies without names and empty relationship replies, every time."""
    if "entity extraction" in call.system:
        return Reply(NAMELESS)
    return Reply("{}")


def pipeline(store: SqliteStore, client: LLMClient, *, fallback: bool = True) -> IngestPipeline:
    settings = Settings()
    extractor = LLMExtractor(
        client,
        settings.extraction,
        mega_batch_chars=BATCH_CHARS,
        fallback=OfflineExtractor(settings.extraction) if fallback else None,
    )
    return IngestPipeline(store, extractor, HashingEmbedder(), settings)


async def names_in(store: SqliteStore) -> set[str]:
    return {e.name for e in await store.list_entities("default", limit=1000)}


async def test_unusable_replies_are_extracted_offline_and_reported(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument
) -> None:
    server.responder = weak
    client = make_client()
    report = await pipeline(store, client).ingest([book])
    assert report.ok and report.ingested == 1, report.failed
    entities = client.usage.stage(ENTITY_STAGE)
    relations = client.usage.stage(RELATION_STAGE)
    assert entities.fallbacks == 3 and entities.corrections == 3  # three batches, each retried
    assert relations.fallbacks == 3
    found = await names_in(store)
    assert {"Jonathan Harker", "Bistritz"} <= found  # named by spaCy in the text
    assert report.relations > 0
    assert "3 done offline" in client.usage.summary()


COPIED_ENTITIES = (
    '{\n  "entities": [\n    {\n      "name": "Entity name",\n      "type": '
    '"Person|Organization|Location|Product|Concept|Event|Role",\n      "description": '
    '"Brief description",\n      "aliases": ["Other name"],\n      "salience": 5,\n      '
    '"mentions": 10,\n      "confidence": 0.9\n    }\n  ]\n  }\n  '
)
COPIED_RELATIONS = (
    '{\n  "relationships": [\n    {\n      "source": "Entity name",\n      "target": '
    '"Entity name",\n      "type": "RELATIONSHIP_TYPE",\n      "fact": "One sentence",\n'
    '      "evidence": "verbatim quote",\n      "confidence": 0.9\n    }\n  ]\n  }\n  '
)
"""What Gemma 3 270M (base) answered through llama.cpp: the prompt's example, copied."""


async def test_a_reply_with_nothing_in_the_text_is_done_offline(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument
) -> None:
    server.responder = lambda call: Reply(
        COPIED_ENTITIES if "entity extraction" in call.system else COPIED_RELATIONS
    )
    client = make_client()
    report = await pipeline(store, client).ingest([book])
    assert report.ok, report.failed
    entities = client.usage.stage(ENTITY_STAGE)
    assert entities.corrections == 0 and entities.failures == 0  # valid JSON, nothing true
    assert entities.fallbacks == 3 and entities.notes["entities_ungrounded"] == 3
    assert client.usage.stage(RELATION_STAGE).fallbacks == 3  # every relation named no one
    assert report.relations > 0
    found = await names_in(store)
    assert "Entity name" not in found and {"Jonathan Harker", "Bistritz"} <= found


async def test_only_the_batch_that_stays_unusable_falls_back(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument
) -> None:
    recorded = RecordedReplies()
    weak_batch = "Van Helsing made a very careful examination"

    def responder(call: Call) -> Reply:
        first_user = next(m["content"] for m in call.messages if m["role"] == "user")
        if "entity extraction" in call.system and weak_batch in first_user:
            return Reply(NAMELESS)
        return recorded(call)

    server.responder = responder
    client = make_client()
    report = await pipeline(store, client).ingest([book])
    assert report.ok, report.failed
    assert client.usage.stage(ENTITY_STAGE).fallbacks == 1
    assert client.usage.stage(RELATION_STAGE).fallbacks == 0
    found = await names_in(store)
    assert {"Golden Krone Hotel", "Borgo Pass"} <= found  # from the model's replies
    # the third batch was done by spaCy, which names him as the text does
    assert "Van Helsing" in found and "Abraham Van Helsing" not in found


async def test_without_a_fallback_the_document_still_fails(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument
) -> None:
    server.responder = weak
    report = await pipeline(store, make_client(), fallback=False).ingest([book])
    assert report.ingested == 0 and "could not be used" in report.failed[0].error


async def test_the_engine_falls_back_offline_and_says_so(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = weak
    llm = LLMSettings(provider="openai", model="gemma", base_url=server.url, api_key="k")
    settings = Settings(chunk=ChunkSettings(mega_batch_chars=BATCH_CHARS), llm=llm)
    graph = AsyncGraph(
        SqliteStore(tmp_path / "g.db"), settings=settings, embedder=HashingEmbedder()
    )
    try:
        report = await graph.ingest(EXCERPT)
        assert report.ok and report.ingested == 1, report.failed
        assert report.llm[ENTITY_STAGE].fallbacks == 3
        assert report.to_dict()["llm"][ENTITY_STAGE]["fallbacks"] == 3
        summary = report.summary()
        assert "extract.entities:" in summary and "3 done offline" in summary
        stats = await graph.stats()
        assert stats.entities > 0
    finally:
        await graph.close()


WEAK_ANSWER = (
    "Count Dracula welcomed Jonathan Harker to his castle [1].\n"
    "[56] dracula, chunk 20 (characters 45012–46011)\n"
    + "He said: I bid you welcome, Mr. Harker, to my house [1].\n"
    * 30
)


async def test_ask_and_its_stream_guard_a_weak_models_answer_alike(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    responder = BookResponder()

    def weak_answers(call: Call) -> Reply:
        if "You answer questions" in call.system:
            return Reply(WEAK_ANSWER)
        return responder(call)

    server.responder = weak_answers
    llm = LLMSettings(provider="openai", model="gemma", base_url=server.url, api_key="k")
    settings = Settings(chunk=ChunkSettings(mega_batch_chars=BATCH_CHARS), llm=llm)
    graph = AsyncGraph(
        SqliteStore(tmp_path / "g.db"), settings=settings, embedder=HashingEmbedder()
    )
    try:
        assert (await graph.ingest(EXCERPT)).ok
        stream = graph.ask_stream(QUESTION)
        streamed = "".join([piece async for piece in stream])
        asked = await graph.ask(QUESTION)
        assert stream.answer is not None and streamed == stream.answer.text == asked.text
        assert "[56]" not in asked.text and asked.text.count("I bid you welcome") == 1
        assert "began repeating itself" in asked.text
        assert [c.index for c in asked.citations] == [1]
    finally:
        await graph.close()

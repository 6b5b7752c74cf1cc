"""A small book ingested with an LLM extractor against the fake server's recorded replies."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.extract.llm import ENTITY_STAGE, RELATION_STAGE, LLMExtractor
from loregraph.ingest.pipeline import IngestPipeline
from loregraph.ingest.types import SourceDocument
from loregraph.llm.cache import SqliteResponseCache
from loregraph.llm.client import LLMClient
from loregraph.settings import Settings
from loregraph.store.sqlite import SqliteStore

from .fake_server import FakeLLMServer, Reply
from .recorded import RecordedReplies

BATCH_CHARS = 20_000
EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"


def pipeline(store: SqliteStore, client: LLMClient) -> IngestPipeline:
    settings = Settings()
    extractor = LLMExtractor(client, settings.extraction, mega_batch_chars=BATCH_CHARS)
    return IngestPipeline(store, extractor, HashingEmbedder(), settings)


async def graph_of(store: SqliteStore) -> tuple[set[str], set[tuple[str, str, str]]]:
    listed = await store.list_entities("default", limit=1000)
    by_id = {e.id: e.name for e in listed}
    relations = {
        (by_id[r.source_id], r.type, by_id[r.target_id])
        for r in await store.relations_among(list(by_id))
    }
    return set(by_id.values()), relations


async def test_book_ingest_repairs_drops_and_reports(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument, cache_file: Path
) -> None:
    recorded = RecordedReplies()
    server.responder = recorded
    client = make_client(cache=SqliteResponseCache(cache_file))
    report = await pipeline(store, client).ingest([book])

    assert report.ok, report.failed
    assert report.ingested == 1
    assert not recorded.unmatched
    entities, relations = await graph_of(store)
    assert {"Jonathan Harker", "Count Dracula", "Abraham Van Helsing", "Lucy Westenra"} <= entities
    assert "Mittel Land" not in entities  # confidence 0.5 < 0.7
    assert ("Count Dracula", "WELCOMES", "Jonathan Harker") in relations
    assert ("Borgo Pass", "LEADS_TO", "Bukovina") in relations
    assert ("Jonathan Harker", "TRAVELS_THROUGH", "Carpathians") in relations  # "Harkar" resolved
    assert ("Abraham Van Helsing", "LIVES_IN", "Amsterdam") in relations  # "Van Helsing" alias
    assert not any(r[2] == "London" and r[1] == "BUYS_ESTATE_IN" for r in relations)

    entity_usage = client.usage.stage(ENTITY_STAGE)
    relation_usage = client.usage.stage(RELATION_STAGE)
    assert entity_usage.calls == 3
    assert entity_usage.repairs == 3  # code fence, prose + trailing commas, single quotes
    assert entity_usage.notes["entities_low_confidence"] == 1
    assert entity_usage.notes["entities_invalid"] == 1  # a lower-case common noun
    assert entity_usage.notes["entities_ungrounded"] == 1  # listed for a batch not naming it
    assert relation_usage.calls == 4  # three batches + one corrective retry
    assert relation_usage.corrections == 1
    assert relation_usage.repairs == 1  # the truncated reply
    # "Hotel Royale" is no entity; "Golden Krone Hotel" is mentioned once, so it is not core
    assert relation_usage.notes["relations_unknown_entity"] == 2
    assert relation_usage.notes["relations_low_confidence"] == 1
    assert relation_usage.notes["relations_self"] == 1
    assert relation_usage.notes["relations_resolved"] == 1  # the misspelt "Jonathan Harkar"
    assert relation_usage.prompt_tokens > 0 and relation_usage.completion_tokens > 0
    summary = client.usage.summary()
    assert (
        "repaired" in summary and "corrected" in summary and "relations unknown entity" in summary
    )

    # A re-run into a fresh store with the same cache costs no calls and builds the same graph.
    server.reset_counts()
    again = make_client(cache=SqliteResponseCache(cache_file))
    other = SqliteStore(cache_file.parent / "again.db")
    await other.open()
    try:
        second = await pipeline(other, again).ingest([book])
        assert second.ok
        assert server.chat_calls() == []
        assert again.usage.total().calls == 0
        assert again.usage.total().cached == 7
        assert await graph_of(other) == (entities, relations)
    finally:
        await other.close()


async def test_interrupted_ingest_resumes_without_repeating_calls(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument, cache_file: Path
) -> None:
    recorded = RecordedReplies()
    stall = "Van Helsing made a very careful examination"

    def stalling(call):  # the last entity batch never answers: the ingest is interrupted
        if "entity extraction" in call.system and stall in call.last_user:
            return Reply(delay=60)
        return recorded(call)

    server.responder = stalling
    cache = SqliteResponseCache(cache_file)
    task = asyncio.create_task(pipeline(store, make_client(cache=cache)).ingest([book]))
    for _ in range(500):
        if len(cache) >= 2:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(cache) == 2
    first_run = {c.prompt_hash for c in server.chat_calls()}

    server.responder = recorded
    server.reset_counts()
    report = await pipeline(store, make_client(cache=SqliteResponseCache(cache_file))).ingest(
        [book]
    )
    assert report.ok and report.ingested == 1
    second_run = [c.prompt_hash for c in server.chat_calls()]
    answered_before = first_run - {
        c.prompt_hash for c in server.chat_calls() if stall in c.last_user
    }
    assert not answered_before & set(second_run)
    assert len(second_run) == len(set(second_run))
    assert len(second_run) == 5  # the stalled entity batch, then the relationship pass (3 + 1)


async def test_failed_calls_fail_the_document_and_the_next_run_retries_them(
    server: FakeLLMServer, make_client, store: SqliteStore, book: SourceDocument, cache_file: Path
) -> None:
    recorded = RecordedReplies()
    broken = "I bid you welcome, Mr. Harker"

    def failing(call):
        if "relationship extraction" in call.system and broken in call.last_user:
            return Reply(status=500, error="upstream model crashed")
        return recorded(call)

    server.responder = failing
    client = make_client(cache=SqliteResponseCache(cache_file), max_retries=1)
    report = await pipeline(store, client).ingest([book])
    assert report.ingested == 0
    assert len(report.failed) == 1
    message = report.failed[0].error
    assert "LLM extraction failed" in message and "relationships pass" in message
    assert "upstream model crashed" in message and "retried on the next run" in message
    assert await store.list_documents("default") == []
    assert client.usage.stage(RELATION_STAGE).failures == 1
    assert client.usage.stage(RELATION_STAGE).retries == 1

    server.responder = recorded
    server.reset_counts()
    report = await pipeline(store, make_client(cache=SqliteResponseCache(cache_file))).ingest(
        [book]
    )
    assert report.ok and report.ingested == 1
    assert len(server.chat_calls()) == 1  # only the call that failed is made again
    assert broken in server.chat_calls()[0].last_user

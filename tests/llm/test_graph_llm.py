"""The engine with an LLM: ingest report, query analysis, streamed cited answers (async and
blocking), objects passed in, and the offline path left alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import loregraph
from loregraph import AsyncGraph, ChunkSettings, LLMSettings, ResolutionSettings, Settings
from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.extract.llm import ENTITY_STAGE, RELATION_STAGE, LLMExtractor
from loregraph.llm.cache import SqliteResponseCache
from loregraph.llm.client import LLMClient
from loregraph.llm.openai_client import OpenAIChat
from loregraph.llm.usage import UsageTracker
from loregraph.retrieve.question.llm_analyze import LLMQueryAnalysis
from loregraph.store.sqlite import SqliteStore

from .fake_server import Call, FakeLLMServer, Reply
from .recorded import ANSWER, QUESTION, BookResponder

EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"


def llm_settings(server: FakeLLMServer, **changes: object) -> Settings:
    llm = LLMSettings(provider="openai", model="fake-gpt", base_url=server.url, api_key="k")
    return Settings(
        chunk=ChunkSettings(mega_batch_chars=20_000), llm=llm.replace(**changes) if changes else llm
    )


async def test_ingest_reports_llm_usage_and_ask_streams_a_cited_answer(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    responder = BookResponder(flaky="Left Munich at 8:35")
    server.responder = responder
    db = tmp_path / "book.db"
    graph = AsyncGraph(SqliteStore(db), settings=llm_settings(server), embedder=HashingEmbedder())
    try:
        assert isinstance(graph.extractor, LLMExtractor)
        report = await graph.ingest(EXCERPT)
        assert report.ok and report.ingested == 1, report.failed
        entities = report.llm[ENTITY_STAGE]
        relations = report.llm[RELATION_STAGE]
        assert entities.retries == 1  # the 429, waited out
        assert entities.calls == 4 and relations.calls == 4  # 3 batches (+ retry / correction)
        assert entities.repairs == 3 and relations.corrections == 1
        # one more entity than the model gave is dropped: "Borgo Pass", listed for the
        # second batch, which never names it (ungrounded)
        assert entities.dropped == 3 and relations.dropped == 4
        summary = report.summary()
        assert (
            "LLM: 8 calls, 0 cached, 1 retried, 4 repaired, 1 corrected, 0 done offline, 7 dropped"
            in summary
        )
        assert "extract.relations:" in summary
        assert report.to_dict()["llm"][RELATION_STAGE]["dropped"] == 4
        assert (tmp_path / "book.db.llm-cache.sqlite").exists()

        stream = graph.ask_stream(QUESTION)
        pieces = [piece async for piece in stream]
        answer = stream.answer
        assert answer is not None and answer.llm
        assert len(pieces) > 3 and "".join(pieces) == answer.text
        assert answer.text.startswith(ANSWER)
        assert [c.index for c in answer.citations] == [1, 2]
        text = EXCERPT.read_text(encoding="utf-8")
        for citation in answer.citations:
            assert text[citation.start : citation.end] == citation.quote
        assert stream.retrieval is not None
        analysis = stream.retrieval.analysis
        assert isinstance(analysis, LLMQueryAnalysis) and analysis.source == "llm"
        assert analysis.intent == "relationship"
        assert responder.asked == ["query", "answer"]

        # asking again costs nothing: analysis and answer come from the cache
        server.reset_counts()
        again = await graph.ask(QUESTION)
        assert again.text == answer.text
        assert server.chat_calls() == []
        assert graph.usage is not None and graph.usage.stage("answer").cached == 1
    finally:
        await graph.close()


async def test_a_second_ingest_with_the_same_cache_makes_no_calls(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = BookResponder()
    cache = tmp_path / "shared-cache.sqlite"
    settings = llm_settings(server, cache_path=str(cache))
    for name in ("first.db", "second.db"):
        server.reset_counts()
        graph = AsyncGraph(
            SqliteStore(tmp_path / name), settings=settings, embedder=HashingEmbedder()
        )
        try:
            report = await graph.ingest(EXCERPT)
        finally:
            await graph.close()
        assert report.ok and report.ingested == 1
    assert server.chat_calls() == []
    total = sum(u.calls for u in report.llm.values())
    assert total == 0 and sum(u.cached for u in report.llm.values()) == 7
    assert "LLM: 0 calls, 7 cached" in report.summary()


def test_blocking_facade_streams_pieces(server: FakeLLMServer, tmp_path: Path) -> None:
    server.responder = BookResponder()
    usage = UsageTracker()
    with loregraph.open(
        tmp_path / "sync.db",
        settings=llm_settings(server),
        embedder=HashingEmbedder(),
        usage=usage,
    ) as graph:
        assert graph.ingest(EXCERPT).ok
        stream = graph.ask_stream(QUESTION, preset="local")
        pieces = list(stream)
        assert stream.answer is not None and "".join(pieces) == stream.answer.text
        assert stream.answer.citations and graph.usage is usage
        assert usage.stage("answer").calls == 1
        assert graph.ask(QUESTION, preset="local").text == stream.answer.text


async def test_objects_passed_in_are_used_and_left_open(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = BookResponder()
    chat = OpenAIChat("fake-gpt", base_url=server.url, api_key="k")
    client = LLMClient(chat, cache=SqliteResponseCache(":memory:"))
    graph = AsyncGraph(
        SqliteStore(tmp_path / "obj.db"), embedder=HashingEmbedder(), llm=client
    )  # settings say provider "none": the object wins
    await graph.open()
    assert graph.llm is client and graph.usage is client.usage
    assert isinstance(graph.extractor, LLMExtractor)
    await graph.close()
    # the caller's client still works after the engine closed
    reply = await client.complete(
        [loregraph.llm.Message("user", "How did Count Dracula welcome Jonathan Harker?")],
        stage="test",
    )
    assert reply.text == "{}"
    await client.aclose()

    wrapped = AsyncGraph(SqliteStore(tmp_path / "obj.db"), embedder=HashingEmbedder(), llm=chat)
    assert wrapped.llm is not None and wrapped.llm.model is chat
    await wrapped.close()


@pytest.mark.parametrize(("same", "merged"), [(True, 1), (False, 2)])
async def test_borderline_merges_are_confirmed_by_the_model(
    server: FakeLLMServer, tmp_path: Path, same: bool, merged: int
) -> None:
    def responder(call: Call) -> Reply:
        if "same real-world entity" in call.system:
            return Reply(json.dumps({"same": same, "confidence": 0.95}))
        name = "Carfax Abby" if "Abby" in call.last_user else "Carfax Abbey"
        entity = {"name": name, "type": "Location", "description": "an estate", "salience": 5}
        return Reply(json.dumps({"entities": [{**entity, "mentions": 2, "confidence": 0.9}]}))

    server.responder = responder
    settings = llm_settings(server, confirm_merges=True)
    settings = settings.replace(resolution=ResolutionSettings(fuzzy_threshold=0.6))
    graph = AsyncGraph(
        SqliteStore(tmp_path / "m.db"), settings=settings, embedder=HashingEmbedder()
    )
    try:
        await graph.ingest_text("Carfax Abbey is old. Carfax Abbey is near London.", title="One")
        await graph.ingest_text("Carfax Abby is empty. Carfax Abby has a chapel.", title="Two")
        assert graph.usage is not None
        assert graph.usage.stage("resolve.confirm").calls == 1
        assert len(await graph.explore.entities()) == merged
    finally:
        await graph.close()


async def test_prompts_are_overridden_from_a_directory(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.responder = BookResponder()
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "answer.system.txt").write_text(
        "You answer questions using only the context. Answer like a ship's log.", "utf-8"
    )
    graph = AsyncGraph(
        SqliteStore(tmp_path / "p.db"),
        settings=llm_settings(server, prompts_dir=str(prompts), query_analysis=False),
        embedder=HashingEmbedder(),
    )
    try:
        await graph.ingest(EXCERPT)
        server.reset_counts()
        answer = await graph.ask(QUESTION)
    finally:
        await graph.close()
    assert answer.llm and answer.text.startswith(ANSWER)
    (call,) = server.chat_calls()  # no query analysis call: it is switched off
    assert "ship's log" in call.system
    assert QUESTION in call.last_user  # the packaged user prompt is kept


def test_configuration_errors_are_clear() -> None:
    with pytest.raises(loregraph.ConfigError, match="model"):
        Settings.from_env({"LOREGRAPH_LLM_PROVIDER": "openai"})
    settings = Settings.from_env(
        {"LOREGRAPH_LLM_PROVIDER": "anthropic", "LOREGRAPH_LLM_MODEL": "claude-haiku-4-5"}
    )
    assert settings.llm.enabled and settings.llm.provider == "anthropic"


def test_offline_engine_loads_no_llm_code(tmp_path: Path) -> None:
    code = (
        "import sys, asyncio, loregraph\n"
        "from loregraph.embed.hashing import HashingEmbedder\n"
        "from loregraph.store.sqlite import SqliteStore\n"
        "async def main():\n"
        f"    g = loregraph.AsyncGraph(SqliteStore({str(tmp_path / 'x.db')!r}),\n"
        "        settings=loregraph.Settings.from_env({}), embedder=HashingEmbedder())\n"
        "    await g.open()\n"
        "    assert g.llm is None and g.usage is None\n"
        "    await g.close()\n"
        "asyncio.run(main())\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('loregraph.llm.', 'openai',"
        " 'anthropic')) and m != 'loregraph.llm.settings')\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)

"""LLM query analysis: intents and entities, with the offline analysis as fallback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from loregraph.retrieve.question.analyze import analyze_query
from loregraph.retrieve.question.llm_analyze import LLMQueryAnalysis, LLMQueryAnalyzer
from loregraph.store.sqlite import SqliteStore

from .fake_server import FakeLLMServer, Reply

QUESTION = "How is Mina Harker connected to the captain of the Demeter?"


@pytest.fixture()
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    db = SqliteStore(tmp_path / "q.db")
    await db.open()
    yield db
    await db.close()


async def test_model_intent_and_entities_are_used(server: FakeLLMServer, make_client, store):
    server.push(
        '{"intent": "relationship", "entities": ["Mina Harker", "Demeter", "Count Orlok"],'
        ' "confidence": 0.9}'
    )
    analyzer = LLMQueryAnalyzer(make_client())
    analysis = await analyzer(QUESTION, store, "default")
    assert isinstance(analysis, LLMQueryAnalysis)
    assert analysis.source == "llm" and analysis.fallback_reason is None
    assert analysis.intent == "relationship"
    assert analysis.llm_entities == ["Mina Harker", "Demeter"]  # not in the question: ignored
    assert {"Mina Harker", "Demeter"} <= set(analysis.candidates)
    assert "Count Orlok" not in analysis.candidates


async def test_unsure_model_falls_back_to_offline(server: FakeLLMServer, make_client, store):
    server.push('{"intent": "summary", "entities": ["Demeter"], "confidence": 0.3}')
    analysis = await LLMQueryAnalyzer(make_client())(QUESTION, store, "default")
    offline = await analyze_query(QUESTION, store, "default")
    assert analysis.source == "offline"
    assert "unsure" in (analysis.fallback_reason or "")
    assert (analysis.intent, analysis.candidates) == (offline.intent, offline.candidates)


async def test_failed_model_falls_back_to_offline(server: FakeLLMServer, make_client, store):
    server.push(Reply(status=500, error="model crashed"))
    analysis = await LLMQueryAnalyzer(make_client())(QUESTION, store, "default")
    assert analysis.source == "offline"
    assert "model crashed" in (analysis.fallback_reason or "")
    assert analysis.intent == "relationship"  # the rule-based intent
    assert len(server.chat_calls()) == 1  # no retries at query time


async def test_persona_intents_map_to_retrieval_intents(server: FakeLLMServer, make_client, store):
    server.push('{"intent": "spatial", "entities": ["Demeter"], "confidence": 0.8}')
    analyzer = LLMQueryAnalyzer(make_client(), persona=True)
    analysis = await analyzer("Where did the Demeter run aground?", store, "default")
    assert analysis.persona_intent == "spatial"
    assert analysis.intent == "factual"
    assert "cross_legacy" in server.chat_calls()[0].system

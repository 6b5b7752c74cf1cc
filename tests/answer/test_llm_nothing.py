"""With a language model configured, a question nothing in the store answers costs no answer
call: the engine says so itself (against the fake OpenAI-compatible server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llm.fake_server import Call, FakeLLMServer, Reply
from loregraph import AsyncGraph, LLMSettings, Settings
from loregraph.answer.extractive import NOTHING_FOUND
from loregraph.embed.hashing import HashingEmbedder


class Responder:
    """Answers query analysis and answer prompts; records which were asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, call: Call) -> Reply:
        if "You analyse a question" in call.system:
            self.asked.append("query")
            return Reply(json.dumps({"intent": "factual", "entities": [], "confidence": 0.9}))
        if "You answer questions" in call.system:
            self.asked.append("answer")
            return Reply("Ines Mora is the sister of Tomas Reyes [1].")
        self.asked.append("other")
        return Reply("{}")


async def test_nothing_relevant_asks_no_model_for_an_answer(
    store: Any, embedder: HashingEmbedder, tmp_path: Path
) -> None:
    responder = Responder()
    with FakeLLMServer(responder) as server:
        llm = LLMSettings(
            provider="openai",
            model="fake-gpt",
            base_url=server.url,
            api_key="k",
            cache_path=str(tmp_path / "cache.sqlite"),
        )
        graph = AsyncGraph(store, settings=Settings(llm=llm), embedder=embedder)
        try:
            answer = await graph.ask("zzzzqqq xyzzy")
            assert answer.text == NOTHING_FOUND
            assert not answer.found and not answer.llm and answer.citations == []
            assert "answer" not in responder.asked
            # the same engine does ask the model when the store holds the answer
            relevant = await graph.ask("Who is the sister of Tomas Reyes?")
            assert relevant.found
            assert responder.asked.count("answer") == 1
        finally:
            await graph.close()

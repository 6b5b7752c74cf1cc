"""The model's persona intent (against the fake OpenAI-compatible server), its fallback to
``general``, and the persona's system prompt given to the model that answers."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llm.fake_server import Call, FakeLLMServer, Reply
from loregraph import AsyncGraph, LLMSettings, Settings
from loregraph.embed.hashing import HashingEmbedder
from loregraph.llm.client import LLMClient
from loregraph.llm.openai_client import OpenAIChat
from loregraph.llm.resilience import Resilience, RetryPolicy
from loregraph.models import Scored
from loregraph.retrieve.personas.lens import PersonaLens
from loregraph.retrieve.personas.library import PersonaLibrary
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.question.llm_intent import LLMIntentAnalyzer
from loregraph.retrieve.results.intents import IntentRoute
from loregraph.store.base import Store
from loregraph.store.sqlite import SqliteStore

from .family_corpus import ROSE

QUESTION = "Tell me about her relationship with Uncle Jim"
TURNS = ["Who was Rose Albright?", "She had a brother, Jim Kowalski."]


def intent_reply(intent: str, confidence: float = 0.9, **entities: list[str]) -> str:
    return json.dumps({"intent": intent, "entities": entities, "confidence": confidence})


@pytest.fixture()
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture()
async def analyzer(server: FakeLLMServer) -> AsyncIterator[LLMIntentAnalyzer]:
    model = OpenAIChat("fake-gpt", base_url=server.url, api_key="k")
    client = LLMClient(model, resilience=Resilience(retry=RetryPolicy(max_retries=0)))
    yield LLMIntentAnalyzer(client)
    await client.aclose()


@pytest.fixture()
async def store(family_db: Path) -> AsyncIterator[SqliteStore]:
    db = SqliteStore(family_db)
    await db.open()
    yield db
    await db.close()


async def test_the_model_routes_with_the_turns(
    server: FakeLLMServer, analyzer: LLMIntentAnalyzer, store: SqliteStore
) -> None:
    server.push(
        intent_reply("relational", people=["Rose Albright", "Jim Kowalski"], places=["Mars"])
    )
    route = await analyzer.route(QUESTION, TURNS, store, ROSE)
    assert route.source == "llm" and route.intent == "relational" and route.confidence == 0.9
    assert route.entities == {"people": ["Rose Albright", "Jim Kowalski"], "places": ["Mars"]}
    assert set(route.entity_ids) == {"Rose Albright", "Jim Kowalski"}  # Mars is not stored
    call = server.chat_calls()[0]
    assert "cross_legacy" in call.system and "time_periods" in call.system
    assert all(turn in call.last_user for turn in TURNS) and QUESTION in call.last_user


async def test_a_period_from_the_model(
    server: FakeLLMServer, analyzer: LLMIntentAnalyzer, store: SqliteStore
) -> None:
    server.push(intent_reply("temporal", time_periods=["the 1970s"]))
    route = await analyzer.route("What was her life like back then?", [], store, ROSE)
    assert route.intent == "temporal" and route.period == (1970, 1979)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(status=500, error="model crashed"), "model crashed"),
        (Reply(intent_reply("spatial", confidence=0.3)), "unsure (confidence 0.30 < 0.50)"),
        (Reply(intent_reply("gossip")), "failed"),
        (Reply("not json at all"), "failed"),
    ],
)
async def test_failure_or_doubt_routes_to_general(
    server: FakeLLMServer,
    analyzer: LLMIntentAnalyzer,
    store: SqliteStore,
    reply: Reply,
    reason: str,
) -> None:
    server.push(reply, reply)
    route = await analyzer.route(QUESTION, TURNS, store, ROSE)
    assert route.intent == "general" and route.source == "fallback"
    assert route.entities == {} and route.entity_ids == {}
    assert reason in (route.reason or "")


class Responder:
    """Answers the intent, query analysis and answer prompts; records the calls."""

    def __init__(self) -> None:
        self.calls: dict[str, list[Call]] = {}

    def __call__(self, call: Call) -> Reply:
        if "conversation about people's lives" in call.system:
            self.calls.setdefault("intent", []).append(call)
            return Reply(intent_reply("relational", people=["Jim Kowalski", "Rose Albright"]))
        if "You analyse a question" in call.system:
            self.calls.setdefault("query", []).append(call)
            return Reply(json.dumps({"intent": "relationship", "entities": [], "confidence": 1}))
        self.calls.setdefault("answer", []).append(call)
        return Reply("Jim Kowalski was the brother of Rose Albright [1].")


async def test_an_answer_through_a_persona(family_db: Path, tmp_path: Path) -> None:
    responder = Responder()
    with FakeLLMServer(responder) as server:
        llm = LLMSettings(provider="openai", model="fake-gpt", base_url=server.url, api_key="k")
        graph = AsyncGraph(
            SqliteStore(family_db),
            settings=Settings(scope=ROSE, llm=llm),
            embedder=HashingEmbedder(dim=64),
        )
        try:
            answer = await graph.ask(QUESTION, persona="family", history=TURNS)
        finally:
            await graph.close()
    assert answer.llm and answer.citations
    assert answer.retrieval is not None and answer.retrieval.persona is not None
    assert answer.retrieval.persona.route.source == "llm"
    assert len(responder.calls["intent"]) == 1
    family = PersonaLibrary().get("family")
    prompt = responder.calls["answer"][0]
    assert prompt.system.startswith(family.system_prompt)
    assert "## Known connections" in prompt.last_user
    assert "Jim Kowalski is brother of Rose Albright (family)" in prompt.last_user
    assert "Uncle Jim" in answer.citations[0].document_title


class GatedRouter:
    """A model route that answers only once the passages have been searched by meaning."""

    def __init__(self) -> None:
        self.searched = asyncio.Event()

    async def route(
        self, question: str, history: Sequence[str], store: Store, scope: str
    ) -> IntentRoute:
        await self.searched.wait()
        return IntentRoute(intent="spatial", source="llm", confidence=0.9)


class WatchedStore(SqliteStore):
    """Tells the router when the vector search of passages has run."""

    router: GatedRouter

    async def search_chunks_vector(self, *args: Any, **kwargs: Any) -> list[Scored]:
        found = await super().search_chunks_vector(*args, **kwargs)
        self.router.searched.set()
        return found


async def test_the_models_route_runs_while_passages_are_searched(family_db: Path) -> None:
    store = WatchedStore(family_db)
    store.router = GatedRouter()
    await store.open()
    try:
        lens = PersonaLens(PersonaLibrary().get("family"), router=store.router)
        retriever = Retriever(store, HashingEmbedder(dim=64), lens=lens)
        # the route waits for the vector search: awaited first, this would never end
        result = await asyncio.wait_for(retriever.retrieve("Where did they swim?", ROSE), 60)
    finally:
        await store.close()
    assert result.persona is not None and result.persona.route.intent == "spatial"
    assert result.persona.route.source == "llm"

"""Prompts from a directory, settings, merge confirmation, embeddings, and the no-LLM path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from loregraph.answer.llm import LLMAnswerer
from loregraph.embed.openai import OpenAIEmbedder, build_embedder
from loregraph.engine.parts import Parts
from loregraph.errors import ConfigError
from loregraph.ingest.extract.llm import GLEAN_STAGE, LLMExtractor
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.resolve.confirm import LLMMergeConfirmer
from loregraph.ingest.types import CandidateEntity, SourceDocument, TextChunk
from loregraph.llm.config import build_client
from loregraph.llm.errors import LLMExtractionError
from loregraph.llm.openai_client import OpenAIChat
from loregraph.llm.prompts import PROMPT_NAMES, PromptLibrary
from loregraph.models import Entity
from loregraph.settings import LLMSettings, Settings

from .fake_server import FakeLLMServer, Reply
from .test_llm_answer import result


def test_every_packaged_prompt_renders() -> None:
    library = PromptLibrary()
    params = {
        "extract_entities": {
            "max_entities": 5,
            "title": "T",
            "batch": 1,
            "batches": 1,
            "text": "x",
        },
        "extract_relationships": {
            "entities": "- A",
            "max_relationships": 5,
            "title": "T",
            "batch": 1,
            "batches": 1,
            "text": "x",
        },
        "glean": {"kind": "entities"},
        "correct_json": {"error": "e", "schema": "{}"},
        "query_analysis": {"question": "q", "intents": "- a", "first_intent": "a"},
        "intent_analysis": {"question": "q", "history": "- h"},
        "answer": {"question": "q", "context": "c"},
        "merge_confirm": {
            "a_name": "A",
            "a_type": "Person",
            "a_description": "d",
            "b_name": "B",
            "b_type": "Person",
            "b_description": "d",
            "b_aliases": "",
        },
        "contradiction": {"time": "2026-02-10", "new_facts": "1. a", "current_facts": "1. b"},
    }
    for name in PROMPT_NAMES:
        messages = library.messages(name, **params[name])
        assert messages[-1].role == "user" and "{{" not in messages[-1].content


async def test_prompt_directory_overrides_one_file(
    tmp_path: Path, server: FakeLLMServer, make_client
) -> None:
    (tmp_path / "answer.system.txt").write_text("Answer like a pirate. Cite [n].", "utf-8")
    library = PromptLibrary(tmp_path)
    assert library.overridden() == ["answer.system.txt"]
    server.push("Arr [1].")
    await LLMAnswerer(make_client(), prompts=library).answer(result())
    request = server.chat_calls()[0]
    assert request.system == "Answer like a pirate. Cite [n]."
    assert "Context:" in request.last_user  # the user template is still the packaged one


def test_prompt_errors_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "glean.user.txt").write_text("Missed {{things}}?", "utf-8")
    with pytest.raises(ConfigError, match="things"):
        PromptLibrary(tmp_path).messages("glean", kind="entities")
    with pytest.raises(ConfigError, match="does not exist"):
        PromptLibrary(tmp_path / "missing")
    with pytest.raises(ConfigError, match="unknown prompt"):
        PromptLibrary().messages("nope")


def test_settings_from_env() -> None:
    settings = LLMSettings.from_env(
        {
            "LOREGRAPH_LLM_PROVIDER": "OpenAI",
            "LOREGRAPH_LLM_MODEL": "llama3.1",
            "LOREGRAPH_LLM_BASE_URL": "http://localhost:11434/v1",
            "LOREGRAPH_LLM_API_KEY": "secret",
            "LOREGRAPH_LLM_HEADERS": "X-Team=graph; X-Trace=1",
            "LOREGRAPH_LLM_CONCURRENCY": "2",
            "LOREGRAPH_LLM_CACHE": "0",
        }
    )
    assert (settings.provider, settings.model, settings.concurrency) == ("openai", "llama3.1", 2)
    assert settings.headers == (("X-Team", "graph"), ("X-Trace", "1"))
    assert not settings.cache and settings.enabled
    assert "secret" not in repr(settings)
    assert not LLMSettings.from_env({}).enabled
    with pytest.raises(ConfigError, match="model"):
        LLMSettings.from_env({"LOREGRAPH_LLM_PROVIDER": "anthropic"})
    with pytest.raises(ConfigError, match="unknown LLM provider"):
        LLMSettings(provider="gemini", model="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="number"):
        LLMSettings.from_env({"LOREGRAPH_LLM_TIMEOUT": "soon"})


def test_answer_and_extraction_caps_from_env_reach_the_components(server) -> None:
    settings = LLMSettings.from_env(
        {
            "LOREGRAPH_LLM_PROVIDER": "openai",
            "LOREGRAPH_LLM_MODEL": "m",
            "LOREGRAPH_LLM_BASE_URL": server.url,
            "LOREGRAPH_LLM_ANSWER_MAX_TOKENS": "200",
            "LOREGRAPH_LLM_ANSWER_TIMEOUT": "30",
            "LOREGRAPH_LLM_EXTRACT_MAX_TOKENS": "900",
            "LOREGRAPH_LLM_CACHE": "0",
        }
    )
    assert LLMSettings().answer_max_tokens == 512 and LLMSettings().answer_timeout == 120.0
    parts = Parts(Settings(llm=settings))
    answerer = parts.answerer()
    assert isinstance(answerer, LLMAnswerer)
    assert (answerer.max_tokens, answerer.time_limit) == (200, 30.0)
    extractor = parts.extractor
    assert isinstance(extractor, LLMExtractor)
    assert extractor.max_tokens == 900
    assert isinstance(extractor.fallback, OfflineExtractor)
    with pytest.raises(ConfigError, match="answer"):
        LLMSettings(answer_timeout=0)
    with pytest.raises(ConfigError, match="extraction max tokens"):
        LLMSettings(extract_max_tokens=0)


def test_build_client_puts_the_cache_next_to_the_store(tmp_path: Path, server) -> None:
    assert build_client(LLMSettings()) is None
    settings = LLMSettings(provider="openai", model="m", base_url=server.url, concurrency=3)
    client = build_client(settings, store_path=tmp_path / "kg.db")
    assert client is not None
    assert isinstance(client.model, OpenAIChat)
    assert client.resilience.concurrency == 3
    assert (tmp_path / "kg.db.llm-cache.sqlite").exists()


def test_no_llm_package_is_imported_without_an_llm() -> None:
    code = (
        "import sys, loregraph, loregraph.llm\n"
        "from loregraph.llm.config import build_client\n"
        "from loregraph.settings import LLMSettings\n"
        "assert build_client(LLMSettings()) is None\n"
        "bad = [m for m in ('openai', 'anthropic', 'json_repair') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


async def test_merge_confirmation(server: FakeLLMServer, make_client) -> None:
    cand = CandidateEntity(name="Jon Harker", type="Person", description="a solicitor")
    entity = Entity(id="e1", name="Jonathan Harker", type="Person", aliases=["Harker"])
    confirm = LLMMergeConfirmer(make_client())
    server.push('{"same": true, "confidence": 0.9}', '{"same": true, "confidence": 0.4}')
    assert await confirm(cand, entity) is True
    assert await confirm(CandidateEntity(name="Jon Harker", type="Person"), entity) is False
    server.push(Reply(status=400, error="bad"))
    assert await confirm(CandidateEntity(name="J. Harker", type="Person"), entity) is True
    assert "Jonathan Harker (Person)" in server.chat_calls()[0].last_user


def test_openai_embeddings(server: FakeLLMServer) -> None:
    embedder = OpenAIEmbedder("custom-embed", base_url=server.url, api_key="k", batch_size=2)
    assert embedder.dim == 8  # probed once
    vectors = embedder.embed(["a", "b", "c"])
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert len([c for c in server.calls if c.path == "/v1/embeddings"]) == 3
    assert embedder.usage.stage("embed").calls == 3
    assert build_embedder(LLMSettings(provider="openai", model="m")) is None
    embedder.close()


def _document(text: str) -> tuple[SourceDocument, list[TextChunk]]:
    return SourceDocument("Note", text, "note.txt"), [TextChunk(0, 0, len(text), text)]


async def test_gleaning_adds_what_the_model_missed(server: FakeLLMServer, make_client) -> None:
    text = "Ada Lovelace wrote notes on the Analytical Engine. Ada Lovelace met Charles Babbage."
    server.push(
        '{"entities": [{"name": "Ada Lovelace", "type": "Person", "description": "a writer",'
        ' "salience": 5, "mentions": 2}]}',
        '{"entities": [{"name": "Charles Babbage", "type": "Person", "description": "an'
        ' inventor", "salience": 4, "mentions": 1}]}',
        '{"entities": []}',
    )
    client = make_client()
    extractor = LLMExtractor(client, gleaning=2)
    result = await extractor.extract(*_document(text))
    assert {e.name for e in result.entities} == {"Ada Lovelace", "Charles Babbage"}
    assert client.usage.stage(GLEAN_STAGE).calls == 2
    glean = server.chat_calls()[1]
    assert glean.messages[-2]["role"] == "assistant" and "may have been missed" in glean.last_user


async def test_a_model_that_returns_nothing_fails_the_document(
    server: FakeLLMServer, make_client
) -> None:
    server.responder = lambda call: Reply("")
    extractor = LLMExtractor(make_client())
    with pytest.raises(LLMExtractionError, match=r"entities pass.*empty"):
        await extractor.extract(*_document("Ada Lovelace met Charles Babbage in London."))
    results = await extractor.aextract_many(
        [_document("Ada Lovelace."), _document("Charles Babbage.")]
    )
    assert all(isinstance(r, LLMExtractionError) for r in results)

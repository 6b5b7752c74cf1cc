"""Fixtures for LLM tests: the fake server and clients wired to it (no real sleeping)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from loregraph.ingest.types import SourceDocument
from loregraph.llm.anthropic_client import AnthropicChat
from loregraph.llm.cache import ResponseCache, SqliteResponseCache
from loregraph.llm.client import LLMClient
from loregraph.llm.openai_client import OpenAIChat
from loregraph.llm.resilience import CircuitBreaker, Resilience, RetryPolicy
from loregraph.store.sqlite import SqliteStore

from .fake_server import FakeLLMServer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm"


class SleepRecorder:
    """Stands in for ``asyncio.sleep`` in retry loops: records delays, does not wait."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


@pytest.fixture()
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture()
def sleeps() -> SleepRecorder:
    return SleepRecorder()


ClientFactory = Callable[..., LLMClient]


@pytest.fixture()
async def make_client(server: FakeLLMServer, sleeps: SleepRecorder) -> AsyncIterator[ClientFactory]:
    made: list[LLMClient] = []

    def factory(
        *,
        provider: str = "openai",
        cache: ResponseCache | None = None,
        concurrency: int = 5,
        timeout: float = 10.0,
        max_retries: int = 3,
        breaker: CircuitBreaker | None = None,
        structured: Any = "auto",
        srv: FakeLLMServer | None = None,
    ) -> LLMClient:
        target = srv or server
        model: Any
        if provider == "anthropic":
            model = AnthropicChat("fake-claude", base_url=target.root, api_key="k")
        else:
            model = OpenAIChat("fake-gpt", base_url=target.url, api_key="k", structured=structured)
        resilience = Resilience(
            concurrency=concurrency,
            timeout=timeout,
            retry=RetryPolicy(max_retries=max_retries, base_delay=0.5),
            breaker=breaker or CircuitBreaker(),
            sleep=sleeps,
        )
        client = LLMClient(model, cache=cache, resilience=resilience)
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.aclose()


@pytest.fixture()
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "llm-cache.sqlite"


def sqlite_cache(path: Path) -> SqliteResponseCache:
    return SqliteResponseCache(path)


EXCERPT = Path(__file__).resolve().parent.parent / "fixtures" / "dracula_excerpt.txt"


@pytest.fixture()
def book() -> SourceDocument:
    """The Dracula excerpt as one document."""
    return SourceDocument(
        title="Dracula (excerpt)", text=EXCERPT.read_text(encoding="utf-8"), source="dracula.txt"
    )


@pytest.fixture()
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """An open SQLite store for the book."""
    db = SqliteStore(tmp_path / "book.db")
    await db.open()
    yield db
    await db.close()

"""The factories that turn :class:`~loregraph.settings.LLMSettings` into a client.

:meth:`LLMSettings.from_env` reads ``LOREGRAPH_LLM_*`` variables from a mapping the entry
point passes in (library code never reads the environment). With ``provider="none"`` (the
default) nothing here is used and no LLM package is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from loregraph.errors import ConfigError
from loregraph.llm.base import ChatModel
from loregraph.llm.cache import SqliteResponseCache
from loregraph.llm.client import LLMClient
from loregraph.llm.resilience import CircuitBreaker, Resilience, RetryPolicy
from loregraph.llm.usage import UsageTracker
from loregraph.location import Location
from loregraph.settings import LLMSettings

__all__ = ["Connection", "build_chat_model", "build_client", "connection"]


class Connection(TypedDict):
    """How to reach the server: the keyword arguments every provider (and the
    OpenAI-compatible embedder) takes."""

    base_url: str | None
    api_key: str | None
    headers: dict[str, str]
    timeout: float


def connection(settings: LLMSettings) -> Connection:
    """The server ``settings`` name, as provider keyword arguments."""
    return Connection(
        base_url=settings.base_url,
        api_key=settings.api_key,
        headers=dict(settings.headers),
        timeout=settings.timeout,
    )


def build_chat_model(settings: LLMSettings) -> ChatModel:
    """The provider object for ``settings`` (imports its SDK; DependencyError if missing)."""
    if settings.provider == "openai":
        from loregraph.llm.openai_client import OpenAIChat

        return OpenAIChat(settings.model, structured=settings.structured, **connection(settings))
    if settings.provider == "anthropic":
        from loregraph.llm.anthropic_client import AnthropicChat

        structured = settings.structured != "none"
        return AnthropicChat(settings.model, structured=structured, **connection(settings))
    raise ConfigError("no LLM provider is configured (provider is 'none')")


def build_client(
    settings: LLMSettings,
    *,
    store_path: str | Path | Location | None = None,
    usage: UsageTracker | None = None,
    model: ChatModel | None = None,
) -> LLMClient | None:
    """An :class:`LLMClient` for ``settings``, or ``None`` when no provider is configured.

    The response cache goes to ``settings.cache_path``, else where the store's location puts
    it (:meth:`~loregraph.location.Location.llm_cache_path`: next to an SQLite file), else in
    memory.
    """
    if not settings.enabled and model is None:
        return None
    cache = None
    if settings.cache:
        place = Location.parse(store_path).llm_cache_path() if store_path is not None else None
        cache = SqliteResponseCache(settings.cache_path or place or ":memory:")
    resilience = Resilience(
        concurrency=settings.concurrency,
        timeout=settings.timeout,
        retry=RetryPolicy(max_retries=settings.max_retries),
        breaker=CircuitBreaker(),
    )
    return LLMClient(
        model or build_chat_model(settings), cache=cache, resilience=resilience, usage=usage
    )

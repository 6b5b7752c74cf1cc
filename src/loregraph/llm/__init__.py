"""Language models: providers behind one small interface, plus cache, resilience and usage.

Nothing here imports an LLM SDK until a provider is constructed, and nothing is needed
when no LLM is configured. Names are loaded lazily, so ``loregraph.settings`` can import
:class:`~loregraph.llm.settings.LLMSettings` (standard library only) without pulling in
anything else.

Modules: :mod:`.base` (the :class:`ChatModel` protocol and records), :mod:`.openai_client`,
:mod:`.anthropic_client`, :mod:`.embeddings`, :mod:`.client` (:class:`LLMClient`),
:mod:`.cache`, :mod:`.resilience`, :mod:`.usage`, :mod:`.parse`, :mod:`.structured`,
:mod:`.prompts`, :mod:`.query`, :mod:`.answer`, :mod:`.merge`, :mod:`.settings`,
:mod:`.config` (factories), :mod:`.wiring` (what the engine builds from the settings).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "AnswerStream": "answer",
    "LLMAnswerer": "answer",
    "AnthropicChat": "anthropic_client",
    "ChatModel": "base",
    "ChatRequest": "base",
    "Completion": "base",
    "Message": "base",
    "StreamDelta": "base",
    "TokenUsage": "base",
    "ResponseCache": "cache",
    "SqliteResponseCache": "cache",
    "default_cache_path": "cache",
    "LLMClient": "client",
    "LLMSettings": "settings",
    "build_chat_model": "config",
    "build_client": "config",
    "build_embedder": "config",
    "OpenAIEmbedder": "embeddings",
    "CircuitOpenError": "errors",
    "LLMError": "errors",
    "LLMExtractionError": "errors",
    "LLMOutputError": "errors",
    "LLMPermanentError": "errors",
    "LLMTimeoutError": "errors",
    "LLMTransientError": "errors",
    "LLMMergeConfirmer": "merge",
    "OpenAIChat": "openai_client",
    "ParsedJSON": "parse",
    "parse_json": "parse",
    "PromptLibrary": "prompts",
    "LLMQueryAnalysis": "query",
    "LLMQueryAnalyzer": "query",
    "CircuitBreaker": "resilience",
    "Resilience": "resilience",
    "RetryPolicy": "resilience",
    "complete_json": "structured",
    "StageUsage": "usage",
    "UsageTracker": "usage",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'loregraph.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"loregraph.llm.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

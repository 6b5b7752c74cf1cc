"""Language models: providers behind one small interface, plus cache, resilience and usage.

Nothing here imports an LLM SDK until a provider is constructed, and nothing is needed
when no LLM is configured; names are loaded lazily.

Modules: :mod:`.base` (the :class:`ChatModel` protocol and records), :mod:`.openai_client`,
:mod:`.anthropic_client` (with :mod:`.sdk`, what the two SDK-based providers share),
:mod:`.client` (:class:`LLMClient`), :mod:`.cache`, :mod:`.resilience`, :mod:`.usage`,
:mod:`.parse`, :mod:`.structured`, :mod:`.prompts`, :mod:`.config` (factories from
:class:`~loregraph.settings.LLMSettings`), :mod:`.stage` (the base of the stages that ask a
model). The stages themselves live with their stage: ``ingest/extract/llm.py``,
``ingest/resolve/confirm.py``, ``retrieve/question/llm_analyze.py``, ``answer/llm.py``,
``embed/openai.py``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "AnthropicChat": "anthropic_client",
    "ChatModel": "base",
    "ChatRequest": "base",
    "Completion": "base",
    "Message": "base",
    "StreamDelta": "base",
    "TokenUsage": "base",
    "ResponseCache": "cache",
    "SqliteResponseCache": "cache",
    "LLMClient": "client",
    "build_chat_model": "config",
    "build_client": "config",
    "CircuitOpenError": "errors",
    "LLMError": "errors",
    "LLMExtractionError": "errors",
    "LLMOutputError": "errors",
    "LLMPermanentError": "errors",
    "LLMTimeoutError": "errors",
    "LLMTransientError": "errors",
    "OpenAIChat": "openai_client",
    "ParsedJSON": "parse",
    "parse_json": "parse",
    "PromptLibrary": "prompts",
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

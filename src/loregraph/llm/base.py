"""The provider interface: a chat model behind one small async protocol.

A provider (:class:`~loregraph.llm.openai_client.OpenAIChat`,
:class:`~loregraph.llm.anthropic_client.AnthropicChat`, or any object of this shape) makes
one raw call: no cache, no retries, no concurrency limit. :class:`~loregraph.llm.client.LLMClient`
adds those around any provider, so they are written once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]
JsonSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str


@dataclass(slots=True)
class TokenUsage:
    """Tokens a call consumed, as the server reported them (0 when it did not)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Everything that determines a reply; its :meth:`cache_key` identifies it.

    ``json_schema`` asks for structured output where the provider supports it (the schema
    of the expected JSON object, named ``schema_name``); providers that do not support it
    ignore it and the caller parses the text tolerantly.
    """

    messages: tuple[Message, ...]
    json_schema: JsonSchema | None = None
    schema_name: str = "result"
    max_tokens: int = 4096
    temperature: float = 0.0

    def cache_key(self, model: str) -> str:
        """sha256 of the model, the messages and the parameters (stable across runs)."""
        payload = {
            "model": model,
            "messages": [[m.role, m.content] for m in self.messages],
            "schema": self.json_schema,
            "schema_name": self.schema_name if self.json_schema is not None else None,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }
        raw = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Completion:
    """A model's reply.

    ``cached`` is True when it came from the response cache (no call was made);
    ``structured`` is True when the server was asked for schema-constrained JSON;
    ``format_rejections`` counts requests the server refused for their response format
    before this reply (the provider fell back to a weaker JSON mode within the call).
    """

    text: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    model: str = ""
    finish_reason: str | None = None
    structured: bool = False
    cached: bool = False
    key: str = ""
    format_rejections: int = 0


@dataclass(slots=True)
class StreamDelta:
    """A piece of a streamed reply: some text, or (last) the usage of the whole call."""

    text: str = ""
    usage: TokenUsage | None = None
    finish_reason: str | None = None


@runtime_checkable
class ChatModel(Protocol):
    """A chat-completion provider: one raw call per method, errors as :mod:`.errors` types.

    ``provider`` names the API family (``"openai"``, ``"anthropic"``); ``model`` is the
    model name sent to it and part of every cache key.
    """

    provider: str
    model: str

    async def complete(self, request: ChatRequest) -> Completion:
        """One call; raises :class:`~loregraph.llm.errors.LLMError` subclasses."""
        ...

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamDelta]:
        """One streamed call: text deltas, then a delta carrying the usage (if reported)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...

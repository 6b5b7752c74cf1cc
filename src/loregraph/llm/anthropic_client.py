"""An Anthropic (Claude) chat provider through the official ``anthropic`` SDK
(``pip install 'loregraph[llm]'``).

Structured output uses tool use: a request that carries a JSON schema offers one tool
whose input schema is that schema and forces the model to call it; the tool input is the
reply, serialised as JSON text. ``structured=False`` sends plain prompts instead (the
caller parses the text tolerantly). System messages go to the ``system`` parameter. The
temperature is not sent: the current Messages API (SDK 2.x) has no sampling parameters.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from loregraph.llm.base import ChatRequest, Completion, StreamDelta, TokenUsage
from loregraph.llm.sdk import import_sdk, sdk_client, token_usage, translate_error


class AnthropicChat:
    """A :class:`~loregraph.llm.base.ChatModel` for Anthropic's Messages API.

    Args:
        model: the model name (``claude-haiku-4-5``...).
        base_url: the API root (``None``: Anthropic's).
        api_key: the key; ``None`` sends a placeholder (the environment is never read).
        headers: extra HTTP headers sent with every request.
        timeout: seconds per HTTP request.
        structured: use forced tool use for JSON-schema requests.
        client: an ``anthropic.AsyncAnthropic`` to use instead of creating one.
    """

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        structured: bool = True,
        client: Any | None = None,
    ) -> None:
        self.model = model
        self.structured = structured
        self._anthropic = import_sdk("anthropic", "the Anthropic LLM provider")
        self._client = client or sdk_client(
            self._anthropic.AsyncAnthropic,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            headers=headers,
        )

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        messages = [
            {"role": m.role, "content": m.content} for m in request.messages if m.role != "system"
        ]
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
        }
        if system:
            kwargs["system"] = system
        return kwargs

    async def complete(self, request: ChatRequest) -> Completion:
        """One Messages API call."""
        kwargs = self._kwargs(request)
        use_tool = self.structured and request.json_schema is not None
        if use_tool:
            kwargs["tools"] = [
                {
                    "name": request.schema_name,
                    "description": "Return the result as this tool's input.",
                    "input_schema": request.json_schema,
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": request.schema_name}
        try:
            response = await self._client.messages.create(**kwargs)
        except self._anthropic.AnthropicError as exc:
            raise translate_error(exc, self._anthropic) from exc
        texts: list[str] = []
        for block in getattr(response, "content", None) or []:
            kind = getattr(block, "type", "")
            if kind == "tool_use":
                texts = [json.dumps(getattr(block, "input", {}), ensure_ascii=False)]
                break
            if kind == "text":
                texts.append(str(getattr(block, "text", "")))
        return Completion(
            text="".join(texts),
            usage=token_usage(getattr(response, "usage", None), "input_tokens", "output_tokens"),
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=getattr(response, "stop_reason", None),
            structured=use_tool,
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamDelta]:
        """A streamed Messages API call: text deltas, then one delta with the usage."""
        kwargs = self._kwargs(request)
        prompt_tokens = completion_tokens = 0
        finish: str | None = None
        try:
            events = await self._client.messages.create(**kwargs, stream=True)
            async for event in events:
                kind = getattr(event, "type", "")
                if kind == "message_start":
                    usage = getattr(getattr(event, "message", None), "usage", None)
                    prompt_tokens = int(getattr(usage, "input_tokens", 0) or 0)
                elif kind == "content_block_delta":
                    text = getattr(getattr(event, "delta", None), "text", None)
                    if text:
                        yield StreamDelta(text=text)
                elif kind == "message_delta":
                    usage = getattr(event, "usage", None)
                    completion_tokens = int(getattr(usage, "output_tokens", 0) or 0)
                    finish = getattr(getattr(event, "delta", None), "stop_reason", None) or finish
        except self._anthropic.AnthropicError as exc:
            raise translate_error(exc, self._anthropic) from exc
        yield StreamDelta(usage=TokenUsage(prompt_tokens, completion_tokens), finish_reason=finish)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

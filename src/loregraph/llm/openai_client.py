"""An OpenAI-compatible chat provider (OpenAI, Azure, Ollama, vLLM, llama.cpp, LM Studio,
OpenRouter...) through the official ``openai`` SDK (``pip install 'loregraph[llm]'``).

Structured output: with ``structured="auto"`` (the default) a request that carries a JSON
schema is sent with ``response_format={"type": "json_schema", ...}``; if the server rejects
that, the provider falls back to ``{"type": "json_object"}`` and then to plain text for
the rest of its life, and the caller's tolerant parser does the rest. A rejection is
recognised by what the error says, whatever its status: a 400/422 that mentions a schema,
or any other error (llama.cpp's server answers 500) whose message names the parameter
(``response_format``, ``json_schema``, ``json_object``). The fallback happens inside one
call, at once: it spends no retry and never counts towards the circuit breaker. The SDK's
own retries are switched off: retries, timeouts and the circuit breaker live in
:class:`~loregraph.llm.resilience.Resilience`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from loregraph.llm.base import ChatRequest, Completion, StreamDelta, TokenUsage
from loregraph.llm.errors import LLMError
from loregraph.llm.sdk import body_message, import_sdk, sdk_client, token_usage, translate_error

StructuredMode = Literal["auto", "json_schema", "json_object", "none"]
_FALLBACK: dict[str, str] = {"json_schema": "json_object", "json_object": "none"}
_FORMAT_NAMES = ("response_format", "json_schema", "json_object", "response format")
_FORMAT_WORDS = (*_FORMAT_NAMES, "schema")
_NEVER_FORMAT = frozenset({401, 403, 404, 408, 429})
"""Statuses that say something else (auth, unknown model, timeout, rate limit)."""


def is_format_rejection(exc: LLMError) -> bool:
    """Whether an error is the server refusing the ``response_format`` it was sent.

    A 400/422 that mentions a schema or the response format; any other status (a 500 from
    llama.cpp's server, say) only when the message names the parameter itself. Rate
    limits, timeouts and authentication errors never are.
    """
    status = getattr(exc, "status", None)
    text = str(exc).casefold()
    if status in (400, 422):
        return any(word in text for word in _FORMAT_WORDS)
    if status is None or status in _NEVER_FORMAT:
        return False
    return any(word in text for word in _FORMAT_NAMES)


class OpenAIChat:
    """A :class:`~loregraph.llm.base.ChatModel` for any OpenAI-compatible server.

    Args:
        model: the model name (``gpt-4o-mini``, ``llama3.1``...).
        base_url: the API root (``http://localhost:11434/v1`` for Ollama); ``None`` is
            OpenAI's.
        api_key: the key; ``None`` sends a placeholder (the environment is never read).
        headers: extra HTTP headers sent with every request.
        timeout: seconds per HTTP request (the per-call limit is also enforced above).
        structured: ``auto``/``json_schema`` try schema-constrained output first,
            ``json_object`` asks for JSON without a schema, ``none`` sends plain prompts.
        token_param: ``max_tokens`` (most servers) or ``max_completion_tokens``.
        extra_body: extra JSON fields for every request (``{"options": {...}}``).
        client: an ``openai.AsyncOpenAI`` to use instead of creating one.
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        structured: StructuredMode = "auto",
        token_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
        extra_body: Mapping[str, Any] | None = None,
        client: Any | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.mode: str = "json_schema" if structured == "auto" else structured
        self.token_param = token_param
        self.extra_body = dict(extra_body or {})
        self._openai = import_sdk("openai", "the OpenAI-compatible LLM provider")
        self._client = client or sdk_client(
            self._openai.AsyncOpenAI,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            headers=headers,
        )
        self._stream_usage = True

    def _kwargs(self, request: ChatRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            self.token_param: request.max_tokens,
        }
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        return kwargs

    def _response_format(self, request: ChatRequest) -> dict[str, Any] | None:
        if request.json_schema is None or self.mode == "none":
            return None
        if self.mode == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": request.json_schema,
                "strict": False,
            },
        }

    async def complete(self, request: ChatRequest) -> Completion:
        """One chat completion (falling back to a weaker JSON mode when one is rejected).

        ``Completion.format_rejections`` counts the requests the server refused for their
        response format before this reply (each one an HTTP request, no retry spent).
        """
        rejections = 0
        while True:
            kwargs = self._kwargs(request)
            response_format = self._response_format(request)
            if response_format is not None:
                kwargs["response_format"] = response_format
            try:
                response = await self._client.chat.completions.create(**kwargs)
            except self._openai.OpenAIError as exc:
                error = translate_error(exc, self._openai, body_message)
                if response_format is not None and is_format_rejection(error):
                    self.mode = _FALLBACK.get(self.mode, "none")
                    rejections += 1
                    continue
                raise error from exc
            completion = self._completion(response, structured=response_format is not None)
            completion.format_rejections = rejections
            return completion

    def _completion(self, response: Any, *, structured: bool) -> Completion:
        choices = getattr(response, "choices", None) or []
        text = ""
        finish = None
        if choices:
            message = getattr(choices[0], "message", None)
            text = (getattr(message, "content", None) or "") if message is not None else ""
            finish = getattr(choices[0], "finish_reason", None)
        return Completion(
            text=text,
            usage=token_usage(
                getattr(response, "usage", None), "prompt_tokens", "completion_tokens"
            ),
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=finish,
            structured=structured,
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamDelta]:
        """A streamed chat completion: text deltas, then one delta with the usage."""
        kwargs = self._kwargs(request)
        try:
            if self._stream_usage:
                try:
                    response = await self._client.chat.completions.create(
                        **kwargs, stream=True, stream_options={"include_usage": True}
                    )
                except self._openai.BadRequestError:
                    self._stream_usage = False  # servers without stream_options
            if not self._stream_usage:
                response = await self._client.chat.completions.create(**kwargs, stream=True)
            usage: TokenUsage | None = None
            finish: str | None = None
            async for chunk in response:
                for choice in getattr(chunk, "choices", None) or []:
                    delta = getattr(choice, "delta", None)
                    text = getattr(delta, "content", None) if delta is not None else None
                    finish = getattr(choice, "finish_reason", None) or finish
                    if text:
                        yield StreamDelta(text=text)
                raw = getattr(chunk, "usage", None)
                if raw is not None:
                    usage = token_usage(raw, "prompt_tokens", "completion_tokens")
            yield StreamDelta(usage=usage or TokenUsage(), finish_reason=finish)
        except self._openai.OpenAIError as exc:
            raise translate_error(exc, self._openai, body_message) from exc

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

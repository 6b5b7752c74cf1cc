"""The model client the rest of loregraph uses: a provider plus cache, resilience and usage.

:class:`LLMClient` wraps any :class:`~loregraph.llm.base.ChatModel`. A call is looked up in
the response cache first (a hit costs nothing); identical calls in flight at the same time
are made once; a miss goes through :class:`~loregraph.llm.resilience.Resilience`
(concurrency limit, timeout, retries, circuit breaker) and is cached as soon as it
arrives. Every call is counted per stage in the :class:`~loregraph.llm.usage.UsageTracker`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from loregraph.llm.base import (
    ChatModel,
    ChatRequest,
    Completion,
    JsonSchema,
    Message,
    StreamDelta,
    TokenUsage,
)
from loregraph.llm.cache import ResponseCache
from loregraph.llm.errors import LLMError, LLMTimeoutError, LLMTransientError
from loregraph.llm.resilience import Resilience
from loregraph.llm.usage import UsageTracker

Deltas = AsyncIterator[StreamDelta]


class LLMClient:
    """A provider with caching, bounded concurrency, retries and usage counting.

    Args:
        model: the provider (OpenAI-compatible, Anthropic, or any :class:`ChatModel`).
        cache: the response cache (``None``: every call goes to the server).
        resilience: concurrency/timeout/retry/breaker settings (default: 5 at once,
            120 s per call, 4 retries, a circuit breaker).
        usage: the usage tracker to count into (default: a new one, ``client.usage``).
        cache_streams: also cache streamed replies (answers), so asking again is free.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        cache: ResponseCache | None = None,
        resilience: Resilience | None = None,
        usage: UsageTracker | None = None,
        cache_streams: bool = True,
    ) -> None:
        self.model = model
        self.cache = cache
        self.resilience = resilience or Resilience()
        self.usage = usage or UsageTracker()
        self.cache_streams = cache_streams
        self._pending: dict[str, asyncio.Future[Completion]] = {}

    @property
    def model_name(self) -> str:
        """The model name (part of every cache key)."""
        return self.model.model

    def request(
        self,
        messages: Sequence[Message],
        *,
        json_schema: JsonSchema | None = None,
        schema_name: str = "result",
        max_tokens: int = 4096,
        temperature: float = 0.0,
    ) -> ChatRequest:
        """Build a :class:`ChatRequest`."""
        return ChatRequest(
            messages=tuple(messages),
            json_schema=json_schema,
            schema_name=schema_name,
            max_tokens=max_tokens,
            temperature=temperature,
        )

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        stage: str,
        json_schema: JsonSchema | None = None,
        schema_name: str = "result",
        max_tokens: int = 4096,
        temperature: float = 0.0,
        use_cache: bool = True,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> Completion:
        """One reply for ``messages``, from the cache or the server; counted under ``stage``.

        Raises :class:`~loregraph.llm.errors.LLMError` when retries are exhausted, the
        error is permanent, or the circuit breaker is open.
        """
        request = self.request(
            messages,
            json_schema=json_schema,
            schema_name=schema_name,
            max_tokens=max_tokens,
            temperature=temperature,
        )
        key = request.cache_key(self.model_name)
        if use_cache and self.cache is not None:
            hit = await self.cache.get(key)
            if hit is not None:
                self.usage.count(stage, cached=1)
                return hit
        pending = self._pending.get(key)
        if pending is not None:  # the same call is in flight: share its reply
            completion = await asyncio.shield(pending)
            self.usage.count(stage, cached=1)
            return completion
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            completion = await self._call(request, stage, timeout, max_retries)
            completion.key = key
            if use_cache and self.cache is not None:
                await self.cache.put(key, completion, stage=stage)
            future.set_result(completion)
            return completion
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: sharing callers re-raise it themselves
            raise
        finally:
            del self._pending[key]

    async def _call(
        self, request: ChatRequest, stage: str, timeout: float | None, max_retries: int | None
    ) -> Completion:
        def on_retry(attempt: int, error: LLMTransientError, wait: float) -> None:
            self.usage.count(stage, retries=1)

        async def attempt() -> Completion:
            self.usage.count(stage, calls=1)
            return await self.model.complete(request)

        try:
            completion = await self.resilience.call(
                attempt, on_retry=on_retry, timeout=timeout, max_retries=max_retries
            )
        except LLMError:
            self.usage.count(stage, failures=1)
            raise
        counts = {
            "prompt_tokens": completion.usage.prompt_tokens,
            "completion_tokens": completion.usage.completion_tokens,
        }
        if completion.format_rejections:  # requests refused for their response format
            counts |= {
                "calls": completion.format_rejections,
                "format_rejected": completion.format_rejections,
            }
        self.usage.count(stage, **counts)
        return completion

    async def forget(self, completion: Completion) -> None:
        """Drop a cached reply that proved unusable, so a later run asks again."""
        if self.cache is not None and completion.key:
            await self.cache.delete(completion.key)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        stage: str,
        max_tokens: int = 4096,
        temperature: float = 0.0,
        use_cache: bool | None = None,
        timeout: float | None = None,
        on_end: Callable[[Completion], None] | None = None,
    ) -> AsyncIterator[str]:
        """Stream a reply's text. Retries happen only before the first piece arrives;
        ``timeout`` bounds the wait for each piece. A cached reply is yielded whole.

        ``on_end`` is called with the whole reply (its finish reason and usage) when the
        stream ends by itself; a stream closed early is neither reported nor cached."""
        request = self.request(messages, max_tokens=max_tokens, temperature=temperature)
        key = request.cache_key(self.model_name)
        wanted = self.cache_streams if use_cache is None else use_cache
        caching = wanted and self.cache is not None
        if caching and self.cache is not None:
            hit = await self.cache.get(key)
            if hit is not None:
                self.usage.count(stage, cached=1)
                yield hit.text
                if on_end is not None:
                    on_end(hit)
                return
        limit = self.resilience.timeout if timeout is None else timeout
        pieces: list[str] = []
        usage = TokenUsage()
        finish: str | None = None
        first, started = await self._open_stream(request, stage, limit)
        try:
            delta = first
            while delta is not None:
                if delta.usage is not None:
                    usage = delta.usage
                if delta.finish_reason:
                    finish = delta.finish_reason
                if delta.text:
                    pieces.append(delta.text)
                    yield delta.text
                delta = await _next(started, limit)
        except LLMError:
            self.usage.count(stage, failures=1)
            raise
        finally:
            await _close(started)
        self.usage.count(
            stage, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens
        )
        completion = Completion(
            text="".join(pieces), usage=usage, model=self.model_name, finish_reason=finish
        )
        if caching and self.cache is not None:
            await self.cache.put(key, completion, stage=stage)
        if on_end is not None:
            on_end(completion)

    async def _open_stream(
        self, request: ChatRequest, stage: str, limit: float | None
    ) -> tuple[StreamDelta | None, Deltas]:
        """Start the stream and read its first delta, under the retry policy."""

        def on_retry(attempt: int, error: LLMTransientError, wait: float) -> None:
            self.usage.count(stage, retries=1)

        async def attempt() -> tuple[StreamDelta | None, Deltas]:
            self.usage.count(stage, calls=1)
            iterator = aiter(self.model.stream(request))
            try:
                first = await _next(iterator, None)
            except BaseException:
                await _close(iterator)
                raise
            return first, iterator

        try:
            return await self.resilience.call(attempt, on_retry=on_retry, timeout=limit)
        except LLMError:
            self.usage.count(stage, failures=1)
            raise

    async def aclose(self) -> None:
        """Close the provider's connections."""
        await self.model.aclose()


async def _next(iterator: Deltas, limit: float | None) -> StreamDelta | None:
    try:
        if limit is None:
            return await anext(iterator)
        return await asyncio.wait_for(anext(iterator), limit)
    except StopAsyncIteration:
        return None
    except TimeoutError:
        raise LLMTimeoutError(f"the LLM stream stalled for more than {limit:g} s") from None


async def _close(iterator: Deltas) -> None:
    closer = getattr(iterator, "aclose", None)
    if closer is not None:
        await closer()

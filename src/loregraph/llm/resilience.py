"""Resilience around model calls: a concurrency limit, retries with backoff, timeouts and a
circuit breaker (by default it opens after 3 consecutive failures and half-opens after 30 s).

Clock, sleep and randomness are injected so tests never wait.

* **Concurrency**: at most ``concurrency`` attempts are in flight (default 5,
  ``LLM_CONCURRENCY``); a slot is not held while backing off.
* **Retries**: transient errors (429, 408, 5xx, timeouts, connection errors) are retried up
  to ``max_retries`` times. The delay is exponential with full jitter,
  ``uniform(0, min(max_delay, base_delay * 2**attempt))``; a server's ``Retry-After`` is
  honoured instead when present (capped at ``max_retry_after``).
* **Timeout**: every attempt is cut at ``timeout`` seconds.
* **Circuit breaker** (:mod:`loregraph.breaker`): ``failure_threshold`` consecutive failed
  attempts (rate limits do not count: they are waited out) open it; while open every call
  fails at once with :class:`~loregraph.llm.errors.CircuitOpenError`; after
  ``reset_after`` seconds one trial call is let through (half-open): success closes it,
  failure opens it again.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from loregraph import breaker
from loregraph.llm.errors import CircuitOpenError, LLMTimeoutError, LLMTransientError

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


class CircuitBreaker(breaker.CircuitBreaker):
    """The LLM's circuit breaker (:class:`loregraph.breaker.CircuitBreaker`); while it is
    open, calls fail at once with :class:`~loregraph.llm.errors.CircuitOpenError`."""

    error = CircuitOpenError


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How transient failures are retried (see the module docstring)."""

    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0

    def delay(self, attempt: int, error: LLMTransientError, rng: random.Random) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (``attempt`` from 0)."""
        if error.retry_after is not None:
            return max(0.0, min(error.retry_after, self.max_retry_after))
        ceiling = min(self.max_delay, self.base_delay * (2**attempt))
        return rng.uniform(0.0, ceiling)


RetryHook = Callable[[int, LLMTransientError, float], None]


class Resilience:
    """Runs calls under a concurrency limit, a timeout, retries and a circuit breaker.

    Args:
        concurrency: attempts in flight at most (default 5).
        timeout: seconds per attempt (``None``: no limit).
        retry: the retry policy.
        breaker: the circuit breaker (``None``: none).
        sleep: awaited between retries (``asyncio.sleep``; tests pass a recorder).
        rng: jitter source.
    """

    def __init__(
        self,
        *,
        concurrency: int = 5,
        timeout: float | None = 120.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.concurrency = concurrency
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.breaker = breaker if breaker is not None else CircuitBreaker()
        self.sleep = sleep
        self.rng = rng or random.Random()
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    async def call(
        self,
        attempt_fn: Callable[[], Awaitable[T]],
        *,
        on_retry: RetryHook | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> T:
        """Run ``attempt_fn`` until it succeeds, fails permanently, or retries run out.

        ``timeout`` and ``max_retries`` override the instance's for this call.
        """
        limit = self.timeout if timeout is None else timeout
        retries = self.retry.max_retries if max_retries is None else max_retries
        attempt = 0
        while True:
            self.breaker.before_call()
            try:
                result = await self._attempt(attempt_fn, limit)
            except LLMTransientError as exc:
                if not exc.rate_limited:
                    self.breaker.record_failure(str(exc))
                if attempt >= retries:
                    raise
                wait = self.retry.delay(attempt, exc, self.rng)
                if on_retry is not None:
                    on_retry(attempt + 1, exc, wait)
                attempt += 1
                await self.sleep(wait)
                continue
            except CircuitOpenError:
                raise
            except Exception as exc:
                self.breaker.record_failure(str(exc))
                raise
            self.breaker.record_success()
            return result

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # one semaphore per event loop
            self._slots, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._slots

    async def _attempt(self, attempt_fn: Callable[[], Awaitable[T]], limit: float | None) -> T:
        async with self._semaphore():
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                if limit is None:
                    return await attempt_fn()
                try:
                    return await asyncio.wait_for(attempt_fn(), limit)
                except TimeoutError:
                    raise LLMTimeoutError(f"the LLM call timed out after {limit:g} s") from None
            finally:
                self.in_flight -= 1

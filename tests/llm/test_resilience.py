"""Circuit breaker, retry delays and the concurrency bound (fake clock, no sleeping)."""

from __future__ import annotations

import asyncio
import random

import pytest

from loregraph.llm.base import Message
from loregraph.llm.errors import CircuitOpenError, LLMTransientError
from loregraph.llm.resilience import CircuitBreaker, Resilience, RetryPolicy

from .fake_server import FakeLLMServer, Reply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_after_three_failures_and_half_opens_after_30_s() -> None:
    clock = Clock()
    breaker = CircuitBreaker(clock=clock)
    for _ in range(2):
        breaker.record_failure("boom")
    assert breaker.state == "closed"
    breaker.record_failure("boom")
    assert breaker.state == "open"
    with pytest.raises(CircuitOpenError, match="3 consecutive failures"):
        breaker.before_call()
    clock.now += 29.9
    assert breaker.state == "open"
    clock.now += 0.2
    assert breaker.state == "half_open"
    breaker.before_call()  # the one trial call
    with pytest.raises(CircuitOpenError):
        breaker.before_call()  # a second caller waits for the trial
    breaker.record_failure("still down")
    assert breaker.state == "open"  # a failed trial re-opens at once
    clock.now += 30
    breaker.before_call()
    breaker.record_success()
    assert breaker.state == "closed"
    breaker.before_call()


def test_retry_delay_is_exponential_with_jitter_or_retry_after() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(7)
    plain = LLMTransientError("503", status=503)
    for attempt in range(6):
        delay = policy.delay(attempt, plain, rng)
        assert 0.0 <= delay <= min(8.0, 2.0**attempt)
    assert policy.delay(0, LLMTransientError("429", status=429, retry_after=12.0), rng) == 12.0
    huge = LLMTransientError("429", status=429, retry_after=10_000.0)
    assert policy.delay(0, huge, rng) == policy.max_retry_after


async def test_open_breaker_stops_calls_reaching_the_server(
    server: FakeLLMServer, make_client
) -> None:
    clock = Clock()
    client = make_client(breaker=CircuitBreaker(clock=clock), max_retries=0)
    server.push(*(Reply(status=500, error="down") for _ in range(3)))
    for _ in range(3):
        with pytest.raises(LLMTransientError):
            await client.complete([Message("user", "x")], stage="s")
    with pytest.raises(CircuitOpenError):
        await client.complete([Message("user", "x")], stage="s")
    assert len(server.chat_calls()) == 3
    clock.now += 30
    server.push('{"ok": true}')
    completion = await client.complete([Message("user", "x")], stage="s")
    assert completion.text == '{"ok": true}'
    assert client.resilience.breaker.state == "closed"


async def test_rate_limits_do_not_open_the_breaker(server: FakeLLMServer, make_client, sleeps):
    client = make_client(max_retries=5)
    server.push(*(Reply(status=429, headers={"Retry-After": "1"}) for _ in range(4)), "done")
    completion = await client.complete([Message("user", "x")], stage="s")
    assert completion.text == "done"
    assert sleeps.delays == [1.0, 1.0, 1.0, 1.0]
    assert client.resilience.breaker.state == "closed"


async def test_concurrency_never_exceeds_the_limit(server: FakeLLMServer, make_client) -> None:
    server.responder = lambda call: Reply('{"n": 1}', delay=0.05)
    client = make_client(concurrency=3)
    await asyncio.gather(
        *(client.complete([Message("user", f"q{i}")], stage="s") for i in range(12))
    )
    assert len(server.chat_calls()) == 12
    assert server.max_in_flight <= 3
    assert client.resilience.max_in_flight == 3


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Resilience(concurrency=0)

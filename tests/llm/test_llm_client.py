"""The client against the fake server: retries, timeouts, empty and malformed replies,
structured-output fallback, the cache, streaming, and the Anthropic provider."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from loregraph.llm.base import Message
from loregraph.llm.cache import SqliteResponseCache
from loregraph.llm.errors import (
    LLMOutputError,
    LLMPermanentError,
    LLMTimeoutError,
    LLMTransientError,
)
from loregraph.llm.openai_client import is_format_rejection
from loregraph.llm.parse import ParsedJSON
from loregraph.llm.resilience import CircuitBreaker
from loregraph.llm.structured import complete_json

from .fake_server import FakeLLMServer, Reply

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
ASK = [Message("system", "Reply in JSON."), Message("user", "What is six times seven?")]


def answer_of(parsed: ParsedJSON) -> int:
    if not isinstance(parsed.value, dict) or "answer" not in parsed.value:
        raise ValueError('expected {"answer": <integer>}')
    return int(parsed.value["answer"])


async def ask(client, **kwargs):
    return await complete_json(
        client, ASK, schema=SCHEMA, schema_name="answer", validate=answer_of, stage="t", **kwargs
    )


async def test_429_then_success_honours_retry_after(server: FakeLLMServer, make_client, sleeps):
    server.push(
        Reply(status=429, headers={"Retry-After": "7"}, error="slow down"), '{"answer": 42}'
    )
    client = make_client()
    outcome = await ask(client)
    assert outcome.value == 42
    assert sleeps.delays == [7.0]
    usage = client.usage.stage("t")
    assert (usage.calls, usage.retries, usage.failures) == (2, 1, 0)


async def test_server_errors_back_off_with_jitter(server: FakeLLMServer, make_client, sleeps):
    server.push(Reply(status=503), Reply(status=502), '{"answer": 1}')
    outcome = await ask(make_client())
    assert outcome.value == 1
    assert len(sleeps.delays) == 2
    assert 0.0 <= sleeps.delays[0] <= 0.5 and 0.0 <= sleeps.delays[1] <= 1.0


async def test_a_call_that_times_out_is_retried(server: FakeLLMServer, make_client) -> None:
    server.push(Reply('{"answer": 0}', delay=5.0), '{"answer": 3}')
    client = make_client(timeout=0.3)
    outcome = await ask(client)
    assert outcome.value == 3
    assert client.usage.stage("t").retries == 1


async def test_timeouts_every_time_raise_after_the_retries(server: FakeLLMServer, make_client):
    server.responder = lambda call: Reply('{"answer": 0}', delay=5.0)
    client = make_client(timeout=0.2, max_retries=1)
    with pytest.raises(LLMTimeoutError, match="timed out"):
        await ask(client)
    usage = client.usage.stage("t")
    assert (usage.calls, usage.failures) == (2, 1)


async def test_permanent_errors_are_not_retried(server: FakeLLMServer, make_client, sleeps):
    server.push(Reply(status=401, error="invalid api key"))
    client = make_client()
    with pytest.raises(LLMPermanentError, match="invalid api key"):
        await ask(client)
    assert sleeps.delays == []
    assert len(server.chat_calls()) == 1


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"answer": 42}\n```',
        '{"answer": 42,}',
        "{'answer': 42}",
        'The answer is below.\n{"answer": 42}\nThanks!',
        '{"answer": 42',
    ],
)
async def test_malformed_replies_are_repaired_without_another_call(
    server: FakeLLMServer, make_client, reply: str
) -> None:
    server.push(reply)
    client = make_client()
    outcome = await ask(client)
    assert outcome.value == 42 and outcome.repairs
    assert len(server.chat_calls()) == 1
    assert client.usage.stage("t").repairs == 1


async def test_unusable_reply_gets_one_corrective_retry_showing_the_error(
    server: FakeLLMServer, make_client
) -> None:
    server.push('{"result": "forty-two"}', '{"answer": 42}')
    client = make_client()
    outcome = await ask(client)
    assert outcome.value == 42 and outcome.corrected
    retry = server.chat_calls()[1]
    assert 'expected {"answer": <integer>}' in retry.last_user
    assert '"required": ["answer"]' in retry.last_user  # the schema is shown
    assert retry.messages[-2] == {"role": "assistant", "content": '{"result": "forty-two"}'}
    assert client.usage.stage("t").corrections == 1


async def test_a_model_that_returns_nothing_fails_and_is_not_cached(
    server: FakeLLMServer, make_client, cache_file: Path
) -> None:
    server.push(Reply(""), Reply(""))
    cache = SqliteResponseCache(cache_file)
    client = make_client(cache=cache)
    with pytest.raises(LLMOutputError, match="empty"):
        await ask(client)
    assert len(cache) == 0  # the next run asks again
    assert client.usage.stage("t").failures == 1
    server.push('{"answer": 5}')
    assert (await ask(client)).value == 5


async def test_structured_output_falls_back_when_the_server_rejects_it(make_client) -> None:
    with FakeLLMServer(reject_json_schema=True) as strict:
        strict.push('{"answer": 9}', '{"answer": 10}')
        client = make_client(srv=strict)
        assert (await ask(client)).value == 9
        assert client.model.mode == "json_object"
        assert (await ask(client, max_tokens=100)).value == 10
        formats = [c.body.get("response_format", {}).get("type") for c in strict.chat_calls()]
        assert formats == ["json_schema", "json_object", "json_object"]


async def test_a_500_naming_response_format_falls_back_at_once(make_client, sleeps) -> None:
    """llama.cpp's server refuses ``json_schema`` with a 500: no retry, no breaker count."""
    with FakeLLMServer(reject_json_schema=True, reject_status=500) as llama:
        llama.push('{"answer": 9}', '{"answer": 10}')
        breaker = CircuitBreaker(failure_threshold=1)
        client = make_client(srv=llama, breaker=breaker, max_retries=3)
        assert (await ask(client)).value == 9
        assert (await ask(client)).value == 10
        formats = [c.body.get("response_format", {}).get("type") for c in llama.chat_calls()]
        assert formats == ["json_schema", "json_object", "json_object"]
        assert sleeps.delays == []  # no backoff: nothing was retried
        usage = client.usage.stage("t")
        assert (usage.retries, usage.failures) == (0, 0)
        assert usage.calls == 3 and usage.notes == {"format_rejected": 1}
        assert breaker.state == "closed" and breaker.failures == 0


async def test_every_json_mode_refused_falls_back_to_plain_prompts(make_client) -> None:
    with FakeLLMServer(reject_formats=("json_schema", "json_object"), reject_status=500) as srv:
        srv.push('Sure: {"answer": 4}')
        client = make_client(srv=srv, breaker=CircuitBreaker(failure_threshold=1))
        assert (await ask(client)).value == 4
        formats = [c.body.get("response_format", {}).get("type") for c in srv.chat_calls()]
        assert formats == ["json_schema", "json_object", None]
        assert client.model.mode == "none"


async def test_a_500_that_does_not_name_the_format_is_retried(
    server: FakeLLMServer, make_client, sleeps
) -> None:
    server.push(Reply(status=500, error="CUDA out of memory"), '{"answer": 1}')
    client = make_client()
    assert (await ask(client)).value == 1
    assert client.model.mode == "json_schema"  # no fallback for an unrelated error
    assert client.usage.stage("t").retries == 1 and len(sleeps.delays) == 1


def test_format_rejection_is_read_from_the_message_whatever_the_status() -> None:
    assert is_format_rejection(LLMTransientError("'response_format', 'type'", status=500))
    assert is_format_rejection(LLMPermanentError("bad json_schema", status=400))
    assert is_format_rejection(LLMPermanentError("invalid schema", status=422))
    assert not is_format_rejection(LLMTransientError("invalid schema", status=500))
    assert not is_format_rejection(LLMTransientError("response_format busy", status=429))
    assert not is_format_rejection(LLMTransientError("overloaded", status=503))


async def test_cached_replies_cost_nothing_and_survive_a_new_client(
    server: FakeLLMServer, make_client, cache_file: Path
) -> None:
    server.responder = lambda call: Reply('{"answer": 42}', delay=0.05)
    first = make_client(cache=SqliteResponseCache(cache_file))
    results = await asyncio.gather(*(ask(first) for _ in range(4)))  # identical, concurrent
    assert [r.value for r in results] == [42] * 4
    assert len(server.chat_calls()) == 1
    second = make_client(cache=SqliteResponseCache(cache_file))
    assert (await ask(second)).value == 42
    assert len(server.chat_calls()) == 1
    assert second.usage.stage("t").cached == 1 and second.usage.stage("t").calls == 0


async def test_streaming_retries_before_the_first_piece(
    server: FakeLLMServer, make_client, sleeps
) -> None:
    server.push(Reply(status=429, headers={"Retry-After": "2"}), "one two three")
    client = make_client()
    pieces = [p async for p in client.stream(ASK, stage="answer")]
    assert "".join(pieces) == "one two three"
    assert len(pieces) == 3
    assert sleeps.delays == [2.0]
    usage = client.usage.stage("answer")
    assert usage.calls == 2 and usage.completion_tokens > 0


async def test_anthropic_provider_uses_a_forced_tool_for_json(
    server: FakeLLMServer, make_client
) -> None:
    server.push('{"answer": 42}', "It is [1] forty-two.")
    client = make_client(provider="anthropic")
    assert (await ask(client)).value == 42
    request = server.chat_calls()[0]
    assert request.path == "/v1/messages"
    assert request.body["system"] == "Reply in JSON."
    assert request.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert request.body["tools"][0]["input_schema"] == SCHEMA
    text = "".join([p async for p in client.stream(ASK, stage="answer")])
    assert text == "It is [1] forty-two."
    assert client.usage.stage("answer").prompt_tokens > 0


async def test_anthropic_rate_limit_is_retried(server: FakeLLMServer, make_client, sleeps):
    server.push(Reply(status=429, headers={"retry-after": "3"}), json.dumps({"answer": 1}))
    assert (await ask(make_client(provider="anthropic"))).value == 1
    assert sleeps.delays == [3.0]

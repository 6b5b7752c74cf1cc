"""JSON replies: structured output where the provider supports it, tolerant parsing and one
corrective retry where it does not.

:func:`complete_json` asks for a JSON object matching a schema, parses the reply with
:func:`~loregraph.llm.parse.parse_json`, checks it with the caller's ``validate`` function,
and, when that fails, asks once more, showing the model its reply and what was wrong with
it. Repairs and corrections are counted in the client's usage tracker. A reply that is
still unusable raises :class:`~loregraph.llm.errors.LLMOutputError`, and the unusable
replies are dropped from the cache so that the next run asks again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from loregraph.llm.base import Completion, JsonSchema, Message
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMOutputError
from loregraph.llm.parse import JSONParseError, ParsedJSON, parse_json
from loregraph.llm.prompts import PromptLibrary

T = TypeVar("T")
Validate = Callable[[ParsedJSON], T]
"""Turns a parsed reply into the caller's type; raises ``ValueError`` saying what is wrong."""


@dataclass(slots=True)
class JsonOutcome(Generic[T]):
    """A validated reply with what it took to get it."""

    value: T
    repairs: list[str] = field(default_factory=list)
    corrected: bool = False
    completions: list[Completion] = field(default_factory=list)


async def complete_json(
    client: LLMClient,
    messages: Sequence[Message],
    *,
    schema: JsonSchema,
    schema_name: str,
    validate: Validate[T],
    stage: str,
    prompts: PromptLibrary | None = None,
    max_tokens: int = 4096,
    temperature: float = 0.0,
    structured: bool = True,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> JsonOutcome[T]:
    """Ask for a JSON object, parse it tolerantly, validate it, correct it once.

    ``structured=False`` never sends the schema as a response format (some servers reject
    or ignore it); the schema is still shown to the model in the corrective retry.
    """
    library = prompts or PromptLibrary()
    convo = list(messages)
    completions: list[Completion] = []
    error = ""
    for attempt in range(2):
        completion = await client.complete(
            convo,
            stage=stage,
            json_schema=schema if structured else None,
            schema_name=schema_name,
            max_tokens=max_tokens,
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
        )
        completions.append(completion)
        try:
            parsed = parse_json(completion.text)
            value = validate(parsed)
        except (JSONParseError, ValueError, TypeError, KeyError) as exc:
            error = _describe(exc, completion)
            if attempt == 0:
                client.usage.count(stage, corrections=1)
                convo = [
                    *convo,
                    Message("assistant", completion.text),
                    *library.messages(
                        "correct_json",
                        error=error,
                        schema=json.dumps(schema, ensure_ascii=False),
                    ),
                ]
            continue
        if parsed.repaired:
            client.usage.count(stage, repairs=1)
        return JsonOutcome(value, list(parsed.repairs), attempt > 0, completions)
    for completion in completions:
        await client.forget(completion)
    client.usage.count(stage, failures=1)
    raise LLMOutputError(f"the model's reply could not be used after a corrective retry: {error}")


def _describe(exc: BaseException, completion: Completion) -> str:
    text = str(exc) or exc.__class__.__name__
    if completion.finish_reason in ("length", "max_tokens"):
        text += " (the reply was cut off at the token limit; keep it shorter)"
    return text

"""What every stage that asks a model holds: the client, the prompt library, and whether
JSON schemas are sent as response formats.

The LLM extractor, the merge confirmer, the query analyser and the answerer extend
:class:`LLMStage`; the JSON stages ask through :meth:`LLMStage.ask_json`, which is
:func:`~loregraph.llm.structured.complete_json` with the stage's client, prompts and
``structured`` filled in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from loregraph.llm.base import JsonSchema, Message
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMError
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.structured import JsonOutcome, Validate, complete_json

T = TypeVar("T")


class LLMStage:
    """The model client and prompts of a stage.

    Args:
        client: the model client (cache, concurrency, retries, usage).
        prompts: the prompt library (default: the packaged prompts).
        structured: send JSON schemas as response formats where the provider can (stages
            that ask for JSON).
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        structured: bool = True,
    ) -> None:
        self.client = client
        self.prompts = prompts or PromptLibrary()
        self.structured = structured

    async def ask_json(
        self,
        messages: Sequence[Message],
        *,
        schema: JsonSchema,
        schema_name: str,
        validate: Validate[T],
        stage: str,
        max_tokens: int,
        temperature: float = 0.0,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> JsonOutcome[T]:
        """A validated JSON reply (:func:`~loregraph.llm.structured.complete_json`)."""
        return await complete_json(
            self.client,
            messages,
            schema=schema,
            schema_name=schema_name,
            validate=validate,
            stage=stage,
            prompts=self.prompts,
            max_tokens=max_tokens,
            temperature=temperature,
            structured=self.structured,
            timeout=timeout,
            max_retries=max_retries,
        )


class QuickStage(LLMStage):
    """A stage a question waits for (the query analyser, the intent router): one call
    within ``timeout`` seconds and no retries; a reply below ``min_confidence`` is not used.

    Args:
        client / prompts / structured: as for :class:`LLMStage`.
        min_confidence: below this the stage's offline answer is used (default 0.5).
        timeout: seconds for the call.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        min_confidence: float = 0.5,
        timeout: float = 20.0,
        structured: bool = True,
    ) -> None:
        super().__init__(client, prompts=prompts, structured=structured)
        self.min_confidence = min_confidence
        self.timeout = timeout

    async def ask_quickly(
        self,
        what: str,
        messages: Sequence[Message],
        *,
        schema: JsonSchema,
        validate: Validate[T],
        stage: str,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> T | str:
        """The validated reply to a prompt named ``what``, or a string saying why there is
        none (``the LLM <what, in words> failed: ...``)."""
        try:
            outcome = await self.ask_json(
                messages,
                schema=schema,
                schema_name=what,
                validate=validate,
                stage=stage,
                max_tokens=max_tokens,
                temperature=temperature,
                timeout=self.timeout,
                max_retries=0,
            )
        except LLMError as exc:
            return f"the LLM {what.replace('_', ' ')} failed: {exc}"
        return outcome.value

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

"""What the engine needs of an answerer, and the offline one.

An :class:`Answerer` turns a retrieval result into an :class:`~loregraph.answer.types.Answer`,
whole (:meth:`Answerer.answer`) or as it is written (:meth:`Answerer.stream`).
:class:`ExtractiveAnswerer` quotes the best evidence sentences and needs nothing but the
result; :class:`~loregraph.answer.llm.LLMAnswerer` has a model write a cited answer. The
engine picks one when it is built and never asks which it has.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Protocol

from loregraph.answer.extractive import extractive_answer
from loregraph.answer.types import Answer
from loregraph.retrieve.result import RetrievalResult


class AnswerStream(Protocol):
    """Answer text pieces as they come; :attr:`answer` is set once the stream is exhausted."""

    answer: Answer | None

    def __aiter__(self) -> AsyncIterator[str]: ...

    async def __anext__(self) -> str: ...

    async def aclose(self) -> None:
        """Stop early."""


class Answerer(Protocol):
    """Writes the answer to a retrieval result's question, with citations."""

    async def answer(self, result: RetrievalResult) -> Answer:
        """The whole answer."""
        ...

    def stream(self, result: RetrievalResult) -> AnswerStream:
        """The answer as it is written."""
        ...


class ExtractiveAnswerer:
    """The offline answerer: the best evidence sentences quoted verbatim, in one piece.

    Args:
        max_sentences: how many sentences the answer quotes at most.
    """

    def __init__(self, max_sentences: int = 5) -> None:
        self.max_sentences = max_sentences

    async def answer(self, result: RetrievalResult) -> Answer:
        """The extractive answer (see :func:`~loregraph.answer.extractive.extractive_answer`)."""
        return extractive_answer(result, self.max_sentences)

    def stream(self, result: RetrievalResult) -> AnswerStream:
        """The extractive answer as a stream of one piece."""
        return _OnePiece(extractive_answer(result, self.max_sentences))


class _OnePiece:
    """A finished answer served as a stream of one piece."""

    def __init__(self, answer: Answer) -> None:
        self.answer: Answer | None = answer
        self._gen = self._run(answer.text)

    def __aiter__(self) -> _OnePiece:
        return self

    async def __anext__(self) -> str:
        return await anext(self._gen)

    async def aclose(self) -> None:
        await self._gen.aclose()

    @staticmethod
    async def _run(text: str) -> AsyncGenerator[str, None]:
        yield text

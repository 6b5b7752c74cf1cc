"""What the engine needs of an answerer, and the offline one.

An :class:`Answerer` turns a retrieval result into an :class:`~loregraph.answer.types.Answer`,
whole (:meth:`Answerer.answer`) or as it is written (:meth:`Answerer.stream`).
:class:`ExtractiveAnswerer` quotes the best evidence sentences and needs nothing but the
result; :class:`~loregraph.answer.llm.LLMAnswerer` has a model write a cited answer. The
engine picks one when it is built and never asks which it has.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Protocol, Self

from loregraph.answer.extractive import extractive_answer
from loregraph.answer.types import Answer
from loregraph.retrieve.results.result import RetrievalResult


class PieceStream:
    """Text pieces drawn from an async generator; :attr:`answer` is set by the time it ends.

    The answer streams of every answerer, and the engine's streamed answer, are this.
    """

    def __init__(self, pieces: AsyncGenerator[str, None]) -> None:
        self.answer: Answer | None = None
        self._gen = pieces

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        return await anext(self._gen)

    async def aclose(self) -> None:
        """Stop early (a model's reply stops too)."""
        await self._gen.aclose()


class Answerer(Protocol):
    """Writes the answer to a retrieval result's question, with citations."""

    async def answer(self, result: RetrievalResult) -> Answer:
        """The whole answer."""
        ...

    def stream(self, result: RetrievalResult) -> PieceStream:
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

    def stream(self, result: RetrievalResult) -> PieceStream:
        """The extractive answer as a stream of one piece."""
        return _one_piece_stream(extractive_answer(result, self.max_sentences))


async def _one_piece(text: str) -> AsyncGenerator[str, None]:
    yield text


def _one_piece_stream(answer: Answer) -> PieceStream:
    """A finished answer served as a stream of one piece."""
    stream = PieceStream(_one_piece(answer.text))
    stream.answer = answer
    return stream

"""Answers as they are written: :class:`StreamedAnswer` (async) and its blocking facade.

:meth:`loregraph.graph.AsyncGraph.ask_stream` returns a :class:`StreamedAnswer`;
:meth:`loregraph.blocking.Graph.ask_stream` a :class:`BlockingStreamedAnswer`. With an LLM the
pieces are the model's reply as it arrives, then its ``Sources``; without one, the
extractive answer in one piece.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

from loregraph.answer.base import Answerer, PieceStream
from loregraph.answer.types import Answer
from loregraph.retrieve.results.result import RetrievalResult

T = TypeVar("T")


class _Runner(Protocol):
    def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...


class StreamedAnswer(PieceStream):
    """An answer as it is written: an async iterator of text pieces.

    Retrieval runs when the first piece is asked for. Once the iterator is exhausted,
    :attr:`answer` holds the :class:`Answer` (text and citations) and :attr:`retrieval`
    what it was written from. Call :meth:`aclose` to stop early.

    Args:
        question: the question.
        retrieve: returns the retrieval result the answer is written from.
        answerer: writes the answer (a model, or the offline extractive answerer).
    """

    def __init__(
        self,
        question: str,
        retrieve: Callable[[], Awaitable[RetrievalResult]],
        answerer: Answerer,
    ) -> None:
        self.question = question
        self.retrieval: RetrievalResult | None = None
        super().__init__(self._run(retrieve, answerer))

    async def _run(
        self,
        retrieve: Callable[[], Awaitable[RetrievalResult]],
        answerer: Answerer,
    ) -> AsyncGenerator[str, None]:
        result = await retrieve()
        self.retrieval = result
        stream = answerer.stream(result)
        try:
            async for piece in stream:
                yield piece
        finally:
            await stream.aclose()
        self.answer = stream.answer


class BlockingStreamedAnswer:
    """The blocking facade's :class:`StreamedAnswer`: ``for piece in graph.ask_stream(q)``."""

    def __init__(self, runner: _Runner, stream: StreamedAnswer) -> None:
        self._runner = runner
        self._stream = stream

    @property
    def answer(self) -> Answer | None:
        """The answer with its citations, once the pieces are all read."""
        return self._stream.answer

    @property
    def retrieval(self) -> RetrievalResult | None:
        """What the answer was written from (after the first piece)."""
        return self._stream.retrieval

    def __iter__(self) -> BlockingStreamedAnswer:
        return self

    def __next__(self) -> str:
        piece = self._runner._run(_next_piece(self._stream))
        if piece is None:
            raise StopIteration
        return piece

    def close(self) -> None:
        """Stop early."""
        self._runner._run(self._stream.aclose())


async def _next_piece(stream: StreamedAnswer) -> str | None:
    try:
        return await anext(stream)
    except StopAsyncIteration:
        return None


__all__ = ["BlockingStreamedAnswer", "StreamedAnswer"]

"""Answers written by a model from the assembled context, streamed, with citations (seed 004).

The retrieval result is fitted to its token budget and rendered (markdown by default:
entities, relationships, numbered passages); the model is told to cite passages as
``[n]`` and to say plainly what the context does not contain. :class:`AnswerStream` yields
the reply as it arrives and then a ``Sources`` block; once it is exhausted, ``.answer``
holds the :class:`~loregraph.answer.types.Answer`, whose citations map each number the
model used to its document, chunk and character offsets. Numbers outside the context are
left in the text, not mapped, and counted (``invalid_citations``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

from loregraph.answer.types import Answer, Citation
from loregraph.llm.client import LLMClient
from loregraph.llm.prompts import PromptLibrary
from loregraph.retrieve.budget import fit_budget
from loregraph.retrieve.formats import renderer_for
from loregraph.retrieve.result import Passage, RetrievalResult

STAGE = "answer"
NOTHING_FOUND = (
    "The documents hold nothing that matches this question, so it cannot be answered from them."
)
_CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def cited_numbers(text: str) -> list[int]:
    """The passage numbers cited in ``text`` (``[1]``, ``[2, 3]``, ``[4][5]``), in order."""
    out: list[int] = []
    for match in _CITATION.finditer(text):
        for part in re.split(r"[,;]", match.group(1)):
            number = int(part.strip())
            if number not in out:
                out.append(number)
    return out


def citations_for(text: str, passages: list[Passage]) -> tuple[list[Citation], list[int]]:
    """Citations for the numbers used in ``text`` (1-based into ``passages``), and the
    numbers that match no passage."""
    citations: list[Citation] = []
    invalid: list[int] = []
    for number in sorted(cited_numbers(text)):
        if not 1 <= number <= len(passages):
            invalid.append(number)
            continue
        p = passages[number - 1]
        citations.append(
            Citation(
                index=number,
                document_id=p.document_id,
                document_title=p.document_title,
                chunk_id=p.chunk_id,
                seq=p.seq,
                start=p.start,
                end=p.end,
                quote=p.text,
            )
        )
    return citations, invalid


def sources_block(citations: list[Citation]) -> str:
    """``Sources:`` and one line per citation (empty when there are none)."""
    if not citations:
        return ""
    lines = [
        f"[{c.index}] {c.document_title}, chunk {c.seq} (characters {c.start}–{c.end})"
        for c in citations
    ]
    return "Sources:\n" + "\n".join(lines)


class LLMAnswerer:
    """Writes cited answers with a model.

    Args:
        client: the model client.
        prompts: prompt library (``answer`` prompt).
        context_format: ``markdown`` or ``xml`` (both number their passages).
        max_tokens / temperature: generation settings (seed 004: 4096, 0.3).
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        context_format: str = "markdown",
        max_tokens: int = 4096,
        temperature: float = 0.3,
    ) -> None:
        self.client = client
        self.prompts = prompts or PromptLibrary()
        self.context_format = context_format
        self.max_tokens = max_tokens
        self.temperature = temperature

    def stream(self, result: RetrievalResult) -> AnswerStream:
        """Stream the answer to ``result.question``; ``.answer`` is set when it ends."""
        return AnswerStream(self, result)

    async def answer(self, result: RetrievalResult) -> Answer:
        """The whole answer (the stream, consumed)."""
        stream = self.stream(result)
        async for _ in stream:
            pass
        assert stream.answer is not None
        return stream.answer


class AnswerStream:
    """An async iterator of answer text pieces; :attr:`answer` is set once it is exhausted.

    The pieces joined are exactly ``answer.text``: the model's reply, then a blank line and
    the ``Sources`` block of the passages it cited.
    """

    def __init__(self, answerer: LLMAnswerer, result: RetrievalResult) -> None:
        self.answerer = answerer
        self.result = result
        self.answer: Answer | None = None
        self._gen = self._run()

    def __aiter__(self) -> AnswerStream:
        return self

    async def __anext__(self) -> str:
        return await anext(self._gen)

    async def aclose(self) -> None:
        """Stop early (closes the model's stream)."""
        await self._gen.aclose()

    async def _run(self) -> AsyncGenerator[str, None]:
        result = self.result
        a = self.answerer
        if not (result.passages or result.entities or result.relations):
            self.answer = Answer(result.question, NOTHING_FOUND, [], llm=False, retrieval=result)
            yield NOTHING_FOUND
            return
        view, context = fit_budget(result, renderer_for(a.context_format), result.token_budget)
        originals = {p.chunk_id: p for p in result.passages}
        passages = [originals.get(p.chunk_id, p) for p in view.passages]
        messages = a.prompts.messages("answer", question=result.question, context=context)
        pieces: list[str] = []
        async for piece in a.client.stream(
            messages, stage=STAGE, max_tokens=a.max_tokens, temperature=a.temperature
        ):
            pieces.append(piece)
            yield piece
        reply = "".join(pieces)
        citations, invalid = citations_for(reply, passages)
        if invalid:
            a.client.usage.count(STAGE, invalid_citations=len(invalid))
        block = sources_block(citations)
        tail = ("\n\n" if reply.strip() else "") + block if block else ""
        if tail:
            yield tail
        self.answer = Answer(
            question=result.question,
            text=reply + tail,
            citations=citations,
            llm=True,
            retrieval=result,
        )


__all__ = [
    "AnswerStream",
    "LLMAnswerer",
    "citations_for",
    "cited_numbers",
    "sources_block",
]

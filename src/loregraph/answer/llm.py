"""Answers written by a model from the assembled context, streamed, with citations.

The retrieval result is fitted to its token budget and rendered (markdown by default:
entities, relationships, numbered passages); the model is told to cite passages as
``[n]`` and to say plainly what the context does not contain. :class:`AnswerStream` yields
the reply as it arrives and then a ``Sources`` block; once it is exhausted, ``.answer``
holds the :class:`~loregraph.answer.types.Answer`, whose citations map each number the
model used to its document, chunk and character offsets.

Any model, weak ones included, is kept in bounds (:mod:`.answer_guard`): the reply is
capped in tokens (``max_tokens``, default 512) and in time (``time_limit``, default
120 s, first piece included); citations of passages that do not exist are removed
(``invalid_citations``), and so are source lists the model writes itself
(``invented_sources``); a looping reply is stopped. A reply cut short ends with a note
saying why. A reply that is unusable — empty, only repetition, failing, or citing none of
the passages when there are passages — is replaced by the offline extractive answer, which
says so (counted as a ``fallback`` of the ``answer`` stage).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable

from loregraph.answer.base import PieceStream
from loregraph.answer.extractive import NO_LLM, extractive_answer, nothing_found
from loregraph.answer.guard import Cleaned, clean_reply, valid_citations
from loregraph.answer.types import Answer, Citation
from loregraph.llm.base import Completion, Message
from loregraph.llm.client import LLMClient
from loregraph.llm.errors import LLMError
from loregraph.llm.prompts import PromptLibrary
from loregraph.llm.stage import LLMStage
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.results.result import Passage, RetrievalResult

STAGE = "answer"
NOTHING_FOUND = (
    "The documents hold nothing that matches this question, so it cannot be answered from them."
)
DEFAULT_MAX_TOKENS = 512
DEFAULT_TIME_LIMIT = 120.0
MIN_WORDS = 3
"""A reply with fewer words is no answer."""
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
        citations.append(Citation.of(number, passages[number - 1]))
    return citations, invalid


def _originals(result: RetrievalResult) -> dict[str, Passage]:
    """The passages a citation quotes, by chunk id, as retrieved."""
    return {p.chunk_id: p for p in result.passages}


def sources_block(citations: list[Citation]) -> str:
    """``Sources:`` and one line per citation (empty when there are none)."""
    if not citations:
        return ""
    lines = [f"[{c.index}] {c.label()}" for c in citations]
    return "Sources:\n" + "\n".join(lines)


class LLMAnswerer(LLMStage):
    """Writes cited answers with a model.

    Args:
        client: the model client.
        prompts: prompt library (``answer`` prompt).
        context_format: ``markdown`` or ``xml`` (both number their passages).
        max_tokens: reply limit (default 512: a cited answer is short; a model that does
            not stop is cut there).
        temperature: sampling temperature (default 0.3).
        time_limit: seconds the whole answer may take, first piece included (default 120).
        clock: monotonic clock (tests pass their own).
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompts: PromptLibrary | None = None,
        context_format: str = "markdown",
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.3,
        time_limit: float = DEFAULT_TIME_LIMIT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(client, prompts=prompts)
        self.context_format = context_format
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.time_limit = time_limit
        self.clock = clock

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


class AnswerStream(PieceStream):
    """An async iterator of answer text pieces; :attr:`answer` is set once it is exhausted.

    The pieces joined are exactly ``answer.text``: the model's reply as the guards of
    :mod:`.answer_guard` let it through, a note when it was cut short, then a blank line and
    the ``Sources`` block of the passages it cited. While passages exist, nothing is shown
    until the reply cites one of them; a reply that never does (or is empty, or fails) is
    replaced by the extractive answer, which says why.
    """

    def __init__(self, answerer: LLMAnswerer, result: RetrievalResult) -> None:
        self.answerer = answerer
        self.result = result
        super().__init__(self._run())

    async def _run(self) -> AsyncGenerator[str, None]:
        result = self.result
        a = self.answerer
        if not result.relevant:  # nothing retrieved is about the question: no model call
            answer = nothing_found(result)
            self.answer = answer
            yield answer.text
            return
        if not (result.passages or result.entities or result.relations):
            self.answer = Answer(result.question, NOTHING_FOUND, [], llm=False, retrieval=result)
            yield NOTHING_FOUND
            return
        made = assemble(result, a.context_format)
        shown, context = made.passages, made.text
        originals = _originals(result)
        passages = [originals.get(p.chunk_id, p) for p in shown]
        run = _Reply(len(passages))
        async for piece in self._model_reply(context, run):
            yield piece
        usage = a.client.usage
        cleaned = run.cleaned
        if cleaned.invalid_citations:
            usage.count(STAGE, invalid_citations=len(cleaned.invalid_citations))
        if cleaned.invented_sources:
            usage.count(STAGE, invented_sources=cleaned.invented_sources)
        if cleaned.repeats:
            usage.count(STAGE, repeats_dropped=cleaned.repeats)
        problem = run.problem(a)
        if problem is not None:
            usage.count(STAGE, fallbacks=1)
            answer = _fallback(result, problem)
            piece = ("\n\n" if run.shown else "") + answer.text
            yield piece
            answer.text = run.shown + piece
            self.answer = answer
            return
        reason, note = run.cut_short(a)
        if reason:
            usage.count(STAGE, **{f"stopped_{reason}": 1})
        citations, _ = citations_for(run.shown, passages)
        tail = "".join(f"\n\n{part}" for part in (note, sources_block(citations)) if part)
        if tail:
            yield tail
        self.answer = Answer(
            question=result.question,
            text=run.shown + tail,
            citations=citations,
            llm=True,
            retrieval=result,
        )

    async def _model_reply(self, context: str, run: _Reply) -> AsyncGenerator[str, None]:
        """Stream the model's reply through the guards, within the time limit."""
        a = self.answerer
        messages = a.prompts.messages("answer", question=self.result.question, context=context)
        if self.result.persona is not None:
            messages = with_persona(messages, self.result.persona.system_prompt)

        def ended(completion: Completion) -> None:
            run.finish = completion.finish_reason

        deadline = a.clock() + a.time_limit
        stream = a.client.stream(
            messages,
            stage=STAGE,
            max_tokens=a.max_tokens,
            temperature=a.temperature,
            on_end=ended,
        )
        raw = ""
        try:
            while True:
                remaining = deadline - a.clock()
                if remaining <= 0:
                    run.stopped = "time"
                    break
                try:
                    piece = await asyncio.wait_for(anext(stream), remaining)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    run.stopped = "time"
                    break
                raw += piece
                run.cleaned = clean_reply(raw, run.passages, final=False)
                if run.cleaned.stop:
                    run.stopped = "repetition"
                    break
                delta = run.show(run.cleaned.text)
                if delta:
                    yield delta
        except LLMError as exc:
            run.error = str(exc)
        finally:
            await _close(stream)
        if run.stopped != "repetition":
            run.cleaned = clean_reply(raw, run.passages, final=True)
        delta = run.show(run.cleaned.text)
        if delta:
            yield delta


class _Reply:
    """What is known about the model's reply while and after it streams."""

    def __init__(self, passages: int) -> None:
        self.passages = passages
        self.cleaned = Cleaned()
        self.shown = ""
        self.stopped: str | None = None
        self.finish: str | None = None
        self.error: str | None = None

    def usable(self, text: str) -> bool:
        """Enough words, and a citation of a passage when there are passages."""
        if len(text.split()) < MIN_WORDS:
            return False
        return not self.passages or bool(valid_citations(text, self.passages))

    def show(self, text: str) -> str:
        """The new text to show, given the showable text so far (``""`` while the reply
        is not yet usable, or when it can no longer extend what was shown)."""
        if not self.shown and not self.usable(text):
            return ""
        if not text.startswith(self.shown):
            return ""  # a loop was cut inside what was already shown: show no more
        delta = text[len(self.shown) :]
        self.shown = text
        return delta

    def problem(self, answerer: LLMAnswerer) -> str | None:
        """Why the reply cannot be used, or ``None`` when it can."""
        if self.shown:
            return None
        if self.error is not None:
            return f"the model failed: {self.error}"
        if self.stopped == "time" and not self.cleaned.text.strip():
            return f"it gave no answer within {answerer.time_limit:g} seconds"
        if self.stopped == "repetition" and len(self.cleaned.text.split()) < MIN_WORDS:
            return "it only repeated itself"
        if not self.cleaned.text.strip():
            return "it was empty"
        if len(self.cleaned.text.split()) < MIN_WORDS:
            return "it was too short to be an answer"
        return "it cited none of the passages"

    def cut_short(self, answerer: LLMAnswerer) -> tuple[str, str]:
        """Why a usable answer was cut short and the note saying so (``("", "")`` when it
        was not)."""
        if self.stopped == "repetition":
            return "repetition", (
                "(The model began repeating itself, so its answer was stopped there.)"
            )
        if self.stopped == "time":
            limit = answerer.time_limit
            return "time", f"(The answer was cut off at the {limit:g}-second time limit.)"
        if self.error is not None:
            return "error", f"(The answer was cut off: {self.error})"
        if self.finish in ("length", "max_tokens"):
            return "tokens", f"(The answer was cut off at the {answerer.max_tokens}-token limit.)"
        return "", ""


def with_persona(messages: list[Message], system_prompt: str) -> list[Message]:
    """The messages with the persona's system prompt before the answer's rules."""
    if messages and messages[0].role == "system":
        first = messages[0]
        return [Message("system", f"{system_prompt}\n\n{first.content}"), *messages[1:]]
    return [Message("system", system_prompt), *messages]


def _fallback(result: RetrievalResult, problem: str) -> Answer:
    """The extractive answer, saying why the model's answer is not used."""
    answer = extractive_answer(result)
    notice = f"The model's answer could not be used ({problem})"
    if answer.text.startswith(NO_LLM):
        body = answer.text[len(NO_LLM) :].lstrip("\n")
        answer.text = f"{notice}, so this answer quotes the most relevant passages.\n\n{body}"
    else:
        answer.text = f"{notice}.\n\n{answer.text}"
    answer.llm = False
    return answer


async def _close(stream: AsyncIterator[str]) -> None:
    closer = getattr(stream, "aclose", None)
    if closer is not None:
        await closer()


__all__ = [
    "AnswerStream",
    "LLMAnswerer",
    "citations_for",
    "cited_numbers",
    "sources_block",
]

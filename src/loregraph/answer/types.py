"""Answer records shared by the extractive and the LLM answerers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from loregraph.retrieve.results.result import Passage, RetrievalResult
from loregraph.retrieve.results.sections import source_line


@dataclass(slots=True)
class Citation:
    """A numbered source of an answer: a quote and where it is in its document.

    ``start``/``end`` are character offsets into the document's text (not the chunk's), so
    ``document_text[start:end] == quote``; ``section`` is the heading path of the passage
    it quotes ("CHAPTER IV › JONATHAN HARKER'S JOURNAL"), ``""`` when there is none.
    """

    index: int
    document_id: str
    document_title: str
    chunk_id: str
    seq: int
    start: int
    end: int
    quote: str
    section: str = ""

    @classmethod
    def of(
        cls,
        index: int,
        passage: Passage,
        quote: str | None = None,
        span: tuple[int, int] | None = None,
    ) -> Citation:
        """Citation ``index`` of ``passage``: the whole passage, or ``quote`` found at ``span``
        (offsets in the document)."""
        start, end = span if span is not None else (passage.start, passage.end)
        return cls(
            index,
            passage.document_id,
            passage.document_title,
            passage.chunk_id,
            passage.seq,
            start,
            end,
            passage.text if quote is None else quote,
            passage.section,
        )

    def label(self) -> str:
        """``Title › Section, chunk k (characters a–b)``: where the quote is."""
        return source_line(self.document_title, self.section, self.seq, self.start, self.end)

    def to_dict(self) -> dict[str, Any]:
        """The citation as JSON (every field, by name)."""
        return asdict(self)


@dataclass(slots=True)
class Answer:
    """An answer with its citations; ``llm`` tells whether a language model wrote it.

    ``found`` is ``False`` when nothing in the store answers the question: the text then
    says so, and there are no citations (and no model was asked).
    """

    question: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    llm: bool = False
    retrieval: RetrievalResult | None = None
    found: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The answer as JSON: the question, the answer text, whether anything stored
        answers it, whether a model wrote it, and its citations."""
        return {
            "question": self.question,
            "answer": self.text,
            "found": self.found,
            "llm": self.llm,
            "citations": [citation.to_dict() for citation in self.citations],
        }

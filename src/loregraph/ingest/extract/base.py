"""The extractor interface: one document's chunks in, candidate entities and relations out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from loregraph.ingest.types import ExtractionResult, SourceDocument, TextChunk


@runtime_checkable
class Extractor(Protocol):
    """Finds candidate entities and relations in a document.

    Implementations: :class:`~loregraph.ingest.extract.offline.OfflineExtractor` (spaCy, the
    default with no LLM) and the LLM extractor. The result still goes through type
    normalisation, core-entity selection and resolution, whichever extractor made it.
    """

    name: str

    async def extract(self, document: SourceDocument, chunks: list[TextChunk]) -> ExtractionResult:
        """Extract candidates from ``chunks`` (the whole document, in order)."""
        ...


def identity(extractor: Extractor) -> str:
    """What identifies the extraction an extractor makes, as documents record it: its
    ``name`` (``offline-spacy``, ``llm:<model>``), else its class's name."""
    name = getattr(extractor, "name", None)
    return name if isinstance(name, str) and name else type(extractor).__name__

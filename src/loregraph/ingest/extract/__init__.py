"""Extractors: offline NLP (default) and LLM."""

from loregraph.ingest.extract.base import Extractor

__all__ = ["Extractor"]

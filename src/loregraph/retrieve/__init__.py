"""Retrieval: analyse → seed → expand → gather passages → fuse → budget → format."""

from loregraph.retrieve.formats import FORMATS, format_context
from loregraph.retrieve.graphindex import GraphCache
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.result import (
    Passage,
    QueryAnalysis,
    RankedDocument,
    RankedEntity,
    RankedRelation,
    RetrievalResult,
    StartEntity,
)

__all__ = [
    "FORMATS",
    "GraphCache",
    "Passage",
    "QueryAnalysis",
    "RankedDocument",
    "RankedEntity",
    "RankedRelation",
    "RetrievalResult",
    "Retriever",
    "StartEntity",
    "format_context",
]

"""loregraph: documents and agent memories to a knowledge graph, answered with graph-augmented
retrieval. Offline by default, on one SQLite file.

    import loregraph
    g = loregraph.open("dracula.db")
    g.ingest("dracula.txt")
    print(g.ask("Who gave blood to Lucy in the transfusions?").text)
"""

import importlib
from typing import TYPE_CHECKING, Any

from loregraph.access import ApiKey, Grant, Principal, Role, ScopeLink, Visibility
from loregraph.answer.extractive import Answer, Citation
from loregraph.blocking import Graph, open
from loregraph.embed.base import Embedder
from loregraph.engine.backfill import BackfillReport, Clock
from loregraph.engine.history import History
from loregraph.engine.keys import NewKey
from loregraph.engine.memories import Memory, NewMemory
from loregraph.engine.merge_views import MergeView
from loregraph.engine.passages import PassageView
from loregraph.engine.paths import GraphPath
from loregraph.engine.patterns import EntityRelations, Neighbourhood
from loregraph.engine.questions import Asking
from loregraph.engine.recall import MemoryHit
from loregraph.engine.suggest import Suggestion
from loregraph.engine.views import EntityView, SearchHit, SearchResults
from loregraph.errors import (
    ConfigError,
    DependencyError,
    EmptyInputError,
    EmptyStoreError,
    InputError,
    LoregraphError,
    NotFoundError,
    SchemaVersionError,
)
from loregraph.graph import AsyncGraph, EngineOptions, open_async, open_store
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.progress import Progress
from loregraph.ingest.report import IngestReport
from loregraph.ingest.types import SourceDocument
from loregraph.models import (
    Chunk,
    DeleteReport,
    DocKind,
    Document,
    Entity,
    Mention,
    Relation,
    StoreStats,
)
from loregraph.retrieve.personas import Persona, PersonaLibrary
from loregraph.retrieve.provenance import PersonaReport
from loregraph.retrieve.resilience import GraphStatus
from loregraph.retrieve.result import (
    Passage,
    QueryAnalysis,
    RankedDocument,
    RankedEntity,
    RankedRelation,
    RetrievalResult,
    StartEntity,
)
from loregraph.retrieve.terms import Focus
from loregraph.retrieve.trace import RetrievalTrace
from loregraph.settings import (
    PRESETS,
    ChunkSettings,
    ExtractionSettings,
    LLMSettings,
    ResolutionSettings,
    RetrievalSettings,
    Settings,
)
from loregraph.store.base import Store
from loregraph.store.changes import AuditEntry
from loregraph.streaming import BlockingStreamedAnswer, StreamedAnswer
from loregraph.text.dates import user_time

if TYPE_CHECKING:
    from loregraph.llm.client import LLMClient
    from loregraph.llm.usage import UsageTracker

__version__ = "0.1.0"

_LLM_TYPES = {"LLMClient": "loregraph.llm.client", "UsageTracker": "loregraph.llm.usage"}


def __getattr__(name: str) -> Any:
    """The LLM client's types, imported when first asked for: an offline engine loads no
    LLM code."""
    module = _LLM_TYPES.get(name)
    if module is None:
        raise AttributeError(f"module 'loregraph' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "PRESETS",
    "Answer",
    "ApiKey",
    "Asking",
    "AsyncGraph",
    "AuditEntry",
    "BackfillReport",
    "BlockingStreamedAnswer",
    "Chunk",
    "ChunkSettings",
    "Citation",
    "Clock",
    "ConfigError",
    "DeleteReport",
    "DependencyError",
    "DocKind",
    "Document",
    "Embedder",
    "EmptyInputError",
    "EmptyStoreError",
    "EngineOptions",
    "Entity",
    "EntityRelations",
    "EntityView",
    "ExtractionSettings",
    "Extractor",
    "Focus",
    "Grant",
    "Graph",
    "GraphPath",
    "GraphStatus",
    "History",
    "IngestReport",
    "InputError",
    "LLMClient",
    "LLMSettings",
    "LoregraphError",
    "Memory",
    "MemoryHit",
    "Mention",
    "MergeView",
    "Neighbourhood",
    "NewKey",
    "NewMemory",
    "NotFoundError",
    "Passage",
    "PassageView",
    "Persona",
    "PersonaLibrary",
    "PersonaReport",
    "Principal",
    "Progress",
    "QueryAnalysis",
    "RankedDocument",
    "RankedEntity",
    "RankedRelation",
    "Relation",
    "ResolutionSettings",
    "RetrievalResult",
    "RetrievalSettings",
    "RetrievalTrace",
    "Role",
    "SchemaVersionError",
    "ScopeLink",
    "SearchHit",
    "SearchResults",
    "Settings",
    "SourceDocument",
    "StartEntity",
    "Store",
    "StoreStats",
    "StreamedAnswer",
    "Suggestion",
    "UsageTracker",
    "Visibility",
    "__version__",
    "open",
    "open_async",
    "open_store",
    "user_time",
]

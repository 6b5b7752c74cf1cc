"""loregraph: documents and agent memories to a knowledge graph, answered with graph-augmented
retrieval. Offline by default, on one SQLite file.

    import loregraph
    g = loregraph.open("dracula.db")
    g.ingest("dracula.txt")
    print(g.ask("Who gave blood to Lucy in the transfusions?").text)
"""

import importlib
from typing import TYPE_CHECKING, Any

from loregraph.access import (
    ALL_SCOPES,
    LOCAL,
    ROLE_ALIASES,
    SHARE_ALL,
    SHARE_SELECTIVE,
    SHARES,
    ApiKey,
    Grant,
    Principal,
    Role,
    ScopeLink,
    Visibility,
    check_name,
)
from loregraph.answer.extractive import Answer, Citation
from loregraph.blocking import (
    BlockingAccess,
    BlockingCorrections,
    BlockingExplore,
    BlockingMemories,
    Graph,
    open,
)
from loregraph.copy import CopyReport, copy_locations
from loregraph.embed.base import Embedder
from loregraph.engine.backfill import BackfillReport, Clock
from loregraph.engine.code_context import CodeContext, CodeNote, CodeSymbol
from loregraph.engine.grants import AccessControl
from loregraph.engine.history import Fact, History
from loregraph.engine.impact import Dependent, Impact
from loregraph.engine.keys import NewKey
from loregraph.engine.memories import Memory, NewMemory
from loregraph.engine.merge_views import MergeView
from loregraph.engine.merges import Corrections
from loregraph.engine.passages import PassageView
from loregraph.engine.paths import GraphPath, evidence_sentence
from loregraph.engine.patterns import (
    MAX_HOPS,
    Direction,
    EntityLink,
    EntityRelations,
    Neighbourhood,
)
from loregraph.engine.queries import Explore
from loregraph.engine.questions import Asking, ContextFormat, Only, context_of
from loregraph.engine.recall import MemoryHit
from loregraph.engine.remember import Memories
from loregraph.engine.suggest import Suggestion
from loregraph.engine.views import EntityView, SearchHit, SearchKind, SearchResults
from loregraph.engine.visibility import Access, check_owner, document_access
from loregraph.errors import (
    AlreadyDoneError,
    ConfigError,
    DependencyError,
    EmptyInputError,
    EmptyStoreError,
    InputError,
    LoregraphError,
    NotAllowedError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
)
from loregraph.export import subgraph_text
from loregraph.graph import AsyncGraph, EngineOptions, open_async, open_store
from loregraph.ingest.extract.base import Extractor
from loregraph.ingest.progress import Progress
from loregraph.ingest.read.readlog import SkippedInput
from loregraph.ingest.read.textio import has_surrogates
from loregraph.ingest.read.uploads import body_document, read_uploads
from loregraph.ingest.report import DocumentFailure, IngestReport
from loregraph.ingest.types import SourceDocument
from loregraph.location import Location
from loregraph.models import (
    CO_OCCURS,
    Chunk,
    DeleteReport,
    DocKind,
    Document,
    Entity,
    Mention,
    Relation,
    StoreStats,
)
from loregraph.observe.debug import circuit_state, debug_report
from loregraph.retrieve.personas.library import Persona, PersonaLibrary, read_persona
from loregraph.retrieve.results.provenance import PersonaReport
from loregraph.retrieve.results.result import (
    Passage,
    QueryAnalysis,
    RankedDocument,
    RankedEntity,
    RankedRelation,
    RetrievalResult,
    StartEntity,
)
from loregraph.retrieve.results.terms import Focus
from loregraph.retrieve.results.trace import RetrievalTrace
from loregraph.retrieve.search.resilience import GraphStatus
from loregraph.settings import (
    MIN_BUDGET,
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
from loregraph.text.dates import FORMATS_HINT, user_time

if TYPE_CHECKING:
    from loregraph.llm.client import LLMClient
    from loregraph.llm.usage import StageUsage, UsageTracker
    from loregraph.observe.metrics import Metrics

__version__ = "0.1.0"

_LLM_TYPES = {
    "Metrics": "loregraph.observe.metrics",
    "LLMClient": "loregraph.llm.client",
    "StageUsage": "loregraph.llm.usage",
    "UsageTracker": "loregraph.llm.usage",
}


def __getattr__(name: str) -> Any:
    """The LLM client's types and the metrics (which count LLM calls), imported when first
    asked for: an offline engine loads no LLM code."""
    module = _LLM_TYPES.get(name)
    if module is None:
        raise AttributeError(f"module 'loregraph' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "ALL_SCOPES",
    "CO_OCCURS",
    "FORMATS_HINT",
    "LOCAL",
    "MAX_HOPS",
    "MIN_BUDGET",
    "PRESETS",
    "ROLE_ALIASES",
    "SHARES",
    "SHARE_ALL",
    "SHARE_SELECTIVE",
    "Access",
    "AccessControl",
    "AlreadyDoneError",
    "Answer",
    "ApiKey",
    "Asking",
    "AsyncGraph",
    "AuditEntry",
    "BackfillReport",
    "BlockingAccess",
    "BlockingCorrections",
    "BlockingExplore",
    "BlockingMemories",
    "BlockingStreamedAnswer",
    "Chunk",
    "ChunkSettings",
    "Citation",
    "Clock",
    "CodeContext",
    "CodeNote",
    "CodeSymbol",
    "ConfigError",
    "ContextFormat",
    "CopyReport",
    "Corrections",
    "DeleteReport",
    "DependencyError",
    "Dependent",
    "Direction",
    "DocKind",
    "Document",
    "DocumentFailure",
    "Embedder",
    "EmptyInputError",
    "EmptyStoreError",
    "EngineOptions",
    "Entity",
    "EntityLink",
    "EntityRelations",
    "EntityView",
    "Explore",
    "ExtractionSettings",
    "Extractor",
    "Fact",
    "Focus",
    "Grant",
    "Graph",
    "GraphPath",
    "GraphStatus",
    "History",
    "Impact",
    "IngestReport",
    "InputError",
    "LLMClient",
    "LLMSettings",
    "Location",
    "LoregraphError",
    "Memories",
    "Memory",
    "MemoryHit",
    "Mention",
    "MergeView",
    "Metrics",
    "Neighbourhood",
    "NewKey",
    "NewMemory",
    "NotAllowedError",
    "NotFoundError",
    "Only",
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
    "SearchKind",
    "SearchResults",
    "Settings",
    "SkippedInput",
    "SourceDocument",
    "StageUsage",
    "StartEntity",
    "Store",
    "StoreError",
    "StoreStats",
    "StreamedAnswer",
    "Suggestion",
    "UsageTracker",
    "Visibility",
    "__version__",
    "body_document",
    "check_name",
    "check_owner",
    "circuit_state",
    "context_of",
    "copy_locations",
    "debug_report",
    "document_access",
    "evidence_sentence",
    "has_surrogates",
    "open",
    "open_async",
    "open_store",
    "read_persona",
    "read_uploads",
    "subgraph_text",
    "user_time",
]

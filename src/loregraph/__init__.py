"""loregraph: documents and agent memories to a knowledge graph, answered with graph-augmented
retrieval. Offline by default, on one SQLite file.

    import loregraph
    g = loregraph.open("dracula.db")
    g.ingest("dracula.txt")
    print(g.ask("Who gave blood to Lucy in the transfusions?").text)
"""

from loregraph.answer.extractive import Answer, Citation
from loregraph.blocking import Graph, open
from loregraph.engine.history import History
from loregraph.engine.memories import Memory, NewMemory
from loregraph.engine.merge_views import MergeView
from loregraph.engine.paths import GraphPath
from loregraph.engine.patterns import EntityRelations, Neighbourhood
from loregraph.engine.recall import MemoryHit
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
from loregraph.graph import AsyncGraph, open_async, open_store
from loregraph.ingest.report import IngestReport
from loregraph.models import (
    Chunk,
    DocKind,
    Document,
    Entity,
    Mention,
    Relation,
)
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

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Answer",
    "AsyncGraph",
    "AuditEntry",
    "Chunk",
    "ChunkSettings",
    "Citation",
    "ConfigError",
    "DependencyError",
    "DocKind",
    "Document",
    "EmptyInputError",
    "EmptyStoreError",
    "Entity",
    "EntityRelations",
    "EntityView",
    "ExtractionSettings",
    "Graph",
    "GraphPath",
    "History",
    "IngestReport",
    "InputError",
    "LLMSettings",
    "LoregraphError",
    "Memory",
    "MemoryHit",
    "Mention",
    "MergeView",
    "Neighbourhood",
    "NewMemory",
    "NotFoundError",
    "Relation",
    "ResolutionSettings",
    "RetrievalSettings",
    "SchemaVersionError",
    "SearchHit",
    "SearchResults",
    "Settings",
    "Store",
    "__version__",
    "open",
    "open_async",
    "open_store",
]

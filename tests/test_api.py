"""The public API is pinned: changing it must be a decision, not an accident."""

from __future__ import annotations

import inspect

import loregraph

EXPECTED = {
    "PRESETS",
    "SearchResults",
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
    "Settings",
    "Store",
    "__version__",
    "open",
    "open_async",
    "open_store",
}

GRAPH_METHODS = {
    "ask",
    "audit",
    "context",
    "delete",
    "documents",
    "entities",
    "entity",
    "export",
    "find_entity",
    "forget",
    "history",
    "ingest",
    "ingest_documents",
    "ingest_records",
    "ingest_text",
    "memories",
    "memories_about",
    "merge",
    "merges",
    "neighbors",
    "passage",
    "path",
    "relations",
    "remember",
    "remember_many",
    "rename",
    "retrieve",
    "retype",
    "search",
    "search_memories",
    "stats",
    "unmerge",
    "grant",
    "revoke_grant",
    "grants",
    "principal_named",
    "link",
    "unlink",
    "links",
}


def test_all_is_pinned() -> None:
    assert set(loregraph.__all__) == EXPECTED
    for name in loregraph.__all__:
        assert hasattr(loregraph, name), name


def test_sync_facade_mirrors_async_core() -> None:
    for name in GRAPH_METHODS:
        async_method = getattr(loregraph.AsyncGraph, name)
        sync_method = getattr(loregraph.Graph, name)
        assert inspect.iscoroutinefunction(async_method), name
        assert not inspect.iscoroutinefunction(sync_method), name
        assert sync_method.__doc__ == async_method.__doc__, name


def test_streaming_answer_in_both_facades() -> None:
    async_method = loregraph.AsyncGraph.ask_stream
    sync_method = loregraph.Graph.ask_stream
    assert not inspect.iscoroutinefunction(async_method)  # returns an async iterator
    assert not inspect.iscoroutinefunction(sync_method)
    assert async_method.__doc__ and sync_method.__doc__
    assert list(inspect.signature(async_method).parameters) == list(
        inspect.signature(sync_method).parameters
    )
    assert loregraph.Settings().llm == loregraph.LLMSettings()
    assert not loregraph.Settings().llm.enabled


def test_public_api_has_docstrings() -> None:
    for name in loregraph.__all__:
        obj = getattr(loregraph, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__doc__, f"{name} has no docstring"
    for name in GRAPH_METHODS:
        assert getattr(loregraph.AsyncGraph, name).__doc__, name


def test_presets_are_named() -> None:
    assert {"local", "global", "hybrid", "passages", "ppr"} <= set(loregraph.PRESETS)
    for name, preset in loregraph.PRESETS.items():
        assert preset.name == name

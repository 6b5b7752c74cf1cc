"""The public API is pinned: changing it must be a decision, not an accident."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Any

import loregraph

EXPECTED = {
    # what the command line, the HTTP and MCP servers and the explorer build on
    "ALL_SCOPES",
    "LOCAL",
    "ROLE_ALIASES",
    "SHARE_ALL",
    "SHARE_SELECTIVE",
    "SHARES",
    "check_name",
    "CopyReport",
    "copy_locations",
    "Fact",
    "evidence_sentence",
    "MAX_HOPS",
    "Direction",
    "EntityLink",
    "ContextFormat",
    "Only",
    "context_of",
    "SearchKind",
    "Access",
    "check_owner",
    "document_access",
    "AlreadyDoneError",
    "NotAllowedError",
    "StoreError",
    "subgraph_text",
    "SkippedInput",
    "DocumentFailure",
    "has_surrogates",
    "body_document",
    "read_uploads",
    "Location",
    "CO_OCCURS",
    "circuit_state",
    "debug_report",
    "Metrics",
    "read_persona",
    "MIN_BUDGET",
    "FORMATS_HINT",
    "StageUsage",
    "PRESETS",
    "SearchResults",
    "Answer",
    "AccessControl",
    "AsyncGraph",
    "AuditEntry",
    "BlockingAccess",
    "BlockingCorrections",
    "BlockingExplore",
    "BlockingMemories",
    "Corrections",
    "Explore",
    "Memories",
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
    "Impact",
    "Dependent",
    "CodeContext",
    "CodeSymbol",
    "CodeNote",
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
    "ApiKey",
    "Grant",
    "Principal",
    "Role",
    "ScopeLink",
    "Embedder",
    "BackfillReport",
    "Clock",
    "NewKey",
    "PassageView",
    "Asking",
    "Suggestion",
    "EngineOptions",
    "Extractor",
    "Progress",
    "SourceDocument",
    "LLMClient",
    "UsageTracker",
    "DeleteReport",
    "StoreStats",
    "Persona",
    "PersonaLibrary",
    "GraphStatus",
    "Passage",
    "QueryAnalysis",
    "RankedDocument",
    "RankedEntity",
    "RankedRelation",
    "RetrievalResult",
    "StartEntity",
    "BlockingStreamedAnswer",
    "StreamedAnswer",
    "Focus",
    "PersonaReport",
    "RetrievalTrace",
    "Visibility",
    "user_time",
}

GRAPH_METHODS = {
    "ask",
    "backfill",
    "context",
    "delete",
    "documents",
    "export",
    "ingest",
    "ingest_documents",
    "ingest_records",
    "ingest_text",
    "personas",
    "retrieve",
    "scopes",
    "search",
    "stats",
}

SECTIONS = {
    "memories": {"remember", "remember_many", "all", "search", "forget"},
    "explore": {
        "entities",
        "find_entity",
        "entity",
        "relations",
        "impact",
        "code",
        "neighbors",
        "path",
        "history",
        "suggest",
        "passage",
    },
    "corrections": {"merges", "unmerge", "merge", "rename", "retype"},
    "access": {
        "grant",
        "revoke_grant",
        "grants",
        "principal_named",
        "link",
        "unlink",
        "links",
        "create_key",
        "keys",
        "revoke_key",
        "principal_for_key",
        "audit",
    },
}
"""The engine's sections (``graph.memories``, ...) and their methods."""


def test_all_is_pinned() -> None:
    assert set(loregraph.__all__) == EXPECTED
    for name in loregraph.__all__:
        assert hasattr(loregraph, name), name


def _public(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def _mirrors(core: type, facade: type, own: tuple[str, ...] = ()) -> None:
    """Every public method and attribute of ``core`` is on ``facade`` with the same
    parameters and documentation (but ``own``'s, which say how to use the facade);
    coroutines there block."""
    public = _public(core)
    assert public <= _public(facade), sorted(public - _public(facade))
    for name in sorted(public):
        member = inspect.getattr_static(core, name)
        if isinstance(member, property):
            assert getattr(facade, name).__doc__ == member.__doc__, name
            continue
        async_method, sync_method = getattr(core, name), getattr(facade, name)
        if name not in own:
            assert sync_method.__doc__ == async_method.__doc__, name
        assert not inspect.iscoroutinefunction(sync_method), name
        params = list(inspect.signature(async_method).parameters)
        assert list(inspect.signature(sync_method).parameters) == params, name


def test_sync_facade_mirrors_async_core() -> None:
    """The blocking facade has every method of the async core and of each of its sections,
    with the same parameters and documentation."""
    core, facade = loregraph.AsyncGraph, loregraph.Graph
    assert _public(core) >= GRAPH_METHODS | set(SECTIONS)
    _mirrors(core, facade, own=("acting_as", "ask_stream", "close"))
    for name, methods in SECTIONS.items():
        section = typing.get_type_hints(getattr(core, name).fget)["return"]
        blocking = typing.get_type_hints(getattr(facade, name).fget)["return"]
        assert _public(section) - {"core"} == methods, name
        _mirrors(section, blocking)


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
    for name in GRAPH_METHODS | set(SECTIONS):
        assert getattr(loregraph.AsyncGraph, name).__doc__, name
    for cls in (loregraph.Memories, loregraph.Explore, loregraph.Corrections):
        for name in _public(cls) - {"core"}:
            assert getattr(cls, name).__doc__, f"{cls.__name__}.{name}"


def test_presets_are_named() -> None:
    assert {"local", "global", "hybrid", "passages", "ppr"} <= set(loregraph.PRESETS)
    for name, preset in loregraph.PRESETS.items():
        assert preset.name == name


def _named_types(annotation: Any) -> set[type]:
    """The loregraph classes an annotation names (inside unions and generics too)."""
    found: set[type] = set()
    origin = typing.get_origin(annotation)
    for part in (*typing.get_args(annotation), origin or annotation):
        if part is annotation or part is origin:
            if isinstance(part, type) and part.__module__.startswith("loregraph"):
                found.add(part)
        else:
            found |= _named_types(part)
    return found


def _signature_types(cls: type) -> dict[str, set[type]]:
    """The loregraph classes in each public method's and property's annotations."""
    names = {name: getattr(loregraph, name) for name in loregraph.__all__}
    out: dict[str, set[type]] = {}
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name != "__init__":
            continue
        function = member.fget if isinstance(member, property) else member
        if not callable(function):
            continue
        hints = typing.get_type_hints(function, localns=names)
        out[name] = set().union(*map(_named_types, hints.values()))
    return out


def test_every_type_in_a_public_signature_is_exported() -> None:
    """A user can name (and import from ``loregraph``) every type the engine's methods and
    its sections' take and give, and every type a retrieval result holds (a section is
    made by the engine, never by its user)."""
    exported = {t for name in loregraph.__all__ if isinstance(t := getattr(loregraph, name), type)}
    missing = {
        f"{cls.__name__}.{method}: {t.__module__}.{t.__qualname__}"
        for cls in (
            loregraph.AsyncGraph,
            loregraph.Graph,
            loregraph.Memories,
            loregraph.Explore,
            loregraph.Corrections,
            loregraph.AccessControl,
        )
        for method, types in _signature_types(cls).items()
        if method != "__init__" or cls in (loregraph.AsyncGraph, loregraph.Graph)
        for t in types
        if t not in exported
    }
    names = {name: getattr(loregraph, name) for name in loregraph.__all__}
    for field in dataclasses.fields(loregraph.RetrievalResult):
        hint = typing.get_type_hints(loregraph.RetrievalResult, localns=names)[field.name]
        missing |= {f"RetrievalResult.{field.name}: {t.__qualname__}" for t in _named_types(hint)}
        missing -= {f"RetrievalResult.{field.name}: {t.__qualname__}" for t in exported}
    assert not missing, sorted(missing)
